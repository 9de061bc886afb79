"""Retrieval metrics per question, in agreement with trec_eval.

Conventions (DESIGN.md section 3): a chunk is relevant when its grade is >= 1;
precision@k divides by k even when fewer were retrieved; mrr is 1/rank of the first
relevant chunk (0 if none); ndcg uses linear gain and the discount log2(i + 1), with the
ideal DCG taken from all labelled chunks sorted by grade and cut at k (``ndcg_exp`` uses the
gain 2^grade - 1); map is TREC average precision, divided by the number of relevant chunks.

Speed (benchmarks/retrieval_scoring.py): rather than walking every ranking against every
label in Python, each question finds the ranks of its few relevant chunks in one C-level
pass (``compress`` of the ranks by ``map(relevant.__contains__, ranking)``, cut at the
largest k when every metric has one), and every metric is computed from those ranks with
``bisect`` and C-level ``map``/``sum``. A list of metric specs is compiled once into small
closures (``_plan``), not re-dispatched per question.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, count
from operator import mul, truediv
from typing import NamedTuple

from ragguard.metrics.names import MetricSpec

# _DISCOUNT[rank] = 1 / log2(rank + 1) for 1-based ranks; _DISCOUNT[0] is unused.
_DISCOUNT: list[float] = [0.0]


def discount(rank: int) -> float:
    """1 / log2(rank + 1) for a 1-based rank, from a table that grows on demand."""
    return _discounts(rank)[rank]


def _discounts(rank: int) -> list[float]:
    """The discount table, grown to hold at least ``rank``."""
    if rank >= len(_DISCOUNT):
        grown = range(len(_DISCOUNT), max(rank + 1, 2 * len(_DISCOUNT), 128))
        _DISCOUNT.extend(1.0 / math.log2(r + 1) for r in grown)
    return _DISCOUNT


_AT_LEAST_ONE = (1).__le__  # grade -> grade >= 1


class Labels(NamedTuple):
    """A question's labels: all its grades, and the relevant chunks (grade >= 1) among them.

    A named tuple rather than a dataclass: one is built per question and usually scored
    once, so its construction is a measurable part of scoring a large test set.
    """

    grades: Mapping[str, int]
    relevant: Mapping[str, int]

    @classmethod
    def from_grades(cls, grades: Mapping[str, int]) -> Labels:
        if all(map(_AT_LEAST_ONE, grades.values())):  # the usual case: no grade-0 label
            relevant = grades
        else:
            relevant = {chunk: grade for chunk, grade in grades.items() if grade >= 1}
        return tuple.__new__(cls, (grades, relevant))  # skips namedtuple's __new__

    @property
    def ideal(self) -> list[int]:
        """The relevant grades, best first: the ideal ranking's gains (only nDCG needs it)."""
        return sorted(self.relevant.values(), reverse=True)


def relevant_ranks(ranking: Sequence[str], labels: Labels) -> tuple[list[int], list[int]]:
    """The 1-based ranks of the relevant chunks in ``ranking``, ascending, and their grades."""
    ranks = _found_ranks(ranking, labels.relevant)
    return ranks, [labels.relevant[ranking[rank - 1]] for rank in ranks]


def _found_ranks(
    ranking: Sequence[str], relevant: Mapping[str, int], depth: int | None = None
) -> list[int]:
    """1-based ranks of the relevant chunks in ``ranking`` (in the first ``depth`` if given),
    ascending: one C-level pass."""
    if depth is not None and len(ranking) > depth:
        ranking = ranking[:depth]
    return list(compress(range(1, len(ranking) + 1), map(relevant.__contains__, ranking)))


def score_ranking(
    ranking: Sequence[str], labels: Labels, specs: Sequence[MetricSpec]
) -> dict[str, float]:
    """Every requested retrieval metric for one question.

    ``ranking`` holds each chunk id at most once: the run readers and system adapters refuse
    a repeated chunk, as trec_eval does, so it is not checked again here.
    """
    plan = _plan(specs)
    if not labels.relevant:  # scored 0 and counted, as trec_eval does; judged@k still applies
        return {
            name: metric([], labels, ranking) if name.startswith("judged@") else 0.0
            for name, metric in plan.metrics
        }
    ranks = _found_ranks(ranking, labels.relevant, plan.depth)
    values = {}  # a plain loop: on Python 3.11 a comprehension costs a function call
    for name, metric in plan.metrics:
        values[name] = metric(ranks, labels, ranking)
    return values


# A compiled metric: (1-based ranks of the relevant chunks, labels, ranking) -> value.
Metric = Callable[[list[int], Labels, Sequence[str]], float]


@dataclass(frozen=True)
class _Plan:
    specs: tuple[MetricSpec, ...]
    names: tuple[str, ...]
    metrics: tuple[tuple[str, Metric], ...]
    depth: int | None  # the largest cut-off, when every metric has one: ranks below are moot


# Plans by the ids of their specs. A plan holds its specs, so those ids stay theirs while
# the plan is cached (hashing the frozen dataclasses would cost more than some metrics).
# A tuple of specs (what parse_metric_list returns) is found by its own id first.
_PLANS: dict[int | tuple[int, ...], _Plan] = {}
_MAX_PLANS = 256


def _plan(specs: Sequence[MetricSpec]) -> _Plan:
    plan = _PLANS.get(id(specs))
    if plan is not None and plan.specs is specs:
        return plan
    if not isinstance(specs, (tuple, list)):
        specs = tuple(specs)
    key = tuple(map(id, specs))
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        specs_tuple = specs if isinstance(specs, tuple) else tuple(specs)
        metrics = tuple((spec.name, _compile(spec)) for spec in specs_tuple)
        cutoffs = [spec.k for spec in specs_tuple if spec.k is not None]
        depth = max(cutoffs) if cutoffs and len(cutoffs) == len(specs_tuple) else None
        plan = _Plan(specs_tuple, tuple(name for name, _ in metrics), metrics, depth)
        _PLANS[key] = _PLANS[id(specs_tuple)] = plan
    return plan


def _compile(spec: MetricSpec) -> Metric:
    """The function computing one metric from a question's found ranks."""
    base, k = spec.base, spec.k
    if base in _WITHOUT_K and k is None:
        return _WITHOUT_K[base]
    if base in _AT_K and k is not None:
        return _AT_K[base](k)
    if base in _AT_K:
        raise ValueError(f"{base} needs a cut-off, for example {base}@5")
    raise ValueError(f"not a retrieval metric: {spec.name}")


def _hit_rate_at(k: int) -> Metric:
    def hit_rate(ranks: list[int], labels: Labels, ranking: Sequence[str]) -> float:
        return 1.0 if ranks and ranks[0] <= k else 0.0

    return hit_rate


def _recall_at(k: int) -> Metric:
    def recall(ranks: list[int], labels: Labels, ranking: Sequence[str]) -> float:
        return bisect_right(ranks, k) / len(labels.relevant)

    return recall


def _precision_at(k: int) -> Metric:
    def precision(ranks: list[int], labels: Labels, ranking: Sequence[str]) -> float:
        return bisect_right(ranks, k) / k

    return precision


def _mrr(ranks: list[int], labels: Labels, ranking: Sequence[str]) -> float:
    return 1.0 / ranks[0] if ranks else 0.0


def _mrr_at(k: int) -> Metric:
    def mrr(ranks: list[int], labels: Labels, ranking: Sequence[str]) -> float:
        return 1.0 / ranks[0] if ranks and ranks[0] <= k else 0.0

    return mrr


def _map(ranks: list[int], labels: Labels, ranking: Sequence[str]) -> float:
    # the i-th relevant chunk (1-based i) at rank r adds the precision at r: i / r
    return sum(map(truediv, count(1), ranks)) / len(labels.relevant)


def _map_at(k: int) -> Metric:
    def average_precision(ranks: list[int], labels: Labels, ranking: Sequence[str]) -> float:
        if ranks and ranks[-1] > k:
            ranks = ranks[: bisect_right(ranks, k)]
        return sum(map(truediv, count(1), ranks)) / len(labels.relevant)

    return average_precision


def _ndcg_at(k: int, gain: Callable[[int], int] | None = None) -> Metric:
    """nDCG@k with the grade as gain, or ``gain(grade)``."""
    discounts = tuple(_discounts(k)[1 : k + 1])  # map(..., discounts) stops at rank k
    rank_discount = _DISCOUNT.__getitem__

    def ndcg(ranks: list[int], labels: Labels, ranking: Sequence[str]) -> float:
        if not ranks or ranks[0] > k:
            return 0.0
        if ranks[-1] > k:
            ranks = ranks[: bisect_right(ranks, k)]
        relevant = labels.relevant
        grades = map(relevant.__getitem__, map(ranking.__getitem__, map(_before, ranks)))
        ideal: Iterable[int] = sorted(relevant.values(), reverse=True)
        if gain is not None:
            grades, ideal = map(gain, grades), map(gain, ideal)
        dcg = sum(map(mul, grades, map(rank_discount, ranks)))
        return dcg / sum(map(mul, ideal, discounts))

    return ndcg


def _judged_at(k: int) -> Metric:
    """The share of the top k that carries a label of any grade (trec_eval's unj@k is its
    complement when k chunks were retrieved: like precision, it divides by k)."""

    def judged(ranks: list[int], labels: Labels, ranking: Sequence[str]) -> float:
        top = ranking[:k] if len(ranking) > k else ranking
        return sum(map(labels.grades.__contains__, top)) / k

    return judged


def _exp_gain(grade: int) -> int:
    return (1 << grade) - 1


_before = (-1).__add__  # 1-based rank -> list index

_WITHOUT_K: dict[str, Metric] = {"mrr": _mrr, "map": _map}
_AT_K: dict[str, Callable[[int], Metric]] = {
    "hit_rate": _hit_rate_at,
    "recall": _recall_at,
    "precision": _precision_at,
    "mrr": _mrr_at,
    "map": _map_at,
    "ndcg": _ndcg_at,
    "ndcg_exp": lambda k: _ndcg_at(k, _exp_gain),
    "judged": _judged_at,
}


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
