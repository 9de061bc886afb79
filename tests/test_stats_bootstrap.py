"""The 95% interval of a mean (stats.Bootstrap): deterministic, sensible at the edges."""

from __future__ import annotations

import math
import random

import pytest

from ragguard.metrics.stats import BOOTSTRAP_MAX_N, Z_95, Bootstrap, mean


def values_of(n: int, seed: int = 1) -> list[float]:
    """Per-question values shaped like a retrieval metric: many 0s and 1s, some between."""
    rng = random.Random(seed)
    return [rng.choice((0.0, 1.0, 1.0, 0.5, 1 / 3)) for _ in range(n)]


def test_same_values_give_the_same_interval_every_time() -> None:
    values = values_of(50)
    first = Bootstrap(50).interval(values)
    assert Bootstrap(50).interval(values) == first  # a new instance: same fixed seed
    assert Bootstrap(50).interval(list(values)) == first


def test_interval_contains_the_mean_and_stays_within_the_values() -> None:
    for n in (2, 3, 10, 100, BOOTSTRAP_MAX_N):
        values = [0.0, *values_of(n - 2, seed=n), 1.0]
        interval = Bootstrap(n).interval(values)
        assert min(values) <= interval.low <= mean(values) <= interval.high <= max(values)
        assert interval.low < interval.high


def test_one_shared_bootstrap_serves_every_metric_of_a_run() -> None:
    bootstrap = Bootstrap(40)
    a, b = values_of(40, seed=2), values_of(40, seed=3)
    assert bootstrap.interval(a) == Bootstrap(40).interval(a)
    assert bootstrap.interval(b) == Bootstrap(40).interval(b)


def test_a_different_seed_gives_a_slightly_different_interval() -> None:
    """The seed is what makes it deterministic: it is really resampling."""
    values = values_of(60)
    fixed, other = Bootstrap(60).interval(values), Bootstrap(60, seed=7).interval(values)
    assert fixed != other
    assert fixed.low == pytest.approx(other.low, abs=0.05)
    assert fixed.high == pytest.approx(other.high, abs=0.05)


def test_one_value_is_its_own_interval() -> None:
    interval = Bootstrap(1).interval([0.25])
    assert (interval.low, interval.high) == (0.25, 0.25)


def test_no_values_give_a_zero_interval() -> None:
    interval = Bootstrap(0).interval([])
    assert (interval.low, interval.high) == (0.0, 0.0)


@pytest.mark.parametrize("n", [2, 30, BOOTSTRAP_MAX_N + 10])
def test_all_equal_values_have_no_width(n: int) -> None:
    interval = Bootstrap(n).interval([0.75] * n)
    assert (interval.low, interval.high) == (0.75, 0.75)


def test_values_of_another_length_are_refused() -> None:
    with pytest.raises(ValueError, match="n"):
        Bootstrap(3).interval([1.0, 0.0])


def test_above_the_bootstrap_limit_the_normal_approximation_is_used() -> None:
    n = BOOTSTRAP_MAX_N + 1
    values = values_of(n)
    center = mean(values)
    sd = math.sqrt(sum((v - center) ** 2 for v in values) / (n - 1))
    interval = Bootstrap(n).interval(values)
    assert interval.low == pytest.approx(center - Z_95 * sd / math.sqrt(n), abs=1e-12)
    assert interval.high == pytest.approx(center + Z_95 * sd / math.sqrt(n), abs=1e-12)


def test_normal_approximation_matches_the_bootstrap_at_the_limit() -> None:
    """The switch at BOOTSTRAP_MAX_N does not move the interval by more than resampling noise."""
    values = values_of(BOOTSTRAP_MAX_N)
    bootstrap = Bootstrap(BOOTSTRAP_MAX_N).interval(values)
    normal = Bootstrap(BOOTSTRAP_MAX_N + 1).interval([*values, mean(values)])
    width = bootstrap.high - bootstrap.low
    assert normal.low == pytest.approx(bootstrap.low, abs=0.1 * width)
    assert normal.high == pytest.approx(bootstrap.high, abs=0.1 * width)


def test_normal_interval_is_clamped_to_the_range_of_the_values() -> None:
    # Nearly all 1.0: mean + 1.96 se would pass 1.0, which no mean of these values can reach.
    n = BOOTSTRAP_MAX_N + 100
    values = [1.0] * (n - 1) + [0.0]
    interval = Bootstrap(n).interval(values)
    assert interval.high == 1.0
    assert interval.low < mean(values) < interval.high
