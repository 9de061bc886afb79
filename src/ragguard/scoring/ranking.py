"""Retrieval values of one ranking: chunk-level by chunk ids or evidence labels, and
document-level, for the retrieval metrics asked for. Shared by the question (its whole
ranking) and an agent's hops (each against its retrieval step).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ragguard.metrics.names import MetricSpec
from ragguard.metrics.retrieval import Labels, score_ranking
from ragguard.results.chunks import Chunk
from ragguard.testset.model import Question


def retrieval_values(
    question: Question,
    retrieved: tuple[Chunk, ...],
    specs: Sequence[MetricSpec],
    origins: Mapping[str, Chunk] | None,
    min_coverage: float | None,
) -> tuple[dict[str, float], dict[str, int]]:
    """Chunk- and document-level values in the order of ``specs``, and, with evidence
    labels, the grade each retrieved chunk earned."""
    ids = [chunk.id for chunk in retrieved]
    if not question.evidence and not has_document_level(specs):
        return score_ranking(ids, Labels.from_grades(question.relevant), specs), {}
    from ragguard.metrics.evidence import judge_ranking, score_documents, score_judged
    from ragguard.metrics.settings import DEFAULT_MIN_COVERAGE

    coverage = DEFAULT_MIN_COVERAGE if min_coverage is None else min_coverage
    chunk_specs = [spec for spec in specs if not spec.is_document_level]
    judgments: dict[str, int] = {}
    if question.evidence:
        judged = judge_ranking(question, retrieved, origins, coverage)
        values = score_judged(judged, chunk_specs)
        judgments = judged.chunk_grades(ids)
    else:
        values = score_ranking(ids, Labels.from_grades(question.relevant), chunk_specs)
    doc_specs = [spec for spec in specs if spec.is_document_level]
    if doc_specs:
        values.update(score_documents(question, retrieved, doc_specs, origins))
    return {spec.name: values[spec.name] for spec in specs if spec.name in values}, judgments


# The retrieval specs of a list of specs, by the list's id (score_run passes the same list
# for every question; the metric plans are cached by the id of the tuple returned), and
# whether any is document-level.
_RETRIEVAL: dict[int, tuple[Sequence[MetricSpec], tuple[MetricSpec, ...], bool]] = {}


def retrieval_specs(specs: Sequence[MetricSpec]) -> tuple[MetricSpec, ...]:
    return _cached_specs(specs)[1]


def has_document_level(specs: Sequence[MetricSpec]) -> bool:
    return _cached_specs(specs)[2]


def _cached_specs(
    specs: Sequence[MetricSpec],
) -> tuple[Sequence[MetricSpec], tuple[MetricSpec, ...], bool]:
    cached = _RETRIEVAL.get(id(specs))
    if cached is not None and cached[0] is specs:
        return cached
    if len(_RETRIEVAL) >= 64:
        _RETRIEVAL.clear()
    chosen = tuple(spec for spec in specs if spec.is_retrieval)
    entry = (specs, chosen, any(spec.is_document_level for spec in chosen))
    _RETRIEVAL[id(specs)] = entry
    if chosen is not specs:  # the tuple is asked about too (_has_document_level(retrieval))
        _RETRIEVAL[id(chosen)] = (chosen, chosen, entry[2])
    return entry
