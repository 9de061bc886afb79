"""Statistics over per-question values: means and their 95% intervals.

The interval of a mean is a percentile bootstrap with a fixed seed, so the same values
always give the same interval. Above ``BOOTSTRAP_MAX_N`` questions the normal
approximation is used instead: at that size the bootstrap distribution of a mean is normal
to well within its own resampling noise, and resampling would cost seconds per metric.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

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
