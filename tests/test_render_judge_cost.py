"""What the judge cost, in the reports: one line under the comment's and the job summary's
footer (``~`` when estimated, the cost only with a price, the rechecks' share when they were
judged), none without a judge; a ``judge_cost`` budget gated like the other budgets, on the
head run alone."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from compare_cases import head_results, results
from ragguard.compare import FAIL, PASS, compare
from ragguard.compare.model import Recheck
from ragguard.compare.rechecks import with_rechecks
from ragguard.compare.serialise import comparison_json
from ragguard.config.sections.gate import GateRules
from ragguard.render import comparison_terminal, render_comment, render_summary
from ragguard.render.judge_cost import judge_cost_line, short_count
from ragguard.results.judging import JudgeCharge, JudgeCosts
from test_compare_costs import budgets

PRICE = (0.15, 0.60)


def costs(calls: int, cached: int, tokens_from: str = "usage", price=PRICE) -> JudgeCosts:
    judged = tuple(JudgeCharge(f"q{i}", 1, 800, 100, tokens_from) for i in range(calls))
    return JudgeCosts(
        judged + tuple(JudgeCharge(f"c{i}", cached=True) for i in range(cached)), price
    )


def test_the_line_counts_calls_cache_tokens_and_cost() -> None:
    line = judge_cost_line(costs(1240, 3))
    assert line == "judge: 1,240 calls, 3 cached, 1.12M tokens, $0.22"


def test_estimated_tokens_are_marked_and_no_price_means_no_cost() -> None:
    assert (
        judge_cost_line(costs(2, 0, "estimate", None)) == "judge: 2 calls, 0 cached, ~1.8k tokens"
    )
    assert judge_cost_line(None) == ""


@pytest.mark.parametrize(("count", "shown"), [(812, "812"), (999_999, "1M"), (12_400, "12.4k")])
def test_short_counts(count: int, shown: str) -> None:
    assert short_count(count) == shown


def test_the_comment_and_the_summary_carry_the_line_once_only_with_a_judge() -> None:
    head = replace(head_results(), judge=costs(2, 1))
    comparison = compare(results(), head, GateRules())
    line = "<sub>judge: 2 calls, 1 cached, 1.8k tokens, $0.00036</sub>"
    assert render_comment(comparison).count(line) == 1
    assert render_summary(comparison).count(line) == 1
    plain = compare(results(), head_results(), GateRules())
    assert "judge:" not in render_comment(plain) and "judge:" not in render_summary(plain)


def test_the_terminal_report_ends_with_the_line_with_the_rechecks_share() -> None:
    """What `ragguard compare` and `ragguard ci`'s job log print: the same line, last."""
    failing = {"auth-expiry": 0}
    comparison = compare(results(), replace(head_results(failing), judge=costs(2, 1)), GateRules())
    rechecked = with_rechecks(
        comparison, {"auth-expiry": Recheck(1, 2)}, [replace(head_results(), judge=costs(1, 0))]
    )
    assert comparison_terminal(comparison).endswith(
        "\njudge: 2 calls, 1 cached, 1.8k tokens, $0.00036\n"
    )
    assert comparison_terminal(rechecked).endswith(
        "\njudge: 3 calls, 1 cached, 2.7k tokens, $0.00054 "
        "(of which rechecks: 1 call, 0 cached, 900 tokens, $0.00018)\n"
    )
    assert "judge:" not in comparison_terminal(compare(results(), head_results(), GateRules()))


def test_a_run_over_its_judge_cost_budget_fails_with_its_reason() -> None:
    head = replace(head_results(), judge=costs(1000, 0))
    over = compare(results(), head, budgets(judge_cost={"max": 0.1}))
    assert over.verdict == FAIL
    [row] = [m for m in over.costs if m.name == "judge_cost"]
    assert row.notes == ("$0.18 is over the budget max $0.10",)
    assert "`judge_cost`: $0.18 is over the budget max $0.10" in render_comment(over)
    assert "fail: judge_cost: $0.18 is over the budget max $0.10" in comparison_terminal(over)
    under = compare(results(), head, budgets(judge_cost={"max": 0.5}))
    assert under.verdict == PASS


def test_comparison_json_carries_the_heads_judge_totals() -> None:
    head = replace(head_results(), judge=costs(2, 1))
    data = json.loads(comparison_json(compare(results(), head, GateRules())))
    assert data["judge"] == {
        "calls": 2,
        "answers": 3,
        "cached": 1,
        "prompt_tokens": 1600,
        "completion_tokens": 200,
        "estimated": False,
        "price": {"input": 0.15, "output": 0.6},
        "cost": pytest.approx(0.00036),
    }
    assert "judge" not in json.loads(
        comparison_json(compare(results(), head_results(), GateRules()))
    )


def test_the_line_adds_the_rechecks_and_says_their_share() -> None:
    line = judge_cost_line(costs(10, 1), costs(2, 0, "estimate"))
    assert line == (
        "judge: 12 calls, 1 cached, ~10.8k tokens, ~$0.0022 "
        "(of which rechecks: 2 calls, 0 cached, ~1.8k tokens, ~$0.00036)"
    )
    assert judge_cost_line(costs(2, 0), JudgeCosts((), PRICE)) == judge_cost_line(costs(2, 0))


def test_rechecks_judge_calls_reach_the_reports_but_not_the_judge_cost_budget() -> None:
    """The ``judge_cost`` budget is the head run's (as ``ragguard compare`` of the same two
    files decides it); what the rechecks cost is added only to the totals shown."""
    failing = {"auth-expiry": 0}  # the critical question newly fails: rechecked
    head = replace(head_results(failing), judge=costs(1000, 0))
    comparison = compare(results(), head, budgets(judge_cost={"max": 0.2}))
    rerun = replace(head_results(), judge=costs(500, 0))
    rechecked = with_rechecks(comparison, {"auth-expiry": Recheck(1, 2)}, [rerun, rerun])

    [row] = [m for m in rechecked.costs if m.name == "judge_cost"]
    assert (row.head, row.verdict) == (pytest.approx(0.18), PASS)
    assert rechecked.recheck_judge is not None and rechecked.recheck_judge.calls == 1000
    assert rechecked.judge_spent is not None and rechecked.judge_spent.calls == 2000
    line = "judge: 2,000 calls, 0 cached, 1.8M tokens, $0.36 (of which rechecks: 1,000 calls"
    assert line in render_comment(rechecked) and line in render_summary(rechecked)
    data = json.loads(comparison_json(rechecked))
    assert (data["judge"]["calls"], data["judge_rechecks"]["calls"]) == (1000, 1000)
    assert "judge_rechecks" not in json.loads(comparison_json(comparison))
