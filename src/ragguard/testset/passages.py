"""Where a question's labels point, as text a reviewer can read: an evidence quote with a
little of the document around it, or a labelled chunk's text (``ragguard testset review``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from ragguard.testset.model import Evidence, Question

AROUND = 160  # characters of context on each side of a quote


@dataclass(frozen=True, slots=True)
class Passage:
    """One label of a question as text: what it names (``label``) and the text, the quote
    between ``before`` and ``after`` when the corpus holds it. ``found`` is False for a
    quote the document does not hold (or a document or chunk the corpus does not have)."""

    label: str
    text: str
    before: str = ""
    after: str = ""
    found: bool = True
    cut_before: bool = False  # the document goes on before ``before`` (after ``after``)
    cut_after: bool = False


def passages(
    question: Question, documents: Mapping[str, str], chunks: Mapping[str, str]
) -> list[Passage]:
    """The question's evidence and chunk labels (grade 1 or more) as passages: a quote in
    its document's context when ``documents`` has it, else the quote alone. A question with
    hops shows each hop's labels in order, named ``hop 1: ...``, then any label of the
    question that no hop holds."""
    shown: list[Passage] = []
    for number, hop in enumerate(question.hops, start=1):
        found = _labelled(hop.evidence, hop.relevant, documents, chunks)
        shown += [replace(passage, label=f"hop {number}: {passage.label}") for passage in found]
    in_hops = {e for hop in question.hops for e in hop.evidence}
    in_hop_chunks = {chunk for hop in question.hops for chunk in hop.relevant}
    evidence = [e for e in question.evidence if e not in in_hops]
    relevant = {c: g for c, g in question.relevant.items() if c not in in_hop_chunks}
    return shown + _labelled(evidence, relevant, documents, chunks)


def _labelled(
    evidence: Iterable[Evidence],
    relevant: Mapping[str, int],
    documents: Mapping[str, str],
    chunks: Mapping[str, str],
) -> list[Passage]:
    shown = [_evidence_passage(e.doc, e.quote, documents) for e in evidence if e.grade]
    for chunk, grade in relevant.items():
        if grade >= 1:
            text = chunks.get(chunk)
            found = text is not None or not chunks  # without chunk text there is nothing to show
            shown.append(Passage(f"chunk {chunk}", text or "", found=found))
    return shown


def _evidence_passage(doc: str, quote: str | None, documents: Mapping[str, str]) -> Passage:
    text = documents.get(doc)
    if quote is None:
        excerpt = (text or "")[: 2 * AROUND]
        return Passage(doc, excerpt, found=text is not None)
    if text is None:
        return Passage(doc, quote, found=not documents)
    span = find_quote(text, quote)
    if span is None:
        return Passage(doc, quote, found=False)
    start, end = span
    before = text[max(0, start - AROUND) : start]
    after = text[end : end + AROUND]
    cuts = {"cut_before": start > AROUND, "cut_after": end + AROUND < len(text)}
    return Passage(doc, text[start:end], before=before, after=after, **cuts)


def find_quote(text: str, quote: str) -> tuple[int, int] | None:
    """Where ``quote`` is in ``text``, matched as quotes are (case folded, any run of white
    space for one): its characters ``[start, end)``, or None."""
    words = quote.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(word) for word in words)
    match = re.search(pattern, text, flags=re.IGNORECASE)
    return (match.start(), match.end()) if match else None
