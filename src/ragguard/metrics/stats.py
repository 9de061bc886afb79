"""Statistics over per-question values: means and their 95% intervals.

The interval of a mean is a percentile bootstrap with a fixed seed, so the same values
always give the same interval. Above ``BOOTSTRAP_MAX_N`` questions the normal
approximation is used instead: at that size the bootstrap distribution of a mean is normal
to well within its own resampling noise, and resampling would cost seconds per metric.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress

BOOTSTRAP_SEED = 20240607
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_MAX_N = 500
Z_95 = 1.959963984540054


def mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0


@dataclass(frozen=True, slots=True)
class Interval:
    low: float
    high: float


class Bootstrap:
    """Resample indices drawn once for a given n, shared by every metric of a run."""

    def __init__(
        self,
        n: int,
        *,
        resamples: int = BOOTSTRAP_RESAMPLES,
        seed: int = BOOTSTRAP_SEED,
    ) -> None:
        self.n = n
        rng = random.Random(seed)
        population = range(n)
        self._samples = (
            [rng.choices(population, k=n) for _ in range(resamples)]
            if 1 < n <= BOOTSTRAP_MAX_N
            else []
        )

    def interval(self, values: Sequence[float], level: float = 0.95) -> Interval:
        """A ``level`` interval for the mean of ``values`` (which must have length n)."""
        if len(values) != self.n:
            raise ValueError("values do not match the bootstrap's n")
        if self.n == 0:
            return Interval(0.0, 0.0)
        lowest, highest = min(values), max(values)
        if self.n == 1 or lowest == highest:
            return Interval(float(lowest), float(highest))
        if not self._samples:
            return _normal_interval(values, lowest, highest)
        get = values.__getitem__
        means = sorted(math.fsum(map(get, sample)) / self.n for sample in self._samples)
        tail = (1.0 - level) / 2.0
        return Interval(_quantile(means, tail), _quantile(means, 1.0 - tail))


def _normal_interval(values: Sequence[float], lowest: float, highest: float) -> Interval:
    center = mean(values)
    variance = math.fsum((v - center) ** 2 for v in values) / (len(values) - 1)
    half = Z_95 * math.sqrt(variance / len(values))
    return Interval(max(lowest, center - half), min(highest, center + half))


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile (numpy's default, 'linear')."""
    position = q * (len(sorted_values) - 1)
    below = math.floor(position)
    above = min(below + 1, len(sorted_values) - 1)
    fraction = position - below
    return sorted_values[below] + (sorted_values[above] - sorted_values[below]) * fraction


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) of values, linear interpolation; 0.0 for no values."""
    if not values:
        return 0.0
    return _quantile(sorted(values), q / 100.0)


# Paired tests: did the head get worse than the baseline on the same questions?
#
# The gate fails only on drops, so every test here is one-sided: its p-value is the chance,
# with no real change, of a paired result at least as far towards "worse" as the one seen.
# (A two-sided p-value compared with alpha tests each metric at alpha / 2 and costs power.)

PERMUTATION_SEED = 20240611
PERMUTATION_RESAMPLES = 10000
EXACT_MAX_NONZERO = 16
SAMPLED_MAX_NONZERO = 1000


@dataclass(frozen=True, slots=True)
class PairedTest:
    """A one-sided p-value for "the head is no worse than the baseline", and its method."""

    p_value: float
    method: str


def mcnemar_exact(worse: int, better: int) -> float:
    """Exact one-sided McNemar p-value of a drop, from the discordant pair counts.

    ``worse`` questions went 1 -> 0 and ``better`` went 0 -> 1; under no change each
    discordant pair is a fair coin, so the p-value is ``P(X >= worse)`` for
    ``X ~ Binomial(worse + better, 1/2)``, the same as ``P(X <= better)``.
    """
    n = worse + better
    if n == 0:
        return 1.0
    tail, term = 0, 1  # term is comb(n, i), updated in place: math.comb per i is quadratic
    for i in range(better + 1):
        tail += term
        term = term * (n - i) // (i + 1)
    return min(1.0, tail / (1 << n))  # integer division: 2.0**n overflows above n=1023


def sign_flip_p_value(
    deltas: Sequence[float],
    *,
    seed: int = PERMUTATION_SEED,
    resamples: int = PERMUTATION_RESAMPLES,
    exact_max: int = EXACT_MAX_NONZERO,
) -> PairedTest:
    """One-sided paired sign-flip randomization test of a drop in the mean delta.

    Under no change each question's delta is as likely positive as negative, so every
    assignment of signs is equally likely. The statistic is the sum of the deltas; the
    p-value is the share of assignments whose sum is at most the observed one. Zero deltas
    do not change it and are left out. With at most ``exact_max`` non-zero deltas all
    ``2**m`` sign assignments are counted (an exact p-value); above that, ``resamples``
    random assignments from a fixed seed are drawn and ``(hits + 1) / (resamples + 1)`` is
    reported, so the p-value is never 0. The deltas are sorted before signs are drawn, so
    the p-value depends on the values alone: not on the order of the questions in a file.
    Above ``SAMPLED_MAX_NONZERO`` the sign-flip distribution of the sum is normal with
    variance ``sum(d**2)`` to well within the resampling noise, and that is used instead.
    """
    nonzero = sorted(d for d in deltas if d != 0.0)
    m = len(nonzero)
    if m == 0:
        return PairedTest(1.0, "no differences")
    observed = math.fsum(nonzero)
    threshold = observed + 1e-9 * max(1.0, abs(observed))
    if m <= exact_max:
        return PairedTest(_exact_share(nonzero, threshold), "exact sign-flip")
    if m > SAMPLED_MAX_NONZERO:
        spread = math.sqrt(2.0 * math.fsum(d * d for d in nonzero))
        return PairedTest(0.5 * math.erfc(-observed / spread), "sign-flip (normal approximation)")
    hits = _sampled_hits(nonzero, threshold, random.Random(seed), resamples)
    return PairedTest((hits + 1) / (resamples + 1), "sign-flip")


def _sampled_hits(
    values: Sequence[float], threshold: float, rng: random.Random, resamples: int
) -> int:
    """How many of ``resamples`` random sign assignments reach ``sum <= threshold``.

    A random assignment is one random byte per group of 8 values; each group's 256
    possible sums of its flipped values are tabled once, so a resample costs m / 8 lookups.
    """
    groups = [
        list(values[i : i + 8]) + [0.0] * (8 - len(values[i : i + 8]))
        for i in range(0, len(values), 8)
    ]
    tables = [[math.fsum(compress(group, _BITS[byte])) for byte in range(256)] for group in groups]
    total = math.fsum(values)
    width = len(tables)
    draws = rng.randbytes(width * resamples)
    hits = 0
    for start in range(0, width * resamples, width):
        flipped = sum(map(list.__getitem__, tables, draws[start : start + width]))
        if total - 2.0 * flipped <= threshold:
            hits += 1
    return hits


_BITS = [[byte >> i & 1 for i in range(8)] for byte in range(256)]


def _exact_share(values: Sequence[float], threshold: float) -> float:
    """The share of all ``2**m`` sign assignments whose sum is at most ``threshold``.

    Walks the assignments in Gray-code order: each step flips one sign and updates the sum
    in constant time.
    """
    signs = [1.0] * len(values)
    total = math.fsum(values)
    hits = 1 if total <= threshold else 0
    for step in range(1, 2 ** len(values)):
        i = (step & -step).bit_length() - 1
        total -= 2.0 * signs[i] * values[i]
        signs[i] = -signs[i]
        if total <= threshold:
            hits += 1
    return hits / 2 ** len(values)


def paired_test(baseline: Sequence[float], head: Sequence[float], binary: bool) -> PairedTest:
    """McNemar (exact, one-sided) for 0/1 values, else the one-sided sign-flip test."""
    if binary:
        worse = sum(1 for b, h in zip(baseline, head, strict=True) if b > h)
        better = sum(1 for b, h in zip(baseline, head, strict=True) if h > b)
        return PairedTest(mcnemar_exact(worse, better), "McNemar exact")
    return sign_flip_p_value([h - b for b, h in zip(baseline, head, strict=True)])


JOINT_MAX_QUESTIONS = 1000
JOINT_EXACT_MAX = 12


def max_t_adjusted(
    rows: Sequence[Sequence[float]],
    *,
    seed: int = PERMUTATION_SEED,
    resamples: int = PERMUTATION_RESAMPLES,
) -> list[float]:
    """One-sided p-values of a drop in each row's mean, adjusted for testing every row.

    ``rows`` holds one metric's paired deltas per row, aligned by question (0.0 where a
    metric does not apply). Westfall and Young's single-step max-T: each random assignment
    flips the sign of a question's deltas in every metric at once, so the metrics'
    correlation (recall@5 and ndcg@3 move together) is kept; each metric's statistic is its
    sum standardized by ``sqrt(sum(d**2))``; a metric's adjusted p-value is the share of
    assignments in which the most extreme standardized drop of any metric reaches it. The
    chance that noise fails any metric is then at most alpha, with more power than Holm
    when the metrics are correlated. Up to ``JOINT_EXACT_MAX`` questions every assignment
    is counted (exact); above, ``resamples`` are drawn from a fixed seed, per question in
    the order given: the caller fixes it (by question id), so file order does not matter.
    """
    if len({len(row) for row in rows}) > 1:
        raise ValueError("every row needs one delta per question")
    scales = [math.sqrt(math.fsum(d * d for d in row)) for row in rows]
    observed = [
        math.fsum(row) / scale if scale > 0.0 else math.inf
        for row, scale in zip(rows, scales, strict=True)
    ]
    live = [i for i, scale in enumerate(scales) if scale > 0.0]
    if not live:
        return [1.0] * len(rows)
    standardized = [[d / scales[i] for d in rows[i]] for i in live]
    exact = len(rows[0]) <= JOINT_EXACT_MAX
    if exact:
        extremes = _all_extremes(standardized)
    else:
        extremes = _sampled_extremes(standardized, random.Random(seed), resamples)
    extremes.sort()
    adjusted = []
    for value in observed:
        if value == math.inf:
            adjusted.append(1.0)
            continue
        hits = bisect.bisect_right(extremes, value + 1e-9 * max(1.0, abs(value)))
        adjusted.append(hits / len(extremes) if exact else (hits + 1) / (resamples + 1))
    return adjusted


def _all_extremes(rows: Sequence[Sequence[float]]) -> list[float]:
    """The smallest row sum under each of the ``2**m`` joint sign assignments (Gray code)."""
    m = len(rows[0])
    signs = [1.0] * m
    totals = [math.fsum(row) for row in rows]
    extremes = [min(totals)]
    for step in range(1, 2**m):
        i = (step & -step).bit_length() - 1
        for j, row in enumerate(rows):
            totals[j] -= 2.0 * signs[i] * row[i]
        signs[i] = -signs[i]
        extremes.append(min(totals))
    return extremes


def _sampled_extremes(
    rows: Sequence[Sequence[float]], rng: random.Random, resamples: int
) -> list[float]:
    """The smallest row sum under each of ``resamples`` random joint sign assignments: one
    random byte per 8 questions, shared by every row."""
    width = (len(rows[0]) + 7) // 8
    tables = [_byte_tables(row) for row in rows]
    totals = [math.fsum(row) for row in rows]
    draws = rng.randbytes(width * resamples)
    extremes = []
    for start in range(0, width * resamples, width):
        chunk = draws[start : start + width]
        extremes.append(
            min(
                total - 2.0 * sum(map(list.__getitem__, table, chunk))
                for total, table in zip(totals, tables, strict=True)
            )
        )
    return extremes


def _byte_tables(values: Sequence[float]) -> list[list[float]]:
    """Per group of 8 values: the sum of the flipped ones for each of the 256 bytes that say
    which to flip."""
    tables = []
    for i in range(0, len(values), 8):
        group = list(values[i : i + 8])
        group += [0.0] * (8 - len(group))
        tables.append([math.fsum(compress(group, _BITS[byte])) for byte in range(256)])
    return tables


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given.

    Comparing each adjusted p-value with alpha rejects exactly what Holm's procedure
    rejects: the chance that any of the hypotheses that are true is rejected stays at most
    alpha, whatever the dependence between the tests (correlated metrics included).
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def paired_delta_interval(deltas: Sequence[float], level: float = 0.95) -> Interval:
    """The ``level`` interval of the mean paired delta (bootstrap over questions, fixed seed)."""
    return Bootstrap(len(deltas)).interval(deltas, level)
