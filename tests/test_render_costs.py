"""Cost and latency in the report: shown in the comment only when they moved or failed a
budget; a rise reads as worse (lower is better); each row says what its value is of (per
answer, or the run's total for ``judge_cost``)."""

from __future__ import annotations

import json
from dataclasses import replace

from compare_cases import head_results, results
from ragguard.ci.outputs import metrics_output
from ragguard.compare import compare
from ragguard.compare.serialise import comparison_json
from ragguard.config.sections.gate import GateRules
from ragguard.render import comparison_terminal, render_comment, render_summary
from ragguard.render.costs import cost_change, cost_rows
from ragguard.results.judging import JudgeCharge, JudgeCosts
from test_compare_costs import budgets, with_usage


def judge_costs(calls: int) -> JudgeCosts:
    """``calls`` judged answers of 800 prompt and 100 completion tokens, at 0.15 / 0.60."""
    return JudgeCosts(
        tuple(JudgeCharge(f"q{i}", 1, 800, 100, "usage") for i in range(calls)), (0.15, 0.60)
    )


HEADER = "| cost and latency (lower is better) |"


def test_unchanged_costs_stay_out_of_the_comment_but_are_in_the_full_report() -> None:
    comparison = compare(
        with_usage(results(), 800, 0.003), with_usage(head_results(), 800, 0.003), GateRules()
    )
    assert HEADER not in render_comment(comparison)
    summary = render_summary(comparison)
    assert HEADER in summary
    assert (
        "| `tokens` per answer | 800 tokens | 800 tokens | = 0 | p = 1.000 | no budget |" in summary
    )


def test_a_rise_in_tokens_is_shown_as_worse_and_a_fall_as_better() -> None:
    risen = compare(
        with_usage(results(), 800, 0.003), with_usage(head_results(), 1000, 0.003), GateRules()
    )
    comment = render_comment(risen)
    assert HEADER in comment
    assert (
        "| `tokens` per answer | 800 tokens | 1,000 tokens | ▲ +200 tokens (+25%), worse |"
        in comment
    )
    assert "`cost`" not in comment  # the cost did not move

    fallen = compare(
        with_usage(results(), 1000, 0.003), with_usage(head_results(), 800, 0.003), GateRules()
    )
    [row] = cost_rows(fallen, compact=True)
    assert row["change"] == "▼ −200 tokens (−20%), better"


def test_a_latency_budget_failure_is_a_row_and_a_reason() -> None:
    rules = budgets(latency_p95={"max_increase": "20%"})
    comparison = compare(results(latency=100.0), head_results(latency=400.0), rules)
    comment = render_comment(comparison)
    assert (
        "| `latency_p95` | 0.17s | 0.47s | ▲ +0.30s (+180%), worse | p = 0.004 | ❌ over budget |"
        in comment
    )
    assert "- ❌ `latency_p95`: rose 180%, 0.17s → 0.47s (more than max_increase 20%" in comment
    assert "`latency_p50`" not in comment.split(HEADER)[1]  # no budget: the latency line has it


def test_the_change_of_an_unknown_baseline_is_a_dash() -> None:
    first = compare(None, with_usage(head_results(), 800, 0.003), GateRules())
    assert {row["change"] for row in cost_rows(first, compact=False)} == {"–"}
    assert all(cost_change(m) == "–" for m in first.costs)


def test_costs_are_in_comparison_json_and_the_metrics_output() -> None:
    comparison = compare(
        with_usage(results(), 800, 0.003), with_usage(head_results(), 1000, 0.004), GateRules()
    )
    document = json.loads(comparison_json(comparison))
    assert document["costs"]["tokens"]["lower_is_better"] is True
    assert document["costs"]["tokens"]["delta"] == 200
    output = metrics_output(comparison)
    assert output["cost"]["value"] == 0.004 and output["cost"]["delta"] > 0
    assert output["latency_p95"]["verdict"] == "pass"


def test_ragguard_compare_prints_the_costs_with_their_direction() -> None:
    rules = budgets(tokens={"max_increase": "10%"})
    comparison = compare(
        with_usage(results(), 800, 0.003), with_usage(head_results(), 1000, 0.003), rules
    )
    text = comparison_terminal(comparison)
    assert "cost and latency (lower is better)" in text
    [tokens] = [line for line in text.splitlines() if line.startswith("tokens per answer ")]
    assert "▲ +200 tokens (+25%), worse" in tokens and tokens.rstrip().endswith("fail")
    assert "fail: tokens: rose 25%, 800 tokens → 1,000 tokens" in text


def test_the_judge_cost_row_is_the_runs_total_not_a_per_answer_value() -> None:
    """``judge_cost`` is a run's total: the table's header does not call it per answer, its
    row says per run, beside the per-answer rows (comment, summary and terminal)."""
    baseline = replace(with_usage(results(), 800, 0.003), judge=judge_costs(1000))
    head = replace(with_usage(head_results(), 1000, 0.003), judge=judge_costs(1500))
    comparison = compare(baseline, head, budgets(judge_cost={"max": 0.5}))
    for report in (render_comment(comparison), render_summary(comparison)):
        assert "per answer (lower is better)" not in report
        assert HEADER in report
        assert "| `tokens` per answer | 800 tokens | 1,000 tokens |" in report
        assert "| `judge_cost` per run | $0.18 | $0.27 | ▲ +$0.09 (+50%), worse |" in report
    text = comparison_terminal(comparison)
    [header] = [line for line in text.splitlines() if "lower is better" in line]
    assert header.startswith("cost and latency (lower is better) ")
    [judged] = [line for line in text.splitlines() if line.startswith("judge_cost")]
    assert judged.startswith("judge_cost per run ") and judged.rstrip().endswith("pass")
