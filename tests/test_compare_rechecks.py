"""compare/rechecks.py: which questions are rechecked, the tally and the verdict with it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from compare_cases import head_results, results
from ragguard.cli.app import cli
from ragguard.compare import Comparison, compare
from ragguard.compare.model import Recheck
from ragguard.compare.rechecks import recheck_ids, tally_rechecks, with_rechecks
from ragguard.config.sections.gate import GateRules
from ragguard.render import render_comment
from ragguard.results.io import write_results

# auth-expiry is critical; retry-429 is not. Rank 0: the relevant chunk is not retrieved.
FAILING = {"auth-expiry": 0, "retry-429": 0}


def _comparison(rules: GateRules | None = None) -> Comparison:
    return compare(results(), head_results(FAILING), rules or GateRules())


def test_only_newly_failing_critical_questions_are_rechecked_by_default() -> None:
    assert recheck_ids(_comparison()) == ("auth-expiry",)


def test_recheck_all_rechecks_every_newly_failing_question() -> None:
    ids = recheck_ids(_comparison(GateRules(recheck_all=True)))
    assert sorted(ids) == ["auth-expiry", "retry-429"]


def test_recheck_0_rechecks_nothing() -> None:
    assert recheck_ids(_comparison(GateRules(recheck=0, recheck_all=True))) == ()


def test_the_tally_counts_the_first_run_and_every_rerun_failing() -> None:
    comparison = _comparison()
    passing, failing = head_results(), head_results(FAILING)
    missing = replace(passing, questions=())  # a rerun without the question counts as failed
    tallies = tally_rechecks(comparison, ("auth-expiry",), [passing, failing, missing])
    assert tallies == {"auth-expiry": Recheck(3, 4)}


def test_a_flaky_critical_question_warns_and_a_majority_failure_blocks() -> None:
    comparison = _comparison()
    assert comparison.verdict == "fail"
    flaky = with_rechecks(comparison, {"auth-expiry": Recheck(2, 4)})
    assert flaky.verdict == "warn"
    assert [(r.tier, r.text) for r in flaky.reasons if r.subject == "auth-expiry"] == [
        ("warn", "critical question is flaky: failed 2 of 4 runs")
    ]
    broken = with_rechecks(comparison, {"auth-expiry": Recheck(3, 4)})
    assert broken.verdict == "fail"
    assert [(r.tier, r.text) for r in broken.reasons if r.subject == "auth-expiry"] == [
        ("fail", "critical question newly fails: failed 3 of 4 runs")
    ]


def test_one_run_is_never_flaky() -> None:
    assert not Recheck(1, 1).flaky
    assert Recheck(1, 2).flaky  # a tie is no majority
    assert not Recheck(2, 3).flaky


def test_the_comment_shows_the_flaky_critical_question() -> None:
    body = render_comment(with_rechecks(_comparison(), {"auth-expiry": Recheck(1, 4)}))
    assert "1 flaky critical question" in body
    assert "**auth\\-expiry** _(critical)_ _(flaky: failed 1 of 4 runs)_" in body
    assert "is flaky (failed 1 of 4 runs), not counted as a regression" in body


def test_ragguard_compare_says_it_cannot_recheck(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # no ragguard.yml here: the default gate (recheck 3)
    write_results(results(), tmp_path / "baseline.json")
    write_results(head_results(FAILING), tmp_path / "head.json")
    done = CliRunner().invoke(cli, ["compare", "baseline.json", "head.json"])
    assert done.exit_code == 1
    assert done.stderr.splitlines()[-1] == (
        "ragguard: not rechecked (compare reads results files; `ragguard ci` reruns them, "
        "gate.recheck): auth-expiry"
    )


def test_junit_does_not_fail_the_critical_case_for_a_flaky_question() -> None:
    from ragguard.render.junit import comparison_junit

    flaky = comparison_junit(with_rechecks(_comparison(), {"auth-expiry": Recheck(1, 4)}))
    case = flaky.split('name="gate.critical_questions"', 1)[1].split("</testcase>", 1)[0]
    assert "<failure" not in case
    assert "flaky critical questions, not regressions: auth-expiry (failed 1 of 4 runs)" in case
    broken = comparison_junit(with_rechecks(_comparison(), {"auth-expiry": Recheck(3, 4)}))
    case = broken.split('name="gate.critical_questions"', 1)[1].split("</testcase>", 1)[0]
    assert '<failure message="critical questions newly fail: auth-expiry"' in case
