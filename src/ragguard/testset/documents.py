"""A corpus folder read as documents and their sections, for corpus coverage.

A document is a file under the folder whose name ends in ``.md``, ``.markdown``, ``.txt``,
``.text``, ``.html`` or ``.htm``; its id is its path relative to the folder, with ``/``
(what evidence labels name as ``doc``). Other files are skipped. Sections
(docs/coverage.md): Markdown splits at ATX headings (``#`` to ``######``, outside fenced
code), HTML at ``<h1>`` to ``<h6>``, and plain text is one section. Text before the first
heading is a section of its own when it holds more than white space, else it belongs to
the first heading's section; so a document's sections cover all of its characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ragguard.core.errors import InputError

MARKDOWN_SUFFIXES = (".md", ".markdown")
HTML_SUFFIXES = (".html", ".htm")
TEXT_SUFFIXES = (".txt", ".text")
DOCUMENT_SUFFIXES = MARKDOWN_SUFFIXES + HTML_SUFFIXES + TEXT_SUFFIXES
PRELUDE_TITLE = "(before the first heading)"
WHOLE_TITLE = "(whole document)"
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$", re.MULTILINE)
_FENCE = re.compile(r"^ {0,3}(```|~~~)", re.MULTILINE)
_HTML_HEADING = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


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
    """A corpus document: its id (path under the corpus folder), text and sections."""

    id: str
    text: str
    sections: tuple[Section, ...]

    @property
    def size(self) -> int:
        return len(self.text)


def read_documents(folder: str | Path) -> tuple[Document, ...]:
    """Every document under ``folder``, sorted by id."""
    root = Path(folder)
    if not root.is_dir():
        raise InputError(root, "not a folder; give the folder that holds the corpus documents")
    paths = sorted(
        path
        for path in root.rglob("*")
        if path.is_file() and path.suffix.lower() in DOCUMENT_SUFFIXES
    )
    return tuple(read_document(root, path) for path in paths)


def read_document(root: Path, path: Path) -> Document:
    """The document at ``path`` (a file under the corpus folder ``root``): UTF-8 text."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            path, f"not UTF-8 text (byte {exc.start}); save it as UTF-8 or move it out"
        ) from None
    except OSError as exc:
        raise InputError(path, f"cannot read it: {exc.strerror or exc}") from None
    text = text.replace("\r\n", "\n")
    return Document(path.relative_to(root).as_posix(), text, split_sections(text, path.suffix))


def split_sections(text: str, suffix: str) -> tuple[Section, ...]:
    """``text`` cut into sections by the headings its kind (``suffix``) has."""
    kind = suffix.lower()
    if kind in MARKDOWN_SUFFIXES:
        headings = markdown_headings(text)
    elif kind in HTML_SUFFIXES:
        headings = html_headings(text)
    else:
        headings = []
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


def html_headings(text: str) -> list[tuple[int, str]]:
    """The offset and text of each ``<h1>``..``<h6>`` element."""
    return [
        (match.start(), " ".join(_TAG.sub(" ", match.group(2)).split()))
        for match in _HTML_HEADING.finditer(text)
    ]


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
