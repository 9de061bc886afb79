"""Corpus coverage: which documents and sections of a corpus no question's labels reach.

A question's label reaches a document when it names it (an evidence label's ``doc``) or
names a chunk whose ``doc`` (in the run's or the corpus's chunks) is that document. It
touches the sections its span overlaps: a quote where it is found in the document (case
and white space normalised, as evidence is judged), a character or line range, a chunk's
``chars``, ``lines`` or text; a label without a span touches every section. A label that
reaches no document of the corpus is counted as unplaced, with why. Pure: documents,
questions and chunks in, a :class:`CorpusCoverage` out (docs/coverage.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ragguard.results.chunks import Chunk
from ragguard.testset.documents import Document
from ragguard.testset.model import Evidence, Question

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Reach:
    """Where one label lands: a document and a span of it, the whole of it (``span`` None
    and ``whole``), or nowhere in it (a quote or chunk not found: ``span`` None)."""

    doc: str
    span: tuple[int, int] | None
    whole: bool = False

    def touches(self, start: int, end: int) -> bool:
        """Whether the label touches the characters ``[start, end)``."""
        if self.whole:
            return True
        if self.span is None:
            return False
        first, last = self.span
        if first == last:
            return start <= first < end
        return first < end and last > start


@dataclass(frozen=True, slots=True)
class SectionCoverage:
    title: str
    size: int
    questions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DocumentCoverage:
    id: str
    size: int
    sections: tuple[SectionCoverage, ...]
    questions: tuple[str, ...]
    retrieved: bool | None  # None: no run was given

    @property
    def covered_size(self) -> int:
        return sum(section.size for section in self.sections if section.questions)


@dataclass(frozen=True, slots=True)
class CorpusCoverage:
    """A corpus's coverage by a test set's labels (and by a run's retrievals, if given)."""

    documents: tuple[DocumentCoverage, ...]
    unplaced: tuple[str, ...]  # "question: why", one per label that reaches no document

    @property
    def size(self) -> int:
        return sum(doc.size for doc in self.documents)

    @property
    def covered_size(self) -> int:
        return sum(doc.covered_size for doc in self.documents)

    @property
    def share(self) -> float:
        """The share of the corpus's characters in sections some question touches."""
        return self.covered_size / self.size if self.size else 0.0

    @property
    def uncovered_documents(self) -> tuple[DocumentCoverage, ...]:
        return tuple(doc for doc in self.documents if not doc.questions)

    @property
    def uncovered_sections(self) -> tuple[tuple[str, SectionCoverage], ...]:
        """Untouched sections of the documents some question reaches."""
        return tuple(
            (doc.id, section)
            for doc in self.documents
            if doc.questions
            for section in doc.sections
            if not section.questions
        )

    @property
    def unretrieved_documents(self) -> tuple[DocumentCoverage, ...] | None:
        if any(doc.retrieved is None for doc in self.documents):
            return None
        return tuple(doc for doc in self.documents if not doc.retrieved)

    def covers(self, doc_id: str) -> bool:
        """Whether some question's labels reach the document ``doc_id``."""
        return any(doc.id == doc_id and doc.questions for doc in self.documents)

    def to_dict(self) -> dict[str, object]:
        """The coverage as JSON (``ragguard coverage --json``)."""
        unretrieved = self.unretrieved_documents
        return {
            "size": self.size,
            "covered_size": self.covered_size,
            "share": round(self.share, 6),
            "documents": [_document_dict(doc) for doc in self.documents],
            "uncovered_documents": [doc.id for doc in self.uncovered_documents],
            "uncovered_sections": [
                {"doc": doc_id, "title": section.title, "size": section.size}
                for doc_id, section in self.uncovered_sections
            ],
            "unretrieved_documents": None
            if unretrieved is None
            else [doc.id for doc in unretrieved],
            "unplaced_labels": list(self.unplaced),
        }


def _document_dict(doc: DocumentCoverage) -> dict[str, object]:
    return {
        "id": doc.id,
        "size": doc.size,
        "covered_size": doc.covered_size,
        "questions": list(doc.questions),
        "retrieved": doc.retrieved,
        "sections": [
            {"title": s.title, "size": s.size, "questions": list(s.questions)} for s in doc.sections
        ],
    }


def corpus_coverage(
    documents: Sequence[Document],
    questions: Iterable[Question],
    chunks: Mapping[str, Chunk] | None = None,
    retrieved_docs: Iterable[str] | None = None,
) -> CorpusCoverage:
    """How far ``questions`` reach into ``documents``; ``chunks`` (the corpus's, by id)
    place chunk-id labels; ``retrieved_docs``, the documents a run retrieved from."""
    by_id = {doc.id: doc for doc in documents}
    reaches: list[tuple[str, Reach]] = []
    unplaced: list[str] = []
    for question in questions:
        for reach, why in labels_reach(question, by_id, chunks or {}):
            if reach is None or reach.doc not in by_id:
                unplaced.append(f"{question.id}: {why}")
            else:
                reaches.append((question.id, reach))
                if reach.span is None and not reach.whole:
                    unplaced.append(f"{question.id}: {why}")
    retrieved = None if retrieved_docs is None else set(retrieved_docs)
    return CorpusCoverage(
        tuple(_document_coverage(doc, reaches, retrieved) for doc in documents),
        tuple(unplaced),
    )


def _document_coverage(
    doc: Document, reaches: list[tuple[str, Reach]], retrieved: set[str] | None
) -> DocumentCoverage:
    mine = [(question_id, reach) for question_id, reach in reaches if reach.doc == doc.id]
    sections = tuple(
        SectionCoverage(
            section.title,
            section.size,
            _unique(q for q, reach in mine if reach.touches(section.start, section.end)),
        )
        for section in doc.sections
    )
    return DocumentCoverage(
        doc.id,
        doc.size,
        sections,
        _unique(q for q, _ in mine),
        None if retrieved is None else doc.id in retrieved,
    )


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def labels_reach(
    question: Question, docs: Mapping[str, Document], chunks: Mapping[str, Chunk]
) -> list[tuple[Reach | None, str]]:
    """Where each of the question's labels with grade >= 1 lands, with what to say when it
    lands nowhere (or in a document but at no place in it)."""
    found: list[tuple[Reach | None, str]] = []
    for chunk_id, grade in question.relevant.items():
        if grade >= 1:
            found.append(_chunk_reach(chunk_id, docs, chunks))
    for evidence in question.evidence:
        if evidence.grade >= 1:
            found.append(_evidence_reach(evidence, docs))
    return found


def _evidence_reach(evidence: Evidence, docs: Mapping[str, Document]) -> tuple[Reach | None, str]:
    doc = docs.get(evidence.doc)
    if doc is None:
        return None, f"document {evidence.doc!r} is not in the corpus"
    if evidence.quote is not None:
        span = quote_span(evidence.quote, doc.text)
        return Reach(doc.id, span), f"quote not found in {doc.id!r}"
    if evidence.chars is not None:
        return Reach(doc.id, evidence.chars), ""
    if evidence.lines is not None:
        return Reach(doc.id, line_span(doc.text, evidence.lines)), ""
    return Reach(doc.id, None, whole=True), ""


def _chunk_reach(
    chunk_id: str, docs: Mapping[str, Document], chunks: Mapping[str, Chunk]
) -> tuple[Reach | None, str]:
    chunk = chunks.get(chunk_id)
    if chunk is None or chunk.doc is None:
        return None, f"chunk {chunk_id!r} has no document (give a corpus whose entry has doc)"
    doc = docs.get(chunk.doc)
    if doc is None:
        return None, f"chunk {chunk_id!r}: document {chunk.doc!r} is not in the corpus"
    if chunk.chars is not None:
        return Reach(doc.id, chunk.chars), ""
    if chunk.lines is not None:
        return Reach(doc.id, line_span(doc.text, chunk.lines)), ""
    if chunk.text:
        found = quote_span(chunk.text, doc.text)
        return Reach(doc.id, found), f"chunk {chunk_id!r}: its text not found in {doc.id!r}"
    return Reach(doc.id, None, whole=True), ""


def quote_span(quote: str, text: str) -> tuple[int, int] | None:
    """Where ``quote`` is in ``text`` as characters ``[start, end)``, case and runs of
    white space aside (as evidence is matched); None when it is not there."""
    needle = _SPACE.sub(" ", quote).strip().casefold()
    if not needle:
        return None
    normal, origin = _normalised_with_origin(text)
    at = normal.find(needle)
    if at < 0:
        return None
    return origin[at], origin[at + len(needle) - 1] + 1


def _normalised_with_origin(text: str) -> tuple[str, list[int]]:
    """``text`` case folded with runs of white space as one space, and for each of its
    characters the offset in ``text`` it comes from."""
    chars: list[str] = []
    origin: list[int] = []
    for offset, char in enumerate(text):
        if char.isspace():
            if chars and chars[-1] == " ":
                continue
            char = " "
        for folded in char.casefold():
            chars.append(folded)
            origin.append(offset)
    return "".join(chars), origin


def line_span(text: str, lines: tuple[int, int]) -> tuple[int, int]:
    """The characters ``[start, end)`` of the 1-based lines ``first..last`` of ``text``."""
    starts = [0] + [match.end() for match in re.finditer("\n", text)]
    first = min(max(lines[0], 1), len(starts))
    last = min(max(lines[1], first), len(starts))
    end = starts[last] if last < len(starts) else len(text)
    return starts[first - 1], end


def uncovered_changed(coverage: CorpusCoverage, changed: Iterable[str]) -> tuple[str, ...]:
    """The changed documents (ids) of the corpus that no question's labels reach."""
    known = {doc.id for doc in coverage.documents}
    return tuple(
        doc_id for doc_id in sorted(set(changed)) if doc_id in known and not coverage.covers(doc_id)
    )
