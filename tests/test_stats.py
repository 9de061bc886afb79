"""Paired tests (McNemar, sign-flip randomization; one-sided, for a drop) against scipy as
the reference, and the adjustments for testing several metrics at once."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import stats as scipy_stats

from ragguard.metrics.stats import (
    EXACT_MAX_NONZERO,
    holm_adjusted,
    max_t_adjusted,
    mcnemar_exact,
    paired_delta_interval,
    paired_test,
    sign_flip_p_value,
)


def _scipy_sign_flip(deltas: list[float], resamples: int = 10**6) -> float:
    """scipy's paired permutation test of a drop in the mean (the signs are permuted)."""
    return scipy_stats.permutation_test(
        (np.array(deltas),),
        lambda x, axis: np.mean(x, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        alternative="less",
        rng=0,
    ).pvalue


@pytest.mark.parametrize(
    ("worse", "better", "expected"),
    [(0, 0, 1.0), (9, 0, 1 / 2**9), (3, 3, 42 / 64), (7, 3, 176 / 1024), (1, 0, 0.5), (0, 4, 1.0)],
)
def test_mcnemar_exact_known_values(worse: int, better: int, expected: float) -> None:
    assert mcnemar_exact(worse, better) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("worse", "better"), [(9, 0), (12, 3), (5, 9), (30, 18), (100, 70)])
def test_mcnemar_exact_matches_scipy_one_sided_binomial_test(worse: int, better: int) -> None:
    for w, b in ((worse, better), (better, worse)):
        reference = scipy_stats.binomtest(w, w + b, 0.5, alternative="greater").pvalue
        assert mcnemar_exact(w, b) == pytest.approx(reference, rel=1e-9)


def test_one_opposite_flip_no_longer_hides_a_drop_of_six() -> None:
    # two-sided, 6 vs 0 gave 0.031 and 6 vs 1 gave 0.125; one-sided they are 1/64 and 8/128
    assert mcnemar_exact(6, 0) == pytest.approx(1 / 64)
    assert mcnemar_exact(6, 1) == pytest.approx(8 / 128)
    assert mcnemar_exact(7, 1) == pytest.approx(9 / 256)


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
    # four equal negative deltas: only all-minus reaches a sum of -2; a rise is no drop
    assert sign_flip_p_value([-0.5, -0.5, -0.5, -0.5]).p_value == pytest.approx(1 / 16)
    assert sign_flip_p_value([0.5, 0.5, 0.5, 0.5]).p_value == 1.0
    assert sign_flip_p_value([0.0, 0.0]).p_value == 1.0


def test_sampled_sign_flip_is_close_to_scipy_and_reproducible() -> None:
    rng = random.Random(7)
    deltas = [rng.gauss(-0.04, 0.2) for _ in range(80)]
    first = sign_flip_p_value(deltas)
    assert first.method == "sign-flip"
    assert first == sign_flip_p_value(list(deltas))
    assert first.p_value == pytest.approx(_scipy_sign_flip(deltas, 50_000), abs=0.015)


def test_large_samples_use_the_normal_approximation_of_the_same_test() -> None:
    rng = random.Random(3)
    deltas = [rng.gauss(-0.01, 0.3) for _ in range(1100)]
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
    from ragguard.metrics.stats import mcnemar_exact

    expected = scipy_stats.binomtest(700, 1300, 0.5, alternative="greater").pvalue
    assert mcnemar_exact(700, 600) == pytest.approx(expected, rel=1e-9)
    assert mcnemar_exact(5000, 5000) == pytest.approx(0.5, abs=0.01)


def test_sampled_sign_flip_does_not_depend_on_the_order_of_the_deltas() -> None:
    # the sampled p-value used to assign signs by position: a reordered file moved it
    rng = random.Random(5)
    deltas = [rng.choice([-0.3, -0.1, 0.0, 0.1, 0.2]) for _ in range(60)]
    first = sign_flip_p_value(deltas)
    assert first.method == "sign-flip"
    for seed in range(5):
        shuffled = list(deltas)
        random.Random(seed).shuffle(shuffled)
        assert sign_flip_p_value(shuffled) == first


def test_holm_adjusted_known_values() -> None:
    assert holm_adjusted([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm_adjusted([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm_adjusted([]) == []


def test_max_t_of_one_row_is_its_sign_flip_p_value() -> None:
    rng = random.Random(9)
    row = [rng.gauss(-0.05, 0.2) for _ in range(50)]
    (adjusted,) = max_t_adjusted([row])
    assert adjusted == pytest.approx(_scipy_sign_flip(row, 50_000), abs=0.015)


def test_max_t_duplicated_rows_cost_nothing_and_more_rows_never_lower_a_p_value() -> None:
    # perfectly correlated metrics are one test; an extra, independent metric adds a test
    rng = random.Random(4)
    row = [rng.gauss(-0.06, 0.2) for _ in range(40)]
    other = [rng.gauss(0.0, 0.2) for _ in range(40)]
    (alone,) = max_t_adjusted([row])
    assert max_t_adjusted([row, list(row), list(row)]) == [alone] * 3
    with_other = max_t_adjusted([row, other])
    assert with_other[0] >= alone
    assert max_t_adjusted([[0.0] * 40, row])[0] == 1.0
    with pytest.raises(ValueError):
        max_t_adjusted([[0.0] * 5, row])


def test_max_t_is_exact_for_few_questions() -> None:
    # 3 questions, two identical rows: the drop -0.1 x 3 is the most extreme of 8 assignments
    assert max_t_adjusted([[-0.1, -0.1, -0.1]] * 2) == [1 / 8, 1 / 8]
    assert max_t_adjusted([[-0.1, -0.1, 0.2]]) == [5 / 8]  # sums <= 0: 5 of 8


def test_max_t_holds_the_family_wise_false_alarm_rate_on_noise() -> None:
    # 8 metrics, 4 of them copies of two others (correlated), on pure noise: the share of
    # noise worlds where any adjusted p-value is below 0.05 stays near 0.05 (never above
    # 0.05 + 3 binomial standard errors), while each metric alone would pass 0.05 more often
    worlds, alarms, alarms_unadjusted = 200, 0, 0
    for seed in range(worlds):
        rng = random.Random(seed)
        base = [[rng.gauss(0.0, 0.2) for _ in range(30)] for _ in range(6)]
        rows = [*base, base[0], base[1]]
        adjusted = max_t_adjusted(rows, resamples=999)
        alarms += min(adjusted) < 0.05
        alarms_unadjusted += min(sign_flip_p_value(r, resamples=999).p_value for r in rows) < 0.05
    assert alarms / worlds <= 0.05 + 3 * (0.05 * 0.95 / worlds) ** 0.5
    assert alarms_unadjusted > 2 * alarms
