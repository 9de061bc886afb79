"""Cost and latency in the report: shown in the comment only when they moved or failed a
budget; a rise reads as worse (lower is better)."""

from __future__ import annotations

import json

from compare_cases import head_results, results
from ragguard.ci.outputs import metrics_output
from ragguard.compare import compare
from ragguard.compare.serialise import comparison_json
from ragguard.config.sections.gate import GateRules
from ragguard.render import comparison_terminal, render_comment, render_summary
from ragguard.render.costs import cost_change, cost_rows
from test_compare_costs import budgets, with_usage

HEADER = "| per answer (lower is better) |"


def test_unchanged_costs_stay_out_of_the_comment_but_are_in_the_full_report() -> None:
    comparison = compare(
        with_usage(results(), 800, 0.003), with_usage(head_results(), 800, 0.003), GateRules()
    )
    assert HEADER not in render_comment(comparison)
    summary = render_summary(comparison)
    assert HEADER in summary
    assert "| `tokens` | 800 tokens | 800 tokens | = 0 | p = 1.000 | no budget |" in summary


def test_a_rise_in_tokens_is_shown_as_worse_and_a_fall_as_better() -> None:
    risen = compare(
        with_usage(results(), 800, 0.003), with_usage(head_results(), 1000, 0.003), GateRules()
    )
    comment = render_comment(risen)
    assert HEADER in comment
    assert "| `tokens` | 800 tokens | 1,000 tokens | ▲ +200 tokens (+25%), worse |" in comment
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
    assert "per answer (lower is better)" in text
    [tokens] = [line for line in text.splitlines() if line.startswith("tokens ")]
    assert "▲ +200 tokens (+25%), worse" in tokens and tokens.rstrip().endswith("fail")
    assert "fail: tokens: rose 25%, 800 tokens → 1,000 tokens" in text
