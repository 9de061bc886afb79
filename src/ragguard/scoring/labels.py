"""What scoring needs to know about the chunks behind the labels, and labels nothing matches.

Evidence labels and document-level metrics judge a retrieved chunk by its document and
text; a run that returns ids only gets them from the corpus (``{"id", "text", "doc"}``).
A label that no chunk of the run or the corpus can match is most often a typo
(``relevant: [pricng]``) and would otherwise score as a silent miss: it gets a warning.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from pathlib import Path

from ragguard.metrics.names import MetricSpec
from ragguard.results.chunks import Chunk
from ragguard.results.records import RunRecord, load_corpus_chunks
from ragguard.testset.model import TestSet

SHOWN = 5


def needs_origins(testset: TestSet, specs: Sequence[MetricSpec]) -> bool:
    """Whether scoring looks at chunks' documents: evidence labels or doc_ metrics."""
    return any(spec.is_document_level for spec in specs) or any(
        question.evidence for question in testset
    )


def corpus_origins(
    testset: TestSet, specs: Sequence[MetricSpec], corpus: str | Path | None
) -> dict[str, Chunk] | None:
    """The corpus's chunks by id when scoring needs them, else None (not read)."""
    if corpus is None or not needs_origins(testset, specs):
        return None
    return load_corpus_chunks(corpus)


def unmatched_label_warning(
    testset: TestSet,
    records: Mapping[str, RunRecord],
    origins: Mapping[str, Chunk] | None = None,
    corpus_ids: frozenset[str] | None = None,
    *,
    later_passes: Sequence[Mapping[str, RunRecord]] = (),
) -> str | None:
    """One line naming the relevant chunk ids and evidence documents that appear in no
    retrieved list of the run and nowhere in the corpus, with their questions (those the
    system answered); None when every label can match. With repeats, ``later_passes`` are
    the other passes' records: a label retrieved in any pass matches."""
    passes = (records, *later_passes)
    chunk_ids, docs = set(), set()
    for pass_records in passes:
        seen_chunks, seen_docs = seen_labels(pass_records, origins, corpus_ids)
        chunk_ids |= seen_chunks
        docs |= seen_docs
    answered = {
        question_id for p in passes for question_id, record in p.items() if not record.error
    }
    return unmatched_warning(testset, chunk_ids, docs, answered, bool(origins or corpus_ids))


def unmatched_warning(
    testset: TestSet,
    chunk_ids: Set[str],
    docs: Set[str],
    answered: Set[str],
    with_corpus: bool = False,
) -> str | None:
    """The line of :func:`unmatched_label_warning` from what the run's rankings hold (the
    chunk ids and documents), and the questions it answered (a run scored in parts gathers
    them part by part)."""
    unmatched: list[str] = []
    for question in testset:
        if question.id not in answered:
            continue  # reported as missing or failed already
        for chunk_id, grade in question.relevant.items():
            if grade >= 1 and chunk_id not in chunk_ids:
                unmatched.append(f"chunk {chunk_id!r} (question {question.id!r})")
        for evidence in question.evidence:
            if evidence.grade >= 1 and evidence.doc not in docs:
                unmatched.append(f"document {evidence.doc!r} (question {question.id!r})")
    if not unmatched:
        return None
    where = "the run or the corpus" if with_corpus else "the run"
    more = f", and {len(unmatched) - SHOWN} more" if len(unmatched) > SHOWN else ""
    return (
        f"{len(unmatched)} relevant label(s) match no chunk in {where}: "
        f"{', '.join(unmatched[:SHOWN])}{more}; a typo in the test set, or a chunk the "
        "retriever never returns (they score as misses)"
    )


def seen_labels(
    records: Mapping[str, RunRecord],
    origins: Mapping[str, Chunk] | None,
    corpus_ids: frozenset[str] | None,
) -> tuple[set[str], set[str]]:
    """The chunk ids and documents the records' rankings (and the corpus) hold."""
    chunk_ids: set[str] = set(corpus_ids or ())
    docs: set[str] = set()
    for chunks in (origins or {}).values(), *(r.retrieved for r in records.values()):
        for chunk in chunks:
            chunk_ids.add(chunk.id)
            if chunk.doc is not None:
                docs.add(chunk.doc)
    return chunk_ids, docs
