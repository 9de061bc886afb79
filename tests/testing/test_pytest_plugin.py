"""ragguard's pytest plugin (#28 item 9) in a user's own project, run by pytest as their CI
would (pytester, in a subprocess: the plugin comes in through the installed entry point)."""

from __future__ import annotations

import re

import pytest

from compare_cases import head_results, results
from ragguard.demo.scaffold import write_starter_suite
from ragguard.results.io import write_results

pytest_plugins = ["pytester"]

STRICT = ("-W", "error::pytest.PytestUnknownMarkWarning", "--strict-markers", "-p", "no:randomly")

SUITE_TESTS = """
import pytest


@pytest.mark.rag
def test_marked_by_hand():
    pass


def test_the_suite_runs_once(rag_results):
    assert rag_results.questions


def test_and_is_shared(rag_results):
    assert rag_results.suite
"""

GATE_TESTS = """
from ragguard.testing import assert_gate


def test_unchanged():
    assert_gate("baseline.json", "baseline.json", config=False)


def test_regressed(rag_results):
    assert_gate("baseline.json", rag_results, config=False)
"""


def test_the_rag_marker_is_registered_and_the_fixture_runs_the_suite(
    pytester: pytest.Pytester,
) -> None:
    write_starter_suite(pytester.path / "ragguard.yml", workflows_dir=None)
    pytester.makepyfile(test_quality=SUITE_TESTS)
    done = pytester.runpytest_subprocess(*STRICT, "-m", "rag")
    done.assert_outcomes(passed=3)
    assert "PytestUnknownMarkWarning" not in done.stdout.str()
    skipped = pytester.runpytest_subprocess(*STRICT, "-m", "not rag")
    skipped.assert_outcomes(deselected=3)  # the fixture's users are rag tests by themselves


def test_the_gate_fails_a_test_with_the_verdict_and_reasons_first(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # pytest cuts the short summary to the terminal
    write_results(results(), pytester.path / "baseline.json")
    write_results(head_results({"auth-expiry": 0}), pytester.path / "head.json")
    pytester.makepyfile(test_gate=GATE_TESTS)
    done = pytester.runpytest_subprocess(*STRICT, "-ra", "--rag-results", "head.json")
    done.assert_outcomes(passed=1, failed=1)
    out = done.stdout.str()
    summary = next(line for line in out.splitlines() if line.startswith("FAILED "))
    # the verdict and the reason first, where "AssertionError: ragg…" was all one saw
    assert summary.startswith("FAILED test_gate.py::test_regressed - AssertionError: FAIL: auth")
    frames = re.findall(r"^(\S+\.py):\d+: ", out, re.MULTILINE)
    assert frames == ["test_gate.py"]  # ragguard's own frames are hidden
    assert "E       AssertionError: FAIL: auth-expiry" in out
    assert "ragguard compare · suite orders-api: FAIL" in out  # the report follows


def test_rag_config_names_the_suite_the_fixture_runs(pytester: pytest.Pytester) -> None:
    write_starter_suite(pytester.path / "eval" / "suite.yml", workflows_dir=None)
    pytester.makepyfile(
        test_quality="def test_runs(rag_results):\n    assert rag_results.questions\n"
    )
    pytester.makeini("[pytest]\nrag_config = eval/suite.yml\n")
    pytester.runpytest_subprocess(*STRICT).assert_outcomes(passed=1)
