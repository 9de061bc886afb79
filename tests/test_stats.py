"""Paired tests (McNemar, sign-flip randomization) against scipy as the reference."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import stats as scipy_stats

from ragguard.stats import (
    EXACT_MAX_NONZERO,
    mcnemar_exact,
    paired_delta_interval,
    paired_test,
    sign_flip_p_value,
)


def _scipy_sign_flip(deltas: list[float], resamples: int = 10**6) -> float:
    """scipy's paired permutation test of the mean (one sample: the signs are permuted)."""
    return scipy_stats.permutation_test(
        (np.array(deltas),),
        lambda x, axis: np.mean(x, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        alternative="two-sided",
        rng=0,
    ).pvalue


@pytest.mark.parametrize(
    ("worse", "better", "expected"),
    [(0, 0, 1.0), (9, 0, 2 / 2**9), (3, 3, 1.0), (7, 3, 0.34375), (1, 0, 1.0)],
)
def test_mcnemar_exact_known_values(worse: int, better: int, expected: float) -> None:
    assert mcnemar_exact(worse, better) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("worse", "better"), [(9, 0), (12, 3), (5, 9), (30, 18), (100, 70)])
def test_mcnemar_exact_matches_scipy_binomial_test(worse: int, better: int) -> None:
    reference = scipy_stats.binomtest(worse, worse + better, 0.5).pvalue
    assert mcnemar_exact(worse, better) == pytest.approx(reference, rel=1e-9)
    assert mcnemar_exact(better, worse) == pytest.approx(reference, rel=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_exact_sign_flip_matches_scipy_enumeration(seed: int) -> None:
    rng = random.Random(seed)
    deltas = [round(rng.uniform(-1, 1), 3) for _ in range(rng.randint(3, 12))]
    deltas += [0.0, 0.0]  # zeros change neither the statistic nor the p-value
    result = sign_flip_p_value(deltas)
    assert result.method == "exact sign-flip"
    # with at most 2**14 assignments scipy enumerates them all (its p-value is exact too)
    assert result.p_value == pytest.approx(_scipy_sign_flip(deltas), abs=1e-12)


def test_exact_sign_flip_known_value() -> None:
    # four equal positive deltas: only all-plus and all-minus reach |sum| = 4
    assert sign_flip_p_value([0.5, 0.5, 0.5, 0.5]).p_value == pytest.approx(2 / 16)
    assert sign_flip_p_value([0.0, 0.0]).p_value == 1.0


def test_sampled_sign_flip_is_close_to_scipy_and_reproducible() -> None:
    rng = random.Random(7)
    deltas = [rng.gauss(0.04, 0.2) for _ in range(80)]
    first = sign_flip_p_value(deltas)
    assert first.method == "sign-flip"
    assert first == sign_flip_p_value(list(deltas))
    assert first.p_value == pytest.approx(_scipy_sign_flip(deltas, 50_000), abs=0.015)


def test_large_samples_use_the_normal_approximation_of_the_same_test() -> None:
    rng = random.Random(3)
    deltas = [rng.gauss(0.01, 0.3) for _ in range(1100)]
    result = sign_flip_p_value(deltas)
    assert result.method == "sign-flip (normal approximation)"
    assert result.p_value == pytest.approx(_scipy_sign_flip(deltas, 5_000), abs=0.03)


def test_exact_threshold_is_where_the_docs_say() -> None:
    assert sign_flip_p_value([0.1] * EXACT_MAX_NONZERO).method == "exact sign-flip"
    assert sign_flip_p_value([0.1] * (EXACT_MAX_NONZERO + 1)).method == "sign-flip"


def test_paired_test_picks_mcnemar_for_binary_values() -> None:
    baseline = [1.0] * 10 + [0.0] * 2
    head = [0.0] * 9 + [1.0] * 3
    result = paired_test(baseline, head, binary=True)
    assert result.method == "McNemar exact"
    assert result.p_value == pytest.approx(mcnemar_exact(9, 2))


def test_paired_delta_interval_brackets_the_mean_and_is_fixed() -> None:
    rng = random.Random(11)
    deltas = [rng.gauss(-0.1, 0.2) for _ in range(50)]
    interval = paired_delta_interval(deltas)
    centre = sum(deltas) / len(deltas)
    assert interval.low < centre < interval.high
    assert interval == paired_delta_interval(list(deltas))
    assert paired_delta_interval([0.0] * 5).low == 0.0


def test_mcnemar_exact_handles_more_than_1023_discordant_pairs() -> None:
    # 2.0**n overflows a float above n = 1023 (a 100,000-question suite gets there)
    from ragguard.stats import mcnemar_exact

    expected = scipy_stats.binomtest(600, 1300, 0.5).pvalue
    assert mcnemar_exact(600, 700) == pytest.approx(expected, rel=1e-9)
    assert mcnemar_exact(5000, 5000) == 1.0
