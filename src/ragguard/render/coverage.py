"""Corpus coverage as text: the terminal report of ``ragguard coverage`` and the pull
request comment's line about changed documents no question covers."""

from __future__ import annotations

from collections.abc import Sequence

from ragguard.render.text import escape_markdown, printable, simple_table
from ragguard.testset.coverage import CorpusCoverage, DocumentCoverage

SHOWN_CHANGED = 10  # changed documents named in the comment's line; the rest are counted


def coverage_text(coverage: CorpusCoverage) -> str:
    """The coverage report for a terminal: the share, then a table per kind of gap."""
    size = coverage.size
    lines = [
        f"Corpus: {_count(len(coverage.documents), 'document')}, {size:,} characters. "
        f"The questions' labels touch {_percent(coverage.covered_size, size)} of it by size "
        f"({coverage.covered_size:,} characters).",
        "",
        _table("Documents no question reaches", coverage.uncovered_documents, size),
    ]
    sections = coverage.uncovered_sections
    lines += ["", f"Sections no question reaches, in documents some question does: {len(sections)}"]
    if sections:
        rows = [[printable(doc), printable(s.title, 80), f"{s.size:,}"] for doc, s in sections]
        lines.append(simple_table(["document", "section", "characters"], rows))
    unretrieved = coverage.unretrieved_documents
    if unretrieved is not None:
        lines += ["", _table("Documents the run retrieves for no question", unretrieved, size)]
    if coverage.unplaced:
        lines += ["", f"Labels that reach no place in the corpus: {len(coverage.unplaced)}"]
        lines += [f"  {printable(item)}" for item in coverage.unplaced]
    return "\n".join(lines) + "\n"


def _table(title: str, documents: Sequence[DocumentCoverage], size: int) -> str:
    total = sum(doc.size for doc in documents)
    head = f"{title}: {len(documents)} ({_percent(total, size)} of the corpus by size)"
    if not documents:
        return head
    rows = [[printable(doc.id), f"{doc.size:,}", _percent(doc.size, size)] for doc in documents]
    return head + "\n" + simple_table(["document", "characters", "share"], rows)


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "0.0%"


def uncovered_changed_line(doc_ids: Sequence[str]) -> str | None:
    """The comment's one line naming the changed corpus documents no question covers
    (None when there are none)."""
    if not doc_ids:
        return None
    shown = [escape_markdown(doc, 120) for doc in doc_ids[:SHOWN_CHANGED]]
    rest = len(doc_ids) - len(shown)
    names = ", ".join(shown) + (f" and {rest} more" if rest > 0 else "")
    noun = "document" if len(doc_ids) == 1 else "documents"
    return (
        f"This pull request changes {len(doc_ids)} corpus {noun} that no question covers: {names}."
    )
