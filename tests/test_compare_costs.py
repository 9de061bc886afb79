"""Latency, tokens and cost per answer: lower is better, budgets in the gate, and the
p-value for latency from the paired test on per-question latencies."""

from __future__ import annotations

from dataclasses import replace

import pytest

from compare_cases import head_results, results
from ragguard.compare import FAIL, PASS, compare
from ragguard.compare.costs import budget_verdict, cost_text
from ragguard.config.sections.gate import GateRules, MetricRule, gate_rules_from_mapping
from ragguard.metrics.names import COST_METRICS, higher_is_better
from ragguard.metrics.stats import paired_test
from ragguard.results.model import Results
from ragguard.results.usage import Usage


def with_usage(base: Results, tokens: float, cost: float, step: float = 0.0) -> Results:
    """Every question reports ``tokens`` and ``cost`` (plus ``step`` times its index)."""
    questions = tuple(
        replace(q, usage=Usage(total_tokens=tokens + step * i, cost=cost + step * i / 1000))
        for i, q in enumerate(base.questions)
    )
    return replace(base, questions=questions)


def budgets(**metrics: dict[str, object]) -> GateRules:
    return gate_rules_from_mapping({"metrics": metrics}, "ragguard.yml")


def costs_of(comparison):  # type: ignore[no-untyped-def]
    return {m.name: m for m in comparison.costs}


def test_the_direction_of_every_metric() -> None:
    assert all(not higher_is_better(name) for name in COST_METRICS)
    assert higher_is_better("faithfulness") and higher_is_better("hit_rate@3")


def test_latency_is_compared_in_seconds_with_the_paired_test_on_per_question_latencies() -> None:
    before, after = results(latency=100.0), head_results(latency=400.0)
    latency = costs_of(compare(before, after, GateRules()))

    p50 = latency["latency_p50"]
    assert p50.baseline == pytest.approx(0.135) and p50.head == pytest.approx(0.435)
    assert p50.delta == pytest.approx(0.3)  # positive: slower, which is worse
    expected = paired_test(  # one-sided for a rise: the sides of the drop test swapped
        [q.latency_ms / 1000 for q in after.questions],
        [q.latency_ms / 1000 for q in before.questions],
        binary=False,
    )
    assert (p50.p_value, p50.test) == (expected.p_value, expected.method)
    assert latency["latency_p95"].p_value == expected.p_value
    assert p50.verdict == PASS  # no budget: reported, never gated
    assert "tokens" not in latency and "cost" not in latency  # no usage reported


def test_a_latency_rise_over_max_increase_fails_the_gate() -> None:
    rules = budgets(latency_p95={"max_increase": "20%"})
    comparison = compare(results(latency=100.0), head_results(latency=400.0), rules)

    p95 = costs_of(comparison)["latency_p95"]
    assert p95.verdict == FAIL
    assert comparison.verdict == FAIL
    [reason] = [r for r in comparison.reasons if r.subject == "latency_p95"]
    assert reason.text.startswith("rose 180%, 0.17s → 0.47s (more than max_increase 20%")


def test_a_rise_within_max_increase_passes_and_a_fall_never_fails() -> None:
    rules = budgets(latency_p50={"max_increase": "50%"}, cost={"max_increase": "0%"})
    slower = compare(results(latency=100.0), head_results(latency=110.0), rules)
    assert costs_of(slower)["latency_p50"].verdict == PASS  # +7%
    cheaper = compare(
        with_usage(results(), 900, 0.004), with_usage(head_results(), 500, 0.002), rules
    )
    assert costs_of(cheaper)["cost"].verdict == PASS and cheaper.verdict == PASS
    assert costs_of(cheaper)["cost"].delta < 0


def test_an_absolute_max_fails_the_head_value_even_without_a_baseline() -> None:
    rules = budgets(latency_p95={"max": "150ms"}, tokens={"max": 1000})
    first = compare(None, with_usage(head_results(latency=100.0), 1200, 0.01), rules)

    found = costs_of(first)
    assert found["latency_p95"].verdict == FAIL  # 0.167 s > 0.150 s
    assert found["tokens"].verdict == FAIL
    assert "1,200 tokens is over the budget max 1,000 tokens" in found["tokens"].notes
    assert first.verdict == FAIL


def test_tokens_and_cost_are_means_per_answer_with_an_interval() -> None:
    before = with_usage(results(), 800, 0.003)
    after = with_usage(head_results(), 1000, 0.004, step=10)
    tokens = costs_of(compare(before, after, GateRules()))["tokens"]
    assert tokens.baseline == 800 and tokens.head == pytest.approx(1035)
    assert tokens.low is not None and tokens.low > 0  # every question rose
    assert tokens.p_value is not None and tokens.p_value < 0.05


def test_a_significant_cost_rise_fails_but_not_when_it_is_noise() -> None:
    rules = budgets(cost={"max_increase": "10%"})
    before = with_usage(results(), 800, 0.003)
    risen = compare(before, with_usage(head_results(), 800, 0.0036), rules)
    assert costs_of(risen)["cost"].verdict == FAIL

    # one question of eight costs much more: a 25% rise of the mean that is not significant
    questions = list(before.questions)
    questions[0] = replace(questions[0], usage=Usage(total_tokens=800, cost=0.009))
    noisy = compare(before, replace(before, questions=tuple(questions)), rules)
    cost = costs_of(noisy)["cost"]
    assert cost.delta / cost.baseline > 0.10 and cost.p_value >= 0.05
    assert cost.verdict == PASS


def test_unanswered_questions_have_no_latency_or_cost() -> None:
    head = head_results(latency=100.0, errors={"auth-token": "HTTP 503 after 3 attempts"})
    p50 = costs_of(compare(results(latency=100.0), head, GateRules()))["latency_p50"]
    assert p50.n == 7


def test_budget_verdict_for_a_rise_from_zero() -> None:
    rule = MetricRule(max_increase=0.2, alpha=None)
    verdict, notes = budget_verdict("cost", 0.0, 0.01, 0.01, 0.5, rule)
    assert verdict == FAIL and notes[0].startswith("rose from 0")


def test_units_in_the_text() -> None:
    assert cost_text("latency_p95", 1.234) == "1.23s"
    assert cost_text("tokens", 1234.4) == "1,234 tokens"
    assert cost_text("cost", 0.00312) == "0.00312"
