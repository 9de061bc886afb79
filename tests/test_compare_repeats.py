"""Compare on repeated results (``system.repeat``): the majority rule per question, the classes
stable-pass / flaky / stable-fail, flakiness changes, critical questions and rechecks.

Every input is real: runs scored by score_run (compare_cases) and combined with
``combine_repeats``, as ``ragguard run`` writes a repeated results file.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from compare_cases import case_repeats, head_results, results
from ragguard.cli.app import cli
from ragguard.compare import ERROR, FAIL, FIXED, NEWLY_FAILING, PASS, PASSING, WARN, compare
from ragguard.compare.model import FLAKY, STABLE_FAIL, STABLE_PASS, Recheck, RunTally
from ragguard.compare.questions import pass_tally, passes
from ragguard.compare.rechecks import recheck_ids, tally_rechecks, with_rechecks
from ragguard.compare.serialise import comparison_json
from ragguard.config.sections.gate import GateRules
from ragguard.render import comparison_terminal, render_comment
from ragguard.render.junit import comparison_junit
from ragguard.results.io import write_results
from ragguard.results.model import Results
from ragguard.scoring.repeats import combine_repeats

RULE = {"hit_rate@3": 1.0}


def _runs(*ranks: Mapping[str, int], head: bool = False) -> Results:
    """One run per mapping (rank 0: the relevant chunk is not retrieved), combined."""
    make = head_results if head else results
    return combine_repeats([make(dict(r)) for r in ranks])


def _diff(comparison, question_id: str):
    return next(q for q in comparison.questions if q.id == question_id)


def test_a_question_passes_when_it_passes_in_a_strict_majority_of_its_runs() -> None:
    combined = _runs({}, {"retry-429": 0}, {}, {"page-size": 0}, {"page-size": 0})
    by_id = combined.by_id
    assert pass_tally(by_id["retry-429"], RULE) == RunTally(4, 5)
    assert passes(by_id["retry-429"], RULE)
    assert pass_tally(by_id["page-size"], RULE) == RunTally(3, 5)
    assert passes(by_id["page-size"], RULE)
    two_of_four = _runs({}, {"retry-429": 0}, {}, {"retry-429": 0}).by_id["retry-429"]
    assert not passes(two_of_four, RULE)  # a tie is no majority


def test_a_run_that_errored_counts_as_failed_and_is_counted_in_the_cost_line() -> None:
    errored = results(errors={"retry-429": "HTTP 500"})
    combined = combine_repeats([results(), errored, errored])
    assert pass_tally(combined.by_id["retry-429"], RULE) == RunTally(1, 3, errored=2)
    assert not passes(combined.by_id["retry-429"], RULE)
    comparison = compare(_runs({}, {}, {}), combined, GateRules())
    assert _diff(comparison, "retry-429").kind == NEWLY_FAILING
    assert comparison.repeats.head_failed_calls == 2
    comment = render_comment(comparison)
    assert "24 system calls (2 failed: each counts as a failed run)" in comment
    assert "errored in 2 of 3 runs: HTTP 500" in comment
    assert "errored in 2 of 3 runs: HTTP 500" in comparison_terminal(comparison)
    assert _diff(comparison, "retry-429").head_runs == RunTally(1, 3, errored=2)


def test_max_error_rate_counts_the_runs_that_errored_when_questions_are_asked_several_times() -> (
    None
):
    errored = results(errors={"retry-429": "HTTP 500"})
    comparison = compare(
        _runs({}, {}, {}), combine_repeats([results(), errored, errored]), GateRules()
    )
    assert comparison.head_errors == 0  # the run shown was evaluated
    assert comparison.verdict == ERROR
    assert comparison.reasons[0].text == (
        "2 of 24 runs could not be evaluated (8.3%, more than max_error_rate 5.0%)"
    )
    assert "2 of 24 runs could not be evaluated" in render_comment(comparison)
    tolerant = compare(
        _runs({}, {}, {}), combine_repeats([results(), errored, results()]), GateRules()
    )
    assert tolerant.verdict == PASS  # 1 of 24 runs: 4.2 %


def test_questions_are_classed_stable_pass_flaky_or_stable_fail() -> None:
    head = _runs({"retry-429": 0}, {"retry-429": 0, "page-size": 0}, {"retry-429": 0}, head=True)
    comparison = compare(_runs({}, {}, {}), head, GateRules())
    assert _diff(comparison, "retry-429").head_runs == RunTally(0, 3)
    assert _diff(comparison, "retry-429").head_runs.stability == STABLE_FAIL
    assert _diff(comparison, "page-size").head_runs.stability == FLAKY
    assert _diff(comparison, "auth-token").head_runs.stability == STABLE_PASS
    assert comparison.repeats is not None
    assert dict(comparison.repeats.head_classes) == {STABLE_PASS: 6, FLAKY: 1, STABLE_FAIL: 1}


def test_newly_failing_means_a_majority_pass_before_and_a_majority_failure_now() -> None:
    baseline = _runs({}, {"page-size": 0}, {})  # page-size passes 2 of 3
    head = _runs({"page-size": 0}, {}, {"retry-429": 0, "page-size": 0}, head=True)
    comparison = compare(baseline, head, GateRules())
    assert _diff(comparison, "page-size").kind == NEWLY_FAILING
    assert _diff(comparison, "retry-429").kind == PASSING  # 2 of 3: still passes, now flaky
    assert comparison.repeats.became_flaky == ("retry-429",)
    assert comparison.repeats.became_stable == ()


def test_flakiness_changes_are_information_not_a_reason() -> None:
    baseline = _runs({}, {"retry-429": 0}, {})  # flaky before
    head = _runs({}, {"page-size": 0}, {}, head=True)  # retry-429 stable, page-size flaky
    comparison = compare(baseline, head, GateRules())
    assert comparison.repeats.became_flaky == ("page-size",)
    assert comparison.repeats.became_stable == ("retry-429",)
    assert comparison.verdict == PASS
    assert comparison.reasons == ()
    comment = render_comment(comparison)
    assert (
        "1 question became flaky: **page\\-size**; 1 question became stable: **retry\\-429** "
        "(baseline: 7 stable pass, 1 flaky, 0 stable fail)." in comment
    )


def test_a_critical_question_blocks_only_when_it_fails_in_a_majority_of_its_runs() -> None:
    baseline = _runs({}, {}, {})
    once = compare(baseline, _runs({"auth-expiry": 0}, {}, {}, head=True), GateRules())
    assert _diff(once, "auth-expiry").kind == PASSING
    assert once.verdict == PASS
    twice = compare(
        baseline, _runs({"auth-expiry": 0}, {}, {"auth-expiry": 0}, head=True), GateRules()
    )
    assert twice.verdict == FAIL
    assert [(r.tier, r.text) for r in twice.reasons if r.subject == "auth-expiry"] == [
        (FAIL, "critical question newly fails: failed 2 of 3 runs")
    ]


def test_a_tie_with_an_even_repeat_is_newly_failing_but_flaky_for_a_critical_question() -> None:
    baseline = _runs({}, {})
    head = _runs({"auth-expiry": 0}, {}, head=True)
    comparison = compare(baseline, head, GateRules(recheck=0))
    assert _diff(comparison, "auth-expiry").kind == NEWLY_FAILING
    assert comparison.verdict == WARN
    assert [(r.tier, r.text) for r in comparison.reasons if r.subject == "auth-expiry"] == [
        (WARN, "critical question is flaky: failed 1 of 2 runs")
    ]
    assert "1 flaky critical question" in render_comment(comparison)


def test_repeated_newly_failing_critical_questions_are_still_rechecked() -> None:
    broken = {"auth-expiry": 0}
    three = compare(_runs({}, {}, {}), _runs(broken, broken, {}, head=True), GateRules())
    assert three.verdict == FAIL
    assert recheck_ids(three) == ("auth-expiry",)
    # 2 of 3 failed; the reruns pass twice and fail once: 3 of 6 is no majority
    reruns = [head_results(), head_results(), head_results(broken)]
    rechecked = with_rechecks(three, tally_rechecks(three, ("auth-expiry",), reruns))
    assert rechecked.verdict == WARN
    assert _diff(rechecked, "auth-expiry").recheck == Recheck(3, 6)
    assert "failed 3 of 6 runs" in render_comment(rechecked)


def test_rechecks_of_a_repeated_question_tally_its_runs_and_the_reruns() -> None:
    broken = {"auth-expiry": 0}
    comparison = compare(_runs({}, {}), _runs(broken, {}, head=True), GateRules())
    reruns = [head_results(), head_results(broken), combine_repeats([head_results()] * 2)]
    tallies = tally_rechecks(comparison, ("auth-expiry",), reruns)
    assert tallies == {"auth-expiry": Recheck(2, 6)}  # 1 of 2, then 0, 1 and 0 of 2
    assert with_rechecks(comparison, tallies).verdict == WARN


def test_the_baseline_asked_once_and_the_head_three_times_are_still_compared() -> None:
    comparison = compare(
        results(), _runs({"retry-429": 0}, {"retry-429": 0}, {}, head=True), GateRules()
    )
    assert comparison.n_paired == 8
    assert _diff(comparison, "retry-429").kind == NEWLY_FAILING
    assert _diff(comparison, "retry-429").baseline_runs is None
    repeats = comparison.repeats
    assert repeats.baseline_runs == (1, 1)
    assert not repeats.flakiness_known
    assert repeats.baseline_classes is None
    hit = next(m for m in comparison.metrics if m.name == "hit_rate@3")
    assert "sign-flip" in hit.test  # per-question rates: the sign-flip test, not McNemar
    comment = render_comment(comparison)
    assert "The baseline asked each question once, this run 3 times: still comparable" in comment
    assert "became flaky" not in comment


def test_the_cost_line_counts_the_calls_and_the_system_time_from_the_results() -> None:
    comparison = compare(results(), _runs({}, {}, {}, head=True), GateRules())
    assert comparison.repeats.head_calls == 24
    # latencies 100, 110, ... 170 ms per question (compare_cases.records), three runs each
    assert comparison.repeats.head_system_ms == 3 * sum(100.0 + 10 * i for i in range(8))
    assert "Each question asked 3 times: 24 system calls, 3s of system time." in render_comment(
        comparison
    )
    assert "Each question asked 3 times: 24 system calls" in comparison_terminal(comparison)


def test_unrepeated_results_give_the_same_comparison_as_before_repeats() -> None:
    baseline, head = results(), head_results({"auth-expiry": 0, "retry-429": 0})
    assert combine_repeats([head]) is head
    comparison = compare(baseline, head, GateRules())
    assert comparison.repeats is None
    assert all(q.head_runs is None and q.baseline_runs is None for q in comparison.questions)
    data = json.loads(comparison_json(comparison))
    assert "repeats" not in data
    assert all("head_runs" not in q and "baseline_runs" not in q for q in data["question_changes"])
    assert "asked" not in render_comment(comparison)


def test_the_json_holds_the_tallies_classes_and_flakiness_changes() -> None:
    data = json.loads(comparison_json(compare(*case_repeats())))
    assert data["repeats"]["head_runs"] == {"min": 3, "max": 3}
    assert data["repeats"]["head_calls"] == 24
    assert data["repeats"]["head_classes"] == {"stable_pass": 5, "flaky": 3, "stable_fail": 0}
    assert data["repeats"]["became_flaky"] == ["auth-expiry", "limit-per-minute", "page-size"]
    assert data["repeats"]["became_stable"] == ["retry-429"]
    auth = next(q for q in data["question_changes"] if q["id"] == "auth-expiry")
    assert auth["head_runs"] == {"passed": 1, "runs": 3, "errored": 0, "class": "flaky"}
    assert auth["baseline_runs"] == {"passed": 3, "runs": 3, "errored": 0, "class": "stable_pass"}


def test_question_ids_in_the_flakiness_lists_are_escaped() -> None:
    hostile = "q1 **bold** <img src=x> @team"
    baseline = _renamed(_runs({}, {}, {}), hostile)
    head = _renamed(_runs({}, {"retry-429": 0}, {}, head=True), hostile)
    comparison = compare(baseline, head, GateRules())
    assert comparison.repeats.became_flaky == (hostile,)
    comment = render_comment(comparison)
    assert hostile not in comment
    assert "<img" not in comment
    assert "\\*\\*bold\\*\\*" in comment
    command = "::warning::x"
    terminal = comparison_terminal(
        compare(
            _renamed(_runs({}, {}, {}), command),
            _renamed(_runs({}, {"retry-429": 0}, {}, head=True), command),
            GateRules(),
        )
    )
    assert "became flaky" in terminal
    assert command not in terminal


def _renamed(combined: Results, new_id: str) -> Results:
    questions = tuple(
        replace(q, id=new_id) if q.id == "retry-429" else q for q in combined.questions
    )
    return replace(combined, questions=questions)


def test_same_repeated_inputs_give_byte_identical_verdict_comment_and_json() -> None:
    first, second = compare(*case_repeats()), compare(*case_repeats())
    assert render_comment(first) == render_comment(second)
    assert comparison_json(first) == comparison_json(second)
    assert comparison_terminal(first) == comparison_terminal(second)


def test_question_order_in_the_files_does_not_change_the_verdict_or_comment() -> None:
    baseline, head, rules = case_repeats()
    expected = compare(baseline, head, rules)
    for seed in range(3):
        shuffled = compare(_shuffled(baseline, seed), _shuffled(head, seed + 10), rules)
        assert shuffled.verdict == expected.verdict
        assert render_comment(shuffled) == render_comment(expected)
        assert comparison_json(shuffled) == comparison_json(expected)


def _shuffled(combined: Results, seed: int) -> Results:
    questions = list(combined.questions)
    random.Random(seed).shuffle(questions)
    return replace(combined, questions=tuple(questions))


def test_ragguard_compare_reads_repeated_results_files(tmp_path: Path) -> None:
    baseline, head, _ = case_repeats()
    write_results(baseline, tmp_path / "baseline.json")
    write_results(head, tmp_path / "head.json")
    outcome = CliRunner().invoke(
        cli,
        [
            "compare",
            str(tmp_path / "baseline.json"),
            str(tmp_path / "head.json"),
            "--json",
            str(tmp_path / "comparison.json"),
        ],
    )
    assert outcome.exit_code == 1, outcome.output
    assert "Each question asked 3 times: 24 system calls" in outcome.output
    assert "auth-expiry (critical) (failed 2 of 3 runs)" in outcome.output
    assert "3 questions became flaky: auth-expiry, limit-per-minute, page-size" in outcome.output
    saved = json.loads((tmp_path / "comparison.json").read_text(encoding="utf-8"))
    assert saved["repeats"]["became_stable"] == ["retry-429"]


def test_a_relabelled_repeated_question_is_tallied_on_its_rescored_shown_run() -> None:
    baseline = _runs({}, {"retry-429": 0}, {})
    head = _relabel(_runs({}, {}, {}, head=True), "retry-429")
    comparison = compare(baseline, head, GateRules())
    diff = _diff(comparison, "retry-429")
    assert diff.relabelled
    assert diff.baseline_runs is None  # the runs' rankings are not kept: one run re-scored


def _relabel(combined: Results, question_id: str) -> Results:
    questions = tuple(
        replace(q, fingerprint="new") if q.id == question_id else q for q in combined.questions
    )
    return replace(combined, questions=questions)


def test_power_sizes_repeated_hit_rates_from_the_spread_of_their_deltas() -> None:
    baseline = _runs({}, {"retry-429": 0}, {"page-size": 0})
    head = _runs({"retry-429": 0}, {"page-size": 0}, {"auth-token": 0}, head=True)
    comparison = compare(baseline, head, GateRules())
    found = next(f for f in comparison.power if f.metric == "hit_rate@3")
    deltas = [
        h.metrics["hit_rate@3"] - baseline.by_id[h.id].metrics["hit_rate@3"] for h in head.questions
    ]
    mean = sum(deltas) / len(deltas)
    spread = (sum((d - mean) ** 2 for d in deltas) / (len(deltas) - 1)) ** 0.5
    assert not found.noise.binary  # rates: the sign-flip test's noise, not a discordance
    assert found.noise.spread == pytest.approx(spread)


def test_without_a_baseline_a_repeated_run_shows_its_cost_and_classes() -> None:
    comparison = compare(
        None, _runs({"retry-429": 0}, {"retry-429": 0}, {}, head=True), GateRules()
    )
    assert comparison.repeats.baseline_runs is None
    assert not comparison.repeats.flakiness_known
    comment = render_comment(comparison)
    assert "Each question asked 3 times: 24 system calls" in comment
    assert "Questions in this run: 7 stable pass, 1 flaky, 0 stable fail." in comment
    assert "**retry\\-429** _(failed 2 of 3 runs)_" in comment


def test_junit_lists_a_tied_critical_question_as_flaky_not_as_a_failure() -> None:
    comparison = compare(_runs({}, {}), _runs({"auth-expiry": 0}, {}, head=True), GateRules())
    junit = comparison_junit(comparison)
    assert "flaky critical questions, not regressions: auth-expiry (failed 1 of 2 runs)" in junit
    assert "critical questions newly fail" not in junit


def test_a_fixed_repeated_question_carries_no_failure_tally() -> None:
    baseline = _runs({"retry-429": 0}, {"retry-429": 0}, {})
    comparison = compare(baseline, _runs({}, {"retry-429": 0}, {}, head=True), GateRules())
    assert _diff(comparison, "retry-429").kind == FIXED
    fixed_line = next(
        line
        for line in render_comment(comparison).splitlines()
        if "retry" in line and line.startswith("- ")
    )
    assert "failed" not in fixed_line
    assert "flaky" not in fixed_line
