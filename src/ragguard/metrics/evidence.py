"""Retrieval metrics when labels name evidence (a document, a quote, a span), not chunk ids.

A chunk covers an evidence label when it comes from the label's document and holds at
least ``min_coverage`` of the evidence (docs/metrics.md, "Evidence labels"):

- a quote: the part of the quote the chunk's text holds, after case and whitespace are
  normalised, over the quote's length — the whole quote, or the piece a chunk boundary
  leaves (the quote's start at the chunk's end, its end at the chunk's start, or the
  chunk inside the quote);
- a character or line range: the overlap of the chunk's range with the evidence's, over
  the evidence's length;
- a whole document: any chunk of it.

Each retrieved chunk is judged by the labels it covers, and the metrics follow trec_eval's
definitions with labels in place of relevant documents: recall@k is the share of relevant
labels covered in the top k, precision@k the share of the top k chunks that cover one,
nDCG counts each label's gain once, at the first rank that covers it (capped at 1 when a
chunk covers several labels at once, which no ideal ranking of one label a rank can
beat), AP averages the precision at each label's first covering rank. When every label is
a chunk id these are exactly trec_eval's values (tests/metrics/test_evidence.py checks it).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ragguard.metrics.names import MetricSpec
from ragguard.metrics.retrieval import Labels, discount, score_ranking
from ragguard.metrics.settings import DEFAULT_MIN_COVERAGE
from ragguard.results.chunks import Chunk
from ragguard.testset.model import Evidence, Question, normal_text


def coverage(evidence: Evidence, chunk: Chunk) -> float:
    """The share of ``evidence`` that ``chunk`` holds, from 0 to 1 (0: another document,
    or the chunk lacks what the evidence needs: text for a quote, a range for a range)."""
    if chunk.doc != evidence.doc:
        return 0.0
    if evidence.quote is not None:
        return _quote_share(evidence.quote, chunk.text) if chunk.text is not None else 0.0
    if evidence.chars is not None:
        return _range_share(evidence.chars, chunk.chars, inclusive=False)
    if evidence.lines is not None:
        return _range_share(evidence.lines, chunk.lines, inclusive=True)
    return 1.0


def _quote_share(quote: str, text: str) -> float:
    needle, haystack = normal_text(quote), normal_text(text)
    if not needle:
        return 0.0
    return _held(needle, haystack) / len(needle)


def _held(quote: str, chunk: str) -> int:
    """How many characters of ``quote`` the chunk holds, both being contiguous text of one
    document: all of it, the chunk itself inside the quote, or the part a chunk boundary
    leaves (the quote's head at the chunk's end, its tail at the chunk's start). Words the
    two merely share elsewhere do not count."""
    if quote in chunk:
        return len(quote)
    if chunk in quote:
        return len(chunk)
    longest = min(len(quote), len(chunk)) - 1
    head = next((n for n in range(longest, 0, -1) if chunk.endswith(quote[:n])), 0)
    tail = next((n for n in range(longest, head, -1) if chunk.startswith(quote[-n:])), 0)
    return max(head, tail)


def _range_share(
    evidence: tuple[int, int], chunk: tuple[int, int] | None, *, inclusive: bool
) -> float:
    if chunk is None:
        return 0.0
    extra = 1 if inclusive else 0
    length = evidence[1] - evidence[0] + extra
    if length <= 0:
        return 1.0 if chunk[0] <= evidence[0] <= chunk[1] else 0.0
    overlap = min(evidence[1], chunk[1]) - max(evidence[0], chunk[0]) + extra
    return max(0, overlap) / length


@dataclass(frozen=True, slots=True)
class Judged:
    """A ranking judged against a question's labels.

    ``grades`` holds every label's grade (chunk-id labels first, then evidence);
    ``covered[r]`` the indexes of the labels the chunk at rank r + 1 covers.
    """

    grades: tuple[int, ...]
    covered: tuple[tuple[int, ...], ...]

    def chunk_grades(self, ranking: Sequence[str]) -> dict[str, int]:
        """The grade each judged chunk earned: the best label it covers."""
        return {
            chunk: max(self.grades[i] for i in items)
            for chunk, items in zip(ranking, self.covered, strict=True)
            if items
        }


def judge_ranking(
    question: Question,
    chunks: Sequence[Chunk],
    origins: Mapping[str, Chunk] | None = None,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
) -> Judged:
    """Which labels each retrieved chunk covers. A chunk that lacks text or a document is
    completed from ``origins`` (the corpus) by its id."""
    chunk_labels = list(question.relevant.items())
    position = {chunk_id: i for i, (chunk_id, _) in enumerate(chunk_labels)}
    grades = tuple(g for _, g in chunk_labels) + tuple(e.grade for e in question.evidence)
    offset = len(chunk_labels)
    covered = []
    for chunk in chunks:
        full = _completed(chunk, origins)
        items = [position[chunk.id]] if chunk.id in position else []
        items += [
            offset + j
            for j, evidence in enumerate(question.evidence)
            if coverage(evidence, full) >= min_coverage
        ]
        covered.append(tuple(items))
    return Judged(grades, tuple(covered))


def _completed(chunk: Chunk, origins: Mapping[str, Chunk] | None) -> Chunk:
    known = origins.get(chunk.id) if origins else None
    if known is None:
        return chunk
    return Chunk(
        chunk.id,
        chunk.text if chunk.text is not None else known.text,
        chunk.score,
        chunk.doc or known.doc,
        chunk.chars or known.chars,
        chunk.lines or known.lines,
    )


def score_judged(judged: Judged, specs: Sequence[MetricSpec]) -> dict[str, float]:
    """Every requested chunk-level retrieval metric from a judged ranking."""
    relevant = [i for i, grade in enumerate(judged.grades) if grade >= 1]
    if not relevant:  # scored 0 and counted, as trec_eval does; judged@k still applies
        facts = _Facts(judged, relevant, [], {})
        return {s.name: facts.value(s) if s.base == "judged" else 0.0 for s in specs}
    relevant_set = set(relevant)
    chunk_ranks = [
        rank
        for rank, items in enumerate(judged.covered, start=1)
        if any(i in relevant_set for i in items)
    ]
    first: dict[int, int] = {}
    for rank, items in enumerate(judged.covered, start=1):
        for i in items:
            if i in relevant_set:
                first.setdefault(i, rank)
    facts = _Facts(judged, relevant, chunk_ranks, first)
    return {spec.name: facts.value(spec) for spec in specs}


@dataclass(frozen=True)
class _Facts:
    judged: Judged
    relevant: list[int]
    chunk_ranks: list[int]  # ranks of chunks that cover a relevant label, ascending
    first: dict[int, int]  # relevant label -> first rank covering it

    def value(self, spec: MetricSpec) -> float:
        base, k = spec.base, spec.k
        depth = k if k is not None else len(self.judged.covered)
        ranks = self.chunk_ranks
        if base == "hit_rate":
            return 1.0 if ranks and ranks[0] <= depth else 0.0
        if base == "mrr":
            return 1.0 / ranks[0] if ranks and ranks[0] <= depth else 0.0
        if base == "precision":
            return bisect_right(ranks, depth) / depth
        if base == "recall":
            found = sum(1 for rank in self.first.values() if rank <= depth)
            return found / len(self.relevant)
        if base == "map":
            total = sum(
                bisect_right(ranks, rank) / rank for rank in self.first.values() if rank <= depth
            )
            return total / len(self.relevant)
        if base in ("ndcg", "ndcg_exp"):
            return self._ndcg(depth, exponential=base == "ndcg_exp")
        if base == "judged":
            return sum(1 for items in self.judged.covered[:depth] if items) / depth
        raise ValueError(f"not a retrieval metric: {spec.name}")

    def _ndcg(self, k: int, *, exponential: bool) -> float:
        grades = self.judged.grades

        def gain(grade: int) -> float:
            return float((1 << grade) - 1) if exponential else float(grade)

        dcg = sum(gain(grades[i]) * discount(rank) for i, rank in self.first.items() if rank <= k)
        ideal = sorted((grades[i] for i in self.relevant), reverse=True)[:k]
        idcg = sum(gain(grade) * discount(rank) for rank, grade in enumerate(ideal, start=1))
        return min(1.0, dcg / idcg) if idcg else 0.0


def document_ranking(chunks: Sequence[Chunk], origins: Mapping[str, Chunk] | None) -> list[str]:
    """The documents of a chunk ranking, in order of first appearance (a chunk with no
    known document stands for a document of its own, never relevant)."""
    docs: dict[str, None] = {}
    for chunk in chunks:
        doc = _completed(chunk, origins).doc
        docs.setdefault(doc if doc is not None else f"\0{chunk.id}", None)
    return list(docs)


def document_labels(question: Question, origins: Mapping[str, Chunk] | None) -> dict[str, int]:
    """A question's labels at document level: each document's best grade, from its
    evidence and from its labelled chunks whose document the corpus names."""
    grades: dict[str, int] = {}
    for evidence in question.evidence:
        grades[evidence.doc] = max(grades.get(evidence.doc, 0), evidence.grade)
    for chunk_id, grade in question.relevant.items():
        known = origins.get(chunk_id) if origins else None
        if known is not None and known.doc is not None:
            grades[known.doc] = max(grades.get(known.doc, 0), grade)
    return grades


def score_documents(
    question: Question,
    chunks: Sequence[Chunk],
    specs: Sequence[MetricSpec],
    origins: Mapping[str, Chunk] | None = None,
) -> dict[str, float]:
    """Document-level metrics (``doc_recall@5`` ...): the chunk-level definitions applied
    to the ranking of documents. Empty when no label's document is known."""
    grades = document_labels(question, origins)
    if not grades:
        return {}
    ranking = document_ranking(chunks, origins)
    chunk_specs = _chunk_level(tuple(specs))
    values = score_ranking(ranking, Labels.from_grades(grades), chunk_specs)
    return {spec.name: values[twin.name] for spec, twin in zip(specs, chunk_specs, strict=True)}


@lru_cache(maxsize=64)
def _chunk_level(specs: tuple[MetricSpec, ...]) -> tuple[MetricSpec, ...]:
    """One tuple of chunk-level twins per spec list, so the scorer's plan cache hits."""
    return tuple(spec.chunk_level for spec in specs)
