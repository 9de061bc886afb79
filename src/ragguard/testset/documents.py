"""A corpus folder read as documents and their sections: the one reader of a corpus folder,
used by coverage, the pull request's corpus note, review, drafting and import's ``--docs``.

A document is a file under the folder whose name ends in ``.md``, ``.markdown``, ``.txt``,
``.text``, ``.html``, ``.htm`` or ``.pdf``; its id is its path relative to the folder, with
``/`` (what evidence labels name as ``doc``). Other files are skipped. A document's text is
the text questions are drafted from and quotes found in: Markdown and plain text as written
(UTF-8, a byte order mark dropped, Windows line ends as one), HTML its visible text
(:mod:`.html_text`), a PDF the text pypdf extracts (the ``pdf`` extra, :mod:`.pdf_text`). Sections (docs/coverage.md): Markdown
splits at ATX headings (``#`` to ``######``, outside fenced code), HTML at its ``<h1>`` to
``<h6>`` headings in the visible text; plain text and PDF are one section. Text before the
first heading is a section of its own when it holds more than white space, else it belongs
to the first heading's section; so a document's sections cover all of its characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ragguard.core.errors import InputError
from ragguard.testset.html_text import visible_text
from ragguard.testset.pdf_text import PdfExtraMissing, pdf_text

MARKDOWN_SUFFIXES = (".md", ".markdown")
HTML_SUFFIXES = (".html", ".htm")
TEXT_SUFFIXES = (".txt", ".text")
PDF_SUFFIX = ".pdf"
DOCUMENT_SUFFIXES = (*MARKDOWN_SUFFIXES, *HTML_SUFFIXES, *TEXT_SUFFIXES, PDF_SUFFIX)
PRELUDE_TITLE = "(before the first heading)"
WHOLE_TITLE = "(whole document)"
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$", re.MULTILINE)
_FENCE = re.compile(r"^ {0,3}(```|~~~)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Section:
    """A part of a document: its heading's text and its characters ``[start, end)``."""

    title: str
    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Document:
    """A corpus document: its id (path under the corpus folder), text and sections (none,
    and no text, for a PDF read by name alone)."""

    id: str
    text: str
    sections: tuple[Section, ...]

    @property
    def size(self) -> int:
        return len(self.text)


def read_documents(folder: str | Path, *, pdf_by_name: bool = False) -> tuple[Document, ...]:
    """Every document under ``folder``, sorted by id. A PDF needs the pdf extra: without it
    it is an error naming the file and the install line, unless ``pdf_by_name``, where it is
    a document without text (what the pull request's corpus note needs is its id)."""
    root = Path(folder)
    if not root.is_dir():
        raise InputError(root, "not a folder; give the folder that holds the corpus documents")
    return tuple(read_document(root, path, pdf_by_name=pdf_by_name) for path in corpus_paths(root))


def corpus_paths(root: Path) -> list[Path]:
    """The files under ``root`` that are corpus documents, sorted."""
    return sorted(
        path
        for path in root.rglob("*")
        if path.is_file() and path.suffix.lower() in DOCUMENT_SUFFIXES
    )


def document_id(root: Path, path: Path) -> str:
    """A document's id: its path under the corpus folder, ``/`` separated."""
    return path.relative_to(root).as_posix()


def read_document(root: Path, path: Path, *, pdf_by_name: bool = False) -> Document:
    """The document at ``path`` (a file under the corpus folder ``root``) as its text."""
    doc_id = document_id(root, path)
    kind = path.suffix.lower()
    if kind == PDF_SUFFIX:
        try:
            return whole_document(doc_id, pdf_text(path))
        except PdfExtraMissing:
            if not pdf_by_name:
                raise
            return Document(doc_id, "", ())
    text = _utf8_text(path)
    if kind in HTML_SUFFIXES:
        page = visible_text(text)
        return Document(doc_id, page.text, sections_at(page.text, list(page.headings)))
    return Document(doc_id, text, split_sections(text, kind))


def whole_document(doc_id: str, text: str) -> Document:
    """A document of one section."""
    return Document(doc_id, text, (Section(WHOLE_TITLE, 0, len(text)),))


def _utf8_text(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            path, f"not UTF-8 text (byte {exc.start}); save it as UTF-8 or move it out"
        ) from None
    except OSError as exc:
        raise InputError(path, f"cannot read it: {exc.strerror or exc}") from None
    return text.replace("\r\n", "\n")


def split_sections(text: str, suffix: str) -> tuple[Section, ...]:
    """Markdown or plain ``text`` (by its ``suffix``) cut into sections at its headings."""
    headings = markdown_headings(text) if suffix.lower() in MARKDOWN_SUFFIXES else []
    return sections_at(text, headings)


def markdown_headings(text: str) -> list[tuple[int, str]]:
    """The offset and title of each ATX heading outside fenced code blocks."""
    fenced = _fenced_ranges(text)
    return [
        (match.start(), (match.group(2) or "").strip())
        for match in _ATX.finditer(text)
        if not any(start <= match.start() < end for start, end in fenced)
    ]


def _fenced_ranges(text: str) -> list[tuple[int, int]]:
    fences = [match.start() for match in _FENCE.finditer(text)]
    pairs = zip(fences[0::2], fences[1::2] + [len(text)] * (len(fences) % 2), strict=False)
    return list(pairs)


def sections_at(text: str, headings: list[tuple[int, str]]) -> tuple[Section, ...]:
    """Sections starting at each heading; the text before the first is one of its own
    when it is more than white space."""
    if not headings:
        return (Section(WHOLE_TITLE, 0, len(text)),)
    starts = [offset for offset, _ in headings]
    if text[: starts[0]].strip():
        headings = [(0, PRELUDE_TITLE), *headings]
    else:
        headings = [(0, headings[0][1]), *headings[1:]]
    ends = [offset for offset, _ in headings[1:]] + [len(text)]
    return tuple(
        Section(title or "(untitled)", start, end)
        for (start, title), end in zip(headings, ends, strict=True)
    )
