"""A PDF's text, through pypdf (the optional ``pdf`` extra): the text questions are drafted
from and quotes found in."""

from __future__ import annotations

from pathlib import Path

from ragguard.core.errors import InputError

PDF_EXTRA = "pip install 'ragguard[pdf]'"


class PdfExtraMissing(InputError):
    """A PDF met where pypdf is not installed: the error names the file and the install."""


def pdf_text(path: Path) -> str:
    """The text of a PDF's pages (blank line between pages), through pypdf."""
    try:
        import pypdf
    except ImportError:
        raise PdfExtraMissing(
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
    text = "\n\n".join(page.strip() for page in pages if page.strip()) + "\n"
    return text.replace("\r\n", "\n")
