"""The corpus as drafting reads it: the documents of :mod:`ragguard.testset.documents`
(Markdown, text, HTML) and PDF files through the optional ``pdf`` extra, chosen by a glob
on their ids, each as the plain text questions are drafted from and quotes checked in.

Markdown and text documents are drafted from as they are (their sections as coverage cuts
them); an HTML document from its visible text (:mod:`.html_text`) and a PDF from the text
pypdf extracts, each one section.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

from ragguard.core.errors import InputError
from ragguard.testset.documents import (
    DOCUMENT_SUFFIXES,
    HTML_SUFFIXES,
    WHOLE_TITLE,
    Document,
    Section,
    read_document,
)
from ragguard.testset.drafting.html_text import html_to_text

PDF_SUFFIX = ".pdf"
DRAFT_SUFFIXES = (*DOCUMENT_SUFFIXES, PDF_SUFFIX)
PDF_EXTRA = "pip install 'ragguard[pdf]'"


def corpus_paths(root: Path) -> list[Path]:
    """The files under ``root`` drafting reads, sorted."""
    return sorted(
        path for path in root.rglob("*") if path.is_file() and path.suffix.lower() in DRAFT_SUFFIXES
    )


def document_id(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def chosen_paths(root: Path, pattern: str | None) -> list[Path]:
    """The corpus files whose id matches ``pattern`` (fnmatch: ``*`` crosses ``/``), or all;
    refused when nothing is left to draft from."""
    paths = corpus_paths(root)
    if not paths:
        raise InputError(
            "--corpus",
            f"{str(root)!r} holds no documents (.md, .markdown, .txt, .text, .html, .htm, "
            ".pdf); give the folder of the corpus documents",
        )
    if pattern is None:
        return paths
    if not pattern.strip():
        raise InputError("--docs", "is empty; give a glob of document paths, e.g. 'api/*.md'")
    chosen = [path for path in paths if fnmatch.fnmatchcase(document_id(root, path), pattern)]
    if not chosen:
        raise InputError(
            "--docs",
            f"{pattern!r} matches none of the {len(paths)} documents under {str(root)!r}; "
            "globs match paths relative to the corpus folder, e.g. 'api/*.md'",
        )
    return chosen


def read_for_drafting(root: Path, pattern: str | None = None) -> tuple[Document, ...]:
    """The chosen documents, each as the text drafting works on."""
    return tuple(_plain_document(root, path) for path in chosen_paths(root, pattern))


def _plain_document(root: Path, path: Path) -> Document:
    suffix = path.suffix.lower()
    if suffix == PDF_SUFFIX:
        return whole_document(document_id(root, path), pdf_text(path))
    document = read_document(root, path)
    if suffix in HTML_SUFFIXES:
        return whole_document(document.id, html_to_text(document.text))
    return document


def whole_document(doc_id: str, text: str) -> Document:
    return Document(doc_id, text, (Section(WHOLE_TITLE, 0, len(text)),))


def pdf_text(path: Path) -> str:
    """The text of a PDF's pages (blank line between pages), through pypdf."""
    try:
        import pypdf
    except ImportError:
        raise InputError(
            path, f"is a PDF; reading PDF needs the pdf extra: {PDF_EXTRA}, or move it out"
        ) from None
    try:
        reader = pypdf.PdfReader(path)
        pages = [page.extract_text() or "" for page in reader.pages]
    except Exception as exc:  # pypdf raises many kinds on a broken file
        reason = " ".join(str(exc).split())[:120] or type(exc).__name__
        raise InputError(
            path, f"cannot read this PDF ({reason}); repair it or move it out"
        ) from None
    return "\n\n".join(page.strip() for page in pages if page.strip()) + "\n"
