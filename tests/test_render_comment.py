"""The PR comment's design: what a reviewer reads first, what is folded, and the text faults
found by reading it as a new user (each fixed with a test here).

The golden files (tests/golden/) pin whole comments; these tests pin the rules behind them,
on the hand-made cases of compare_cases.py and on the demo's real runs.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from compare_cases import (
    QUESTIONS,
    head_results,
    results,
    supported,
    unsupported,
    with_sentences,
)
from ragguard.compare import Comparison, Provenance, RankChange, compare
from ragguard.config.sections.gate import GateRules
from ragguard.demo.walkthrough import compare_demo, run_demo
from ragguard.render import comparison_terminal, render_comment, render_summary
from ragguard.render.questions import plain_rank_change, rank_change_text
from ragguard.render.text import p_phrase, p_text, signed
from ragguard.render.verdict import latency_line, provenance_line
from ragguard.testset.model import Question

MINUS = "\u2212"


def visible(comment: str) -> str:
    """What shows before any <details> is opened (the marker line left out)."""
    folded = re.sub(r"<details>.*?</details>", "<details>", comment, flags=re.S)
    return "\n".join(line for line in folded.splitlines()[1:] if line.strip())


def heading(comment: str) -> str:
    return comment.splitlines()[1]


@pytest.fixture(scope="module")
def demo() -> Comparison:
    return compare_demo(*run_demo())


@pytest.fixture(scope="module")
def demo_runs():
    return run_demo()


# --- verdict and deciding reasons first --------------------------------------------------


def test_a_pass_with_no_change_is_two_lines_and_a_fold(demo_runs) -> None:
    baseline = demo_runs[0].results
    comment = render_comment(compare(baseline, baseline, GateRules()))
    shown = visible(comment).splitlines()
    assert shown[0].startswith("### ✅ ragguard · orders\\-api\\-docs: **pass** · no change")
    assert shown[1].startswith("Compared 44 questions") and "No metric moved" in shown[1]
    assert shown[2:] == ["<details>"]  # every metric, the baseline and the gate, folded
    assert "= 0.000" in comment  # the values are there when opened


def test_the_heading_names_what_decided_without_repeating_the_first_reason(demo) -> None:
    comment = render_comment(demo)
    first = heading(comment)
    failed = {r.subject for r in demo.reasons if r.tier == "fail"}
    newly = len(demo.of_kind("newly_failing"))
    assert len(failed) >= 3 and newly > 1  # the demo's pull request regresses
    assert first.startswith("### ❌ ragguard · orders\\-api\\-docs: **fail** · ")
    assert f"{len(failed)} metrics fail" in first and f"{newly} questions newly fail" in first
    bullets = [line for line in comment.splitlines() if line.startswith("- ❌")]
    assert len(bullets) == len(demo.reasons)
    assert all(b[4:] not in first for b in bullets)


def _critical_last_by_id() -> tuple[Comparison, str]:
    """Three questions newly fail; the critical one sorts last by id."""
    questions = tuple(replace(q, critical=q.id == "webhook-retry") for q in QUESTIONS)
    baseline = results(questions=questions)
    head = head_results({"auth-token": 0, "retry-429": 5, "webhook-retry": 0}, questions=questions)
    return compare(baseline, head, GateRules()), "webhook\\-retry"


def test_a_newly_failing_critical_question_is_in_the_heading_first_reason_and_first_bullet() -> (
    None
):
    comparison, critical = _critical_last_by_id()
    comment = render_comment(comparison)
    assert f"critical question **{critical}** newly fails" in heading(comment)
    reasons = [line for line in comment.splitlines() if line.startswith("- ❌")]
    assert reasons[0].startswith(f"- ❌ critical question **{critical}** newly fails: ")
    failing = comment.split("#### Newly failing questions (3, 1 critical)")[1]
    first_bullet = next(line for line in failing.splitlines() if line.startswith("- "))
    assert first_bullet.startswith(f"- **{critical}** _(critical)_")


# --- only the metric rows that moved --------------------------------------------------------


def test_only_metric_rows_that_moved_or_failed_show_and_all_rows_are_folded() -> None:
    # retry-429 drops from rank 1 to 2: hit_rate@1, mrr, ndcg@3 move; hit_rate@3 does not
    comparison = compare(results(), head_results({"retry-429": 2}), GateRules())
    comment = render_comment(comparison)
    shown = visible(comment)
    assert "| `hit_rate@1` |" in shown and "| `mrr` |" in shown
    assert "| `hit_rate@3` |" not in shown
    folded = comment.split("<details><summary>All 4 metrics (1 unchanged)</summary>")[1]
    assert "| `hit_rate@3` | 1.000 | 1.000 | = 0.000 | – | ✅ pass |" in folded
    assert "| `hit_rate@3` |" in render_summary(comparison)


def test_a_metric_that_fails_its_floor_shows_even_when_unchanged() -> None:
    rules = GateRules(metrics={"hit_rate@3": _rule(min=1.01)})
    comment = render_comment(compare(results(), head_results(), rules))
    assert "| `hit_rate@3` | 1.000 | 1.000 | = 0.000 | – | ❌ fail |" in visible(comment)


def _rule(**values):
    from ragguard.config.sections.gate import MetricRule

    return MetricRule(**values)


# --- failing questions: the first few, the rest folded, repeated whys grouped ----------------


def test_repeated_unsupported_sentences_are_quoted_once_with_the_questions_they_hit() -> None:
    same = "Limits reset every hour."
    sentences = {
        q.id: [supported(f"{q.id} answer.", "faq"), unsupported(same, None, 0.0, 1)]
        for q in QUESTIONS[2:7]  # none of them critical (a critical one is never grouped)
    }
    baseline = with_sentences(results(), {})
    head = with_sentences(head_results(), sentences)
    comment = render_comment(compare(baseline, head, GateRules()))
    assert comment.count("Limits reset every hour") == 1
    line = next(line for line in comment.splitlines() if "Limits reset every hour" in line)
    assert "— 5 questions: **limit\\-per\\-minute**, **next\\-page**, **page\\-size**" in line
    # the job summary keeps every question with its full why
    assert (
        render_summary(compare(baseline, head, GateRules())).count("Limits reset every hour") == 5
    )


def test_the_first_five_failing_questions_show_and_the_rest_are_folded() -> None:
    questions = tuple(
        Question(f"q{i}", f"Question {i}?", {f"chunk-{i}": 2}, tags=("t",)) for i in range(1, 13)
    )
    baseline = results(questions=questions)
    head = head_results({q.id: 0 for q in questions}, questions=questions)
    comment = render_comment(compare(baseline, head, GateRules()))
    section = comment.split("#### Newly failing questions (12)")[1]
    before_fold, folded = section.split("<details><summary>7 more</summary>")
    shown_ids = re.findall(r"^- \*\*(q\d+)\*\*", before_fold, flags=re.M)
    assert shown_ids == ["q1", "q2", "q3", "q4", "q5"]  # q3 before q12: numbers in order
    assert re.findall(r"^- \*\*(q\d+)\*\*", folded, flags=re.M) == [
        "q6", "q7", "q8", "q9", "q10", "q11", "q12"
    ]  # fmt: skip
    for line in before_fold.splitlines():
        if line.startswith("- "):
            assert " — the relevant chunk *chunk\\-" in line and "no longer retrieved" in line


def test_questions_sort_by_number_in_the_summary_and_the_terminal_too() -> None:
    questions = tuple(Question(f"q{i}", f"Q{i}?", {f"c{i}": 2}) for i in (12, 3, 1))
    comparison = compare(
        results(questions=questions), head_results({"q12": 0, "q3": 0}, questions=questions),
        GateRules(),
    )  # fmt: skip
    summary = render_summary(comparison)
    assert summary.index("**q3**") < summary.index("**q12**")
    table = summary.split("All 3 questions")[1]
    assert table.index("| q1 |") < table.index("| q3 |") < table.index("| q12 |")
    terminal = comparison_terminal(comparison)
    assert terminal.index("  q3: ") < terminal.index("  q12: ")


# --- tags: the metrics and tags that moved ---------------------------------------------------


def test_the_tag_table_has_the_moved_metrics_and_tags_only(demo) -> None:
    comment = render_comment(demo)
    tags = comment.split("#### By tag")[1].split("\n\n<sub>")[0]
    header = next(line for line in tags.splitlines() if line.startswith("| tag |"))
    gated = sorted(
        (m for m in demo.metrics if m.verdict in ("fail", "warn")), key=lambda m: m.delta or 0
    )
    expected = [f"`{m.name}`" for m in gated][:4]
    assert header == "| tag | questions | newly failing | " + " | ".join(expected) + " |"
    assert len(demo.metrics) > 4  # the demo has more metrics than the table shows
    assert "n/a" not in tags and "(0.000)" not in tags
    rows = [line for line in tags.splitlines() if line.startswith("| ") and "---" not in line]
    for row in rows[1:]:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[2] != "0" or any(cell not in ("=", "–") for cell in cells[3:]), row


# --- latency only when it matters ------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "shown"),
    [(120.0, 180.0, True), (120.0, 130.0, False), (1000.0, 1100.0, False), (180.0, 120.0, True)],
)
def test_latency_shows_when_it_moved_by_50_ms_and_20_percent(
    before: float, after: float, shown: bool
) -> None:
    comparison = compare(results(latency=before), head_results(latency=after), GateRules())
    assert ("Latency: " in render_comment(comparison)) is shown
    assert "Latency: " in render_summary(comparison)  # the full report always has it


def test_latency_changes_use_the_same_minus_and_never_print_minus_zero() -> None:
    fast = compare(results(latency=0.4), head_results(latency=0.2), GateRules())
    line = latency_line(fast)
    assert "-0" not in line and f"{MINUS}0 ms" not in line and "(0 ms)" not in line
    assert f"({MINUS}0.2 ms)" in line  # too small for whole milliseconds, not "no change"
    slower = compare(results(latency=180.0), head_results(latency=120.0), GateRules())
    assert f"({MINUS}60 ms)" in latency_line(slower) and "-" not in latency_line(slower)


# --- no baseline: its own state ---------------------------------------------------------------


def test_no_baseline_is_neutral_and_says_how_to_get_one() -> None:
    questions = tuple(replace(q, critical=q.id == "retry-429") for q in QUESTIONS)
    head = head_results({q.id: 0 for q in questions}, questions=questions)
    comment = render_comment(compare(None, head, GateRules()))
    assert heading(comment) == (
        "### ℹ️ ragguard · orders\\-api: **no baseline yet** · 8 of 8 questions fail (1 critical)"
    )
    assert "✅" not in comment and "**pass**" not in comment
    assert "baseline: {rerun: true}" in comment and "ragguard compare baseline.json" in comment
    assert "| metric | value | 95% CI |" in comment and "| baseline |" not in comment
    failing = comment.split("#### Failing questions (8, 1 critical)")[1]
    first = next(line for line in failing.splitlines() if line.startswith("- "))
    assert first.startswith("- **retry\\-429** _(critical)_")


def test_no_baseline_keeps_a_floor_failure_visible() -> None:
    rules = GateRules(metrics={"mrr": _rule(min=0.99)})
    comment = render_comment(compare(None, head_results({"retry-429": 4}), rules))
    assert heading(comment).startswith(
        "### ❌ ragguard · orders\\-api: **fail** (no baseline yet) · `mrr` fails"
    )
    assert "| metric | value | 95% CI | floor |" in comment
    assert "❌ fail (min 0.99)" in comment


# --- the text faults -------------------------------------------------------------------------


def test_a_baseline_without_a_commit_is_said_so_plainly() -> None:
    comparison = compare(results(git={}), head_results(), GateRules())
    line = provenance_line(comparison)
    assert line.startswith("Baseline: commit not recorded")
    assert "unknown commit" not in render_comment(comparison)
    known = provenance_line(
        compare(results(), head_results(), GateRules(), provenance=Provenance("abc", "main"))
    )
    assert known.startswith("Baseline: commit abc on main")


@pytest.mark.parametrize(
    ("change", "text"),
    [
        (RankChange("sync", 3, None, None), "the relevant chunk *sync* is not retrieved"),
        (RankChange("sync", 3, None, 5), "the relevant chunk *sync* is at rank 5, out of the top 3"),
        (RankChange("sync", 3, None, 2), "the relevant chunk *sync* is at rank 2"),
        (
            RankChange("sync", 3, 1, None),
            "the relevant chunk *sync* was at rank 1 and is no longer retrieved",
        ),
        (RankChange("sync", 3, 1, 4), "the relevant chunk *sync* fell from rank 1 to rank 4, out of the top 3"),
        (RankChange("sync", 3, 1, 2), "the relevant chunk *sync* fell from rank 1 to rank 2"),
        (RankChange("sync", 3, 4, 2), "the relevant chunk *sync* moved from rank 4 to rank 2"),
    ],
)  # fmt: skip
def test_where_the_relevant_chunk_went_reads_as_a_sentence(change: RankChange, text: str) -> None:
    assert rank_change_text(change) == text
    assert "at out of" not in text and "to out of" not in text
    assert plain_rank_change(change) == text.replace("*", "")


@pytest.mark.parametrize(
    ("p", "text"), [(1.0, "1.000"), (0.00391, "0.004"), (6.1e-05, "< 0.001"), (0.0312, "0.031")]
)
def test_p_values_have_one_format(p: float, text: str) -> None:
    assert p_text(p) == text
    assert p_phrase(p) == ("p < 0.001" if text.startswith("<") else f"p = {text}")


def test_every_p_value_and_minus_in_the_demo_comment_has_the_one_format(demo) -> None:
    for text in (render_comment(demo), render_summary(demo)):
        p_values = re.findall(r"\bp ([=<] [0-9.e-]+)", text)
        assert p_values and all(re.fullmatch(r"(= \d\.\d{3}|< 0\.001)", p) for p in p_values)
        numbers = re.findall(r"[-\u2212+]\d+\.\d+", text)
        assert numbers and not any(n.startswith("-") for n in numbers)
    assert signed(-0.0001) == "0.000" and signed(-0.5) == f"{MINUS}0.500"


def test_the_table_of_every_question_says_pass_or_fail_on_each_side() -> None:
    baseline = with_sentences(results(), {})
    head = with_sentences(
        head_results({"retry-429": 4}), {"page-size": [unsupported("Made up.", None, 0.0)]}
    )
    summary = render_summary(compare(baseline, head, GateRules()))
    assert "| question | change | baseline | head |" in summary
    assert "| retry\\-429 | newly failing | pass | fail |" in summary
    assert "| auth\\-token | passing | pass | pass |" in summary
    assert "newly failing | ok | ok" not in summary


def test_an_error_reads_as_its_status_in_the_table_of_every_question() -> None:
    errors = {"auth-token": "timeout after 30s"}
    summary = render_summary(compare(results(), head_results(errors=errors), GateRules()))
    assert "| auth\\-token | newly failing | pass | error |" in summary


def test_identical_errors_are_grouped_in_the_comment() -> None:
    errors = {q.id: "connection refused" for q in QUESTIONS[:6]}
    comment = render_comment(compare(results(), head_results(errors=errors), GateRules()))
    section = comment.split("#### Questions that could not be evaluated (6)")[1].split("####")[0]
    assert heading(comment).endswith("**error** · 6 of 8 questions could not be evaluated")
    assert "not gated" in comment and "- ❌" not in comment  # nothing else is a reason
    assert section.count("connection refused") == 1
    assert "error: connection refused — 6 questions: **auth\\-expiry**" in section


def test_the_last_resort_comment_keeps_the_no_baseline_state() -> None:
    head = head_results({q.id: 0 for q in QUESTIONS})
    tiny = render_comment(compare(None, head, GateRules()), limit=400)
    assert "ℹ️ ragguard · orders\\-api: **no baseline yet**" in tiny and "✅" not in tiny
