"""The comment as GitHub shows it: rendered by cmark-gfm, laid out by headless Chromium in
a comment column of GitHub's width (gfm_browser.py), nothing hidden behind a scrollbar.

Runs in CI (.ci/run installs Debian's chromium-headless-shell and sets
RAGGUARD_REQUIRE_BROWSER=1, so a missing browser fails there); elsewhere without a browser it
is skipped with the reason.
"""

from __future__ import annotations

import os
from dataclasses import replace

import pytest
from gfm_browser import BODY_WIDTH, Layout, find_browser, measure

from compare_cases import GOLDEN_CASES, QUESTIONS, head_results, results
from ragguard.compare import Comparison, compare
from ragguard.config.sections.gate import GateRules, gate_rules_from_mapping
from ragguard.demo.walkthrough import compare_demo, run_demo
from ragguard.render import render_comment, render_summary
from ragguard.results.usage import Usage

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def browser() -> str:
    found = find_browser()
    if found is None:
        if os.environ.get("RAGGUARD_REQUIRE_BROWSER") == "1":
            pytest.fail("no headless Chromium: apt-get install chromium-headless-shell")
        pytest.skip("no headless Chromium (apt-get install chromium-headless-shell)")
    return found


@pytest.fixture(scope="module")
def demo_runs():
    return run_demo()


def _wide() -> Comparison:
    """Long names everywhere a table cell holds one: metric names of the chunk- and
    document-level family, 60-character tags, long unbroken ids."""
    metrics = "hit_rate@1,hit_rate@3,mrr,ndcg@3,recall@10,precision@10,map@10,ndcg@10"
    questions = tuple(
        replace(
            q,
            id=f"{q.id}-{'x' * 70}",
            tags=(f"tag-{q.id}-" + "y" * 60, "z" * 60),
        )
        for q in QUESTIONS
    )
    ranks = {q.id: 9 for q in questions[:5]}
    baseline = results(questions=questions, metrics=metrics)
    head = head_results(ranks, questions=questions, metrics=metrics)
    return compare(baseline, head, GateRules())


def _assert_fits(layout: Layout, name: str) -> None:
    for table in layout.tables:
        assert not table.overflows, (
            f"{name}: a table {table.width} px wide in a {BODY_WIDTH} px column "
            f"(columns {table.header})"
        )
    assert layout.body_scroll_width <= layout.body_width, f"{name}: the body scrolls sideways"


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_no_golden_comment_or_summary_overflows_the_comment_column(browser, name: str) -> None:
    baseline, head, rules = GOLDEN_CASES[name]()
    comparison = compare(baseline, head, rules)
    _assert_fits(measure(render_comment(comparison), browser), f"comment {name}")
    _assert_fits(measure(render_summary(comparison), browser), f"summary {name}")


def test_long_names_wrap_instead_of_widening_a_table(browser) -> None:
    comparison = _wide()
    layout = measure(render_comment(comparison), browser)
    assert len(layout.tables) >= 2  # the metric and tag tables are there to be measured
    _assert_fits(layout, "comment with long names")
    _assert_fits(measure(render_summary(comparison), browser), "summary with long names")


def test_the_demo_comment_fits_and_is_short(browser, demo_runs) -> None:
    comment = render_comment(compare_demo(*demo_runs))
    layout = measure(comment, browser)
    _assert_fits(layout, "demo comment")
    # Before the redesign this comment was 3,837 px tall with a 1,491 px tag table (1,524 px
    # and 781 px after); the figure is layout, not timing: it depends on fonts and markdown.
    assert layout.height < 2000, layout.height


def test_a_pass_with_no_change_is_a_few_lines_tall(browser, demo_runs) -> None:
    baseline = demo_runs[0].results
    layout = measure(render_comment(compare(baseline, baseline, GateRules())), browser)
    _assert_fits(layout, "no-change comment")
    assert layout.height < 200, layout.height  # a heading, one line, one folded line
    assert layout.open_height > layout.height  # the metric table is folded, not missing


def test_the_first_run_without_a_baseline_fits(browser, demo_runs) -> None:
    comparison = compare(None, demo_runs[1].results, GateRules())
    _assert_fits(measure(render_comment(comparison), browser), "no-baseline comment")


def test_the_cost_and_latency_table_fits(browser) -> None:
    """Every cost row shown, the widest cells: a failed latency budget, big token counts."""

    def priced(base, tokens: float, cost: float):  # type: ignore[no-untyped-def]
        usage = Usage(prompt_tokens=tokens, completion_tokens=tokens / 10, cost=cost)
        return replace(base, questions=tuple(replace(q, usage=usage) for q in base.questions))

    rules = gate_rules_from_mapping(
        {"metrics": {"latency_p95": {"max_increase": "20%"}, "cost": {"max": 0.01}}}, "x"
    )
    baseline = priced(results(latency=1200.0), 123_456, 0.0123)
    head = priced(head_results(latency=4800.0), 987_654, 0.98765)
    comparison = compare(baseline, head, rules)
    layout = measure(render_comment(comparison), browser)
    assert any("cost and latency (lower is better)" in " ".join(t.header) for t in layout.tables)
    _assert_fits(layout, "comment with costs")
    _assert_fits(measure(render_summary(comparison), browser), "summary with costs")
