"""The minimum detectable drop against simulations of the gate's own tests (fixed seeds)."""

from __future__ import annotations

import json
import math
import random

import pytest
from tests.compare_cases import head_results, results, with_sentences

from ragguard.compare import compare
from ragguard.compare.detectable import (
    Noise,
    minimum_detectable_drop,
    noise_from_pairs,
    noise_from_runs,
    noise_from_values,
    power_of_drop,
    questions_needed,
)
from ragguard.compare.serialise import comparison_json
from ragguard.config.sections.gate import GateRules
from ragguard.metrics.stats import mcnemar_exact, sign_flip_p_value

ALPHA = 0.05


def _simulated_mcnemar_power(n: int, noise: float, drop: float, runs: int, seed: int) -> float:
    """Share of simulated comparisons the exact one-sided McNemar test fails: each question
    goes 1 -> 0 with chance noise/2 + drop, 0 -> 1 with chance noise/2."""
    rng = random.Random(seed)
    hits = 0
    for _ in range(runs):
        worse = better = 0
        for _ in range(n):
            u = rng.random()
            if u < noise / 2 + drop:
                worse += 1
            elif u < noise + drop:
                better += 1
        hits += mcnemar_exact(worse, better) < ALPHA
    return hits / runs


def _simulated_sign_flip_power(n: int, sigma: float, drop: float, runs: int, seed: int) -> float:
    rng = random.Random(seed)
    hits = 0
    for _ in range(runs):
        deltas = [rng.gauss(-drop, sigma) for _ in range(n)]
        hits += sign_flip_p_value(deltas, resamples=400).p_value < ALPHA
    return hits / runs


@pytest.mark.parametrize(
    ("n", "noise"), [(40, 0.10), (100, 0.10), (200, 0.04), (100, 0.30), (400, 0.2)]
)
def test_mcnemar_power_at_the_reported_drop_is_about_80_percent(n: int, noise: float) -> None:
    drop = minimum_detectable_drop(n, ALPHA, Noise(True, noise, "test"))
    assert drop is not None
    simulated = _simulated_mcnemar_power(n, noise, drop, runs=2000, seed=n)
    assert 0.78 <= simulated <= 0.90, (drop, simulated)  # measured 0.80-0.84


@pytest.mark.parametrize(("n", "sigma"), [(40, 0.3), (100, 0.2), (200, 0.35)])
def test_sign_flip_power_at_the_reported_drop_is_about_80_percent(n: int, sigma: float) -> None:
    drop = minimum_detectable_drop(n, ALPHA, Noise(False, sigma, "test"))
    assert drop is not None
    simulated = _simulated_sign_flip_power(n, sigma, drop, runs=600, seed=n)
    assert 0.75 <= simulated <= 0.90, (drop, simulated)  # measured 0.79-0.86


def test_more_questions_detect_smaller_drops() -> None:
    noise = Noise(False, 0.3, "test")
    drops = [minimum_detectable_drop(n, ALPHA, noise) for n in (20, 40, 100, 400)]
    assert all(d is not None for d in drops)
    assert drops == sorted(drops, reverse=True)  # type: ignore[type-var]
    # the familiar 1/sqrt(n) law: ten times the questions, about 1/sqrt(10) of the drop
    assert drops[3] == pytest.approx(drops[1] / 10**0.5, rel=0.3)  # type: ignore[operator]


def test_questions_needed_reaches_the_drop_and_one_fewer_does_not() -> None:
    noise = Noise(True, 0.12, "test")
    needed = questions_needed(0.05, ALPHA, noise)
    assert needed is not None
    assert power_of_drop(0.05, needed, ALPHA, noise) >= 0.8
    assert power_of_drop(0.05, needed - 1, ALPHA, noise) < 0.8
    assert minimum_detectable_drop(needed, ALPHA, noise) <= 0.05  # type: ignore[operator]


def test_no_spread_at_all_is_sized_as_questions_losing_the_whole_drop() -> None:
    flat = minimum_detectable_drop(8, ALPHA, Noise(False, 0.0, "test"))
    assert flat == minimum_detectable_drop(8, ALPHA, Noise(True, 0.0, "test"))
    assert flat is not None and flat > 0.5  # five or more of eight questions must fail


def test_no_detectable_drop_within_the_range_is_none() -> None:
    assert minimum_detectable_drop(3, ALPHA, Noise(False, 0.5, "test")) is None


def test_noise_from_pairs_counts_the_unexplained_flips() -> None:
    before = [1.0] * 10 + [0.0] * 10
    after = [0.0] * 4 + [1.0] * 6 + [1.0] * 1 + [0.0] * 9
    noise = noise_from_pairs(before, after, binary=True)
    assert noise.spread == pytest.approx(2 * 1 / 20)  # 4 worse, 1 better: the 1 is noise
    continuous = noise_from_pairs([0.5, 0.5, 0.5], [0.4, 0.5, 0.9], binary=False)
    assert continuous.spread == pytest.approx(0.264575, rel=1e-5)


def test_noise_from_one_run_assumes_independent_runs() -> None:
    assert noise_from_values([1.0, 1.0, 0.0, 0.0], binary=True).spread == pytest.approx(0.5)
    assert "assumed" in noise_from_values([0.2, 0.4], binary=False).source


def test_a_comparison_carries_the_power_of_each_gated_metric() -> None:
    comparison = compare(results(), head_results({"q2": 0}), GateRules())
    names = [found.metric for found in comparison.power]
    assert names == [m.name for m in comparison.metrics if m.p_value is not None]
    assert all(found.alpha == 0.05 / len(names) for found in comparison.power)
    assert all(found.too_small for found in comparison.power)  # eight questions
    off = compare(results(), head_results({"q2": 0}), GateRules(multiple_testing="off"))
    assert all(found.alpha == 0.05 for found in off.power)


def test_the_comparison_json_carries_the_detectable_drops() -> None:
    comparison = compare(results(), head_results({"q5": 3}), GateRules())
    power = json.loads(comparison_json(comparison))["power"]
    assert list(power) == [found.metric for found in comparison.power]
    first = power[comparison.power[0].metric]
    assert first["detectable_drop"] == comparison.power[0].drop
    assert first["too_small"] is True and first["questions_needed"] > 8


def test_any_significant_drop_sets_no_size_a_test_set_could_be_too_small_for() -> None:
    """hallucination_free's built-in max_drop 0: its detectable drop is reported, but the
    comment never says the test set is too small to see "a 0 drop"."""
    baseline = with_sentences(results(), {})
    head = with_sentences(head_results({"q2": 0}), {})
    by_name = {found.metric: found for found in compare(baseline, head, GateRules()).power}
    assert by_name["hallucination_free"].max_drop == 0.0
    assert by_name["hallucination_free"].drop is not None
    assert not by_name["hallucination_free"].too_small
    assert by_name["faithfulness"].too_small  # max_drop 0.05 on eight questions


def test_noise_from_repeats_is_the_spread_of_the_deltas_two_such_runs_would_give() -> None:
    assert noise_from_runs([[1, 0, 1], [1, 1, 1], [0, 0, 1]]).spread == pytest.approx(
        math.sqrt((2 / 9 + 0 + 2 / 9) / 3)
    )
    rng = random.Random(17)
    rates = [rng.uniform(0.0, 0.5) for _ in range(4000)]

    def side() -> list[list[float]]:
        return [[float(rng.random() < p) for _ in range(3)] for p in rates]

    baseline, head = side(), side()
    deltas = [sum(h) / 3 - sum(b) / 3 for b, h in zip(baseline, head, strict=True)]
    center = sum(deltas) / len(deltas)
    observed = math.sqrt(sum((d - center) ** 2 for d in deltas) / (len(deltas) - 1))
    assert noise_from_runs(head).spread == pytest.approx(observed, rel=0.05)
