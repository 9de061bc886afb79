"""Retrieval metrics per question, in agreement with trec_eval.

Conventions (DESIGN.md section 3): a chunk is relevant when its grade is >= 1;
precision@k divides by k even when fewer were retrieved; mrr is 1/rank of the first
relevant chunk (0 if none); ndcg uses linear gain and the discount log2(i + 1), with the
ideal DCG taken from all labelled chunks sorted by grade and cut at k (``ndcg_exp`` uses the
gain 2^grade - 1); map is TREC average precision, divided by the number of relevant chunks.

Speed: rather than walking every ranking against every label, each question finds the
ranks of its few relevant chunks once, and every metric is computed from those ranks.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ragguard.metrics.names import MetricSpec

_DISCOUNT: list[float] = [0.0]


def discount(rank: int) -> float:
    """1 / log2(rank + 1), from a table that grows on demand."""
    while len(_DISCOUNT) <= rank:
        _DISCOUNT.append(1.0 / math.log2(len(_DISCOUNT) + 1))
    return _DISCOUNT[rank]


@dataclass(frozen=True, slots=True)
class Labels:
    """A question's labels, prepared once for scoring many rankings."""

    grades: Mapping[str, int]
    relevant: Mapping[str, int]
    ideal: tuple[int, ...]

    @classmethod
    def from_grades(cls, grades: Mapping[str, int]) -> Labels:
        relevant = {chunk: grade for chunk, grade in grades.items() if grade >= 1}
        return cls(grades, relevant, tuple(sorted(relevant.values(), reverse=True)))


def relevant_ranks(ranking: Sequence[str], labels: Labels) -> tuple[list[int], list[int]]:
    """The 1-based ranks of the relevant chunks in ``ranking``, ascending, and their grades."""
    found = labels.relevant.keys() & ranking  # one C-level pass over the ranking
    pairs = sorted((ranking.index(chunk) + 1, labels.relevant[chunk]) for chunk in found)
    return [rank for rank, _ in pairs], [grade for _, grade in pairs]


def score_ranking(
    ranking: Sequence[str], labels: Labels, specs: Sequence[MetricSpec]
) -> dict[str, float]:
    """Every requested retrieval metric for one question."""
    ranks, grades = relevant_ranks(ranking, labels)
    return {spec.name: _metric(spec, ranks, grades, labels) for spec in specs}


def _metric(spec: MetricSpec, ranks: list[int], grades: list[int], labels: Labels) -> float:
    base, k = spec.base, spec.k
    n_relevant = len(labels.relevant)
    if n_relevant == 0:
        return 0.0
    within = len(ranks) if k is None else bisect_right(ranks, k)
    if base == "hit_rate":
        return 1.0 if within else 0.0
    if base == "recall":
        return within / n_relevant
    if base == "precision":
        return within / k  # type: ignore[operator]
    if base == "mrr":
        return 1.0 / ranks[0] if within else 0.0
    if base == "map":
        return sum((i + 1) / ranks[i] for i in range(within)) / n_relevant
    if base == "ndcg":
        return _ndcg(ranks, grades, within, labels.ideal, k, float)
    if base == "ndcg_exp":
        return _ndcg(ranks, grades, within, labels.ideal, k, _exp_gain)
    raise ValueError(f"not a retrieval metric: {spec.name}")


def _exp_gain(grade: int) -> float:
    return float(2**grade - 1)


def _ndcg(ranks, grades, within, ideal, k, gain) -> float:
    ideal_dcg = sum(gain(g) * discount(i) for i, g in enumerate(ideal[:k], start=1))
    if ideal_dcg == 0:
        return 0.0
    dcg = sum(gain(grades[i]) * discount(ranks[i]) for i in range(within))
    return dcg / ideal_dcg


@dataclass(frozen=True, slots=True)
class RankGain:
    rank: int
    chunk: str
    grade: int
    gain: float


@dataclass(frozen=True, slots=True)
class Explanation:
    """The working behind one question's cut-off metrics, for ``ragguard explain``."""

    k: int
    rows: tuple[RankGain, ...]
    hits: int
    n_relevant: int
    first_rank: int | None
    dcg: float
    idcg: float

    @property
    def ndcg(self) -> float:
        return self.dcg / self.idcg if self.idcg else 0.0


def explain(ranking: Sequence[str], grades: Mapping[str, int], k: int) -> Explanation:
    """DCG, IDCG and the counts behind precision, recall and reciprocal rank at k."""
    labels = Labels.from_grades(grades)
    rows = tuple(
        RankGain(
            rank, chunk, labels.grades.get(chunk, 0), labels.grades.get(chunk, 0) * discount(rank)
        )
        for rank, chunk in enumerate(ranking[:k], start=1)
    )
    ranks, _ = relevant_ranks(ranking, labels)
    return Explanation(
        k=k,
        rows=rows,
        hits=bisect_right(ranks, k),
        n_relevant=len(labels.relevant),
        first_rank=ranks[0] if ranks else None,
        dcg=sum(row.gain for row in rows if row.grade >= 1),
        idcg=sum(g * discount(i) for i, g in enumerate(labels.ideal[:k], start=1)),
    )
