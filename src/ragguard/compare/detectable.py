"""How small a drop can a test set see? The minimum detectable drop of each gated metric.

For a metric tested one-sided at ``alpha``, the minimum detectable drop (MDD) is the
smallest true drop in its mean that the gate's test finds significant with probability
``POWER`` (80%), given n paired questions and the run-to-run noise of the values:

- 0/1 metrics (hit@k, exact match, ...), tested by the exact McNemar test: the noise is the
  discordance ``q``, the share of questions that flip between two runs with no real change
  (half each way). A true drop ``d`` adds ``d`` to the share that goes 1 -> 0. Power is
  Connor's normal approximation for McNemar's test with a continuity correction (the exact
  test is conservative; without it the approximation promised 80% where the exact test
  reached about 75%): ``Phi((n d - 1 - z_alpha sqrt(n (q + d))) / sqrt(n (q + d - d**2)))``.
- Continuous metrics, tested by the paired sign-flip test: the noise is ``sigma``, the
  standard deviation of the paired per-question deltas. The sign-flip test of the sum is
  the test of ``sum(D) / sqrt(sum(D**2))`` against ``-z_alpha``; with deltas of mean ``-d``
  its power is ``Phi((sqrt(n) d - z_alpha sqrt(sigma**2 + d**2)) / sigma)``. With no spread
  at all (sigma 0: nothing moved) a drop would not be spread evenly either: it is sized as
  the 0/1 case with no discordance, a drop carried by questions that lose all of it.

Both are checked against simulations of the real tests in tests/test_power.py. The noise is
estimated from a comparison (the observed discordant pairs, the spread of the deltas) or,
from one results file alone, by assuming two runs are independent draws of each question's
value (``q = 2 p (1 - p)``, ``sigma**2 = 2 var``): no pairing benefit, so an upper bound on
the MDD for systems whose per-question values are stable between runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

POWER = 0.80
_NORMAL = NormalDist()
_MAX_QUESTIONS = 10_000_000


@dataclass(frozen=True, slots=True)
class Noise:
    """Run-to-run noise of one metric: ``binary`` -> ``spread`` is the discordance q,
    else the standard deviation of the paired deltas. ``source`` says how it was found."""

    binary: bool
    spread: float
    source: str


@dataclass(frozen=True, slots=True)
class Detectable:
    """The smallest drop one metric's test sees with ``power`` at ``alpha`` given ``n``."""

    metric: str
    n: int
    alpha: float
    power: float
    drop: float | None  # None: no drop within the metric's range is detectable
    noise: Noise
    max_drop: float  # the gate's rule, to say whether the test set can see it
    needed: int | None  # questions at which max_drop becomes detectable (None: never)

    @property
    def too_small(self) -> bool:
        """The rule asks for a drop smaller than the test set can detect. ``max_drop`` 0
        (any significant drop fails, ``hallucination_free``'s default) sets no size to
        detect: no test set is "too small" for it (``ragguard power`` still shows its drop)."""
        if self.max_drop <= 0.0:
            return False
        return self.drop is None or self.max_drop < self.drop - 1e-9


def detectable(
    metric: str, n: int, alpha: float, noise: Noise, max_drop: float, limit: float = 1.0
) -> Detectable:
    """One metric's minimum detectable drop, and the questions its ``max_drop`` needs."""
    drop = minimum_detectable_drop(n, alpha, noise, limit=limit)
    needed = None if max_drop <= 0.0 else questions_needed(max_drop, alpha, noise)
    return Detectable(metric, n, alpha, POWER, drop, noise, max_drop, needed)


def power_of_drop(drop: float, n: int, alpha: float, noise: Noise) -> float:
    """The chance the one-sided test at ``alpha`` finds a true ``drop`` of the mean."""
    if n <= 0 or drop <= 0.0:
        return 0.0
    z_alpha = _NORMAL.inv_cdf(1.0 - alpha)
    if noise.binary or noise.spread <= 0.0:
        discordant = noise.spread + drop
        spread = math.sqrt(n * max(discordant - drop * drop, 1e-300))
        return _NORMAL.cdf((n * drop - 1.0 - z_alpha * math.sqrt(n * discordant)) / spread)
    sigma = noise.spread
    shift = math.sqrt(n) * drop - z_alpha * math.sqrt(sigma * sigma + drop * drop)
    return _NORMAL.cdf(shift / sigma)


def minimum_detectable_drop(
    n: int, alpha: float, noise: Noise, power: float = POWER, limit: float = 1.0
) -> float | None:
    """The smallest drop (up to ``limit``, the most the mean can fall) detected with
    ``power``; None when even ``limit`` is not. Bisection: power rises with the drop."""
    top = limit - noise.spread / 2.0 if noise.binary else limit
    if top <= 0.0 or power_of_drop(top, n, alpha, noise) < power:
        return None
    low, high = 0.0, top
    for _ in range(60):
        middle = (low + high) / 2.0
        if power_of_drop(middle, n, alpha, noise) >= power:
            high = middle
        else:
            low = middle
    return high


def questions_needed(drop: float, alpha: float, noise: Noise, power: float = POWER) -> int | None:
    """The fewest questions at which ``drop`` is detected with ``power`` (same noise);
    None when no number of questions up to ten million would do."""
    if power_of_drop(drop, _MAX_QUESTIONS, alpha, noise) < power:
        return None
    low, high = 0, _MAX_QUESTIONS
    while high - low > 1:
        middle = (low + high) // 2
        if power_of_drop(drop, middle, alpha, noise) >= power:
            high = middle
        else:
            low = middle
    return high


def noise_from_pairs(before: Sequence[float], after: Sequence[float], binary: bool) -> Noise:
    """The noise seen in a comparison: for 0/1 values twice the smaller discordant count
    (the flips a real change does not explain) over n; else the deltas' standard deviation."""
    n = len(before)
    if binary:
        worse = sum(1 for b, h in zip(before, after, strict=True) if b > h)
        better = sum(1 for b, h in zip(before, after, strict=True) if h > b)
        return Noise(True, 2.0 * min(worse, better) / n if n else 0.0, "observed discordance")
    deltas = [h - b for b, h in zip(before, after, strict=True)]
    return Noise(False, _std(deltas), "spread of the paired deltas")


def noise_from_values(values: Sequence[float], binary: bool) -> Noise:
    """The noise assumed from one run: two runs as independent draws of each value."""
    if binary:
        share = math.fsum(values) / len(values) if values else 0.0
        return Noise(True, 2.0 * share * (1.0 - share), "assumed: runs independent (no baseline)")
    return Noise(False, math.sqrt(2.0) * _std(values), "assumed: runs independent (no baseline)")


def noise_from_runs(runs: Sequence[Sequence[float]]) -> Noise:
    """The noise measured from repeats (``system.repeat``), one run with no baseline: each
    question's values over its runs. Two sides asked N times each differ per question with
    variance ``2 s**2 / N`` (``s**2`` its variance between runs) when nothing changed; the
    spread is the square root of that averaged over the questions asked more than once."""
    variances = [2.0 * _std(values) ** 2 / len(values) for values in runs if len(values) > 1]
    spread = math.sqrt(math.fsum(variances) / len(variances)) if variances else 0.0
    return Noise(False, spread, "measured from the repeats: spread between runs (no baseline)")


def _std(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    center = math.fsum(values) / len(values)
    return math.sqrt(math.fsum((v - center) ** 2 for v in values) / (len(values) - 1))
