"""`ragguard power`: the detectable drop per gated metric, from one run or a comparison."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from tests.compare_cases import head_results, results

from ragguard.cli.app import cli
from ragguard.results.io import write_results
from ragguard.scoring.repeats import combine_repeats


def _power(*args: object) -> tuple[int, str]:
    outcome = CliRunner().invoke(cli, ["power", *map(str, args)])
    return outcome.exit_code, outcome.output


def test_power_of_one_run_says_the_noise_is_assumed(tmp_path: Path) -> None:
    path = write_results(head_results({"q2": 0, "q5": 3}), tmp_path / "head.json")
    code, output = _power(path)
    assert code == 0, output
    assert "noise assumed from this run alone" in output
    assert "hit_rate@1" in output
    assert "not the 0.05 their gate rules ask for" in output  # eight questions see no 0.05 drop


def test_power_of_a_comparison_measures_the_noise(tmp_path: Path) -> None:
    baseline = write_results(results(), tmp_path / "baseline.json")
    head = write_results(head_results({"q2": 0}), tmp_path / "head.json")
    code, output = _power(head, "--baseline", baseline)
    assert code == 0, output
    assert "noise measured from the comparison" in output


def test_power_with_a_missing_baseline_is_a_one_line_error(tmp_path: Path) -> None:
    head = write_results(head_results(), tmp_path / "head.json")
    code, output = _power(head, "--baseline", tmp_path / "nope.json")
    assert code == 2
    assert "nope.json" in output
    assert "Traceback" not in output


def test_power_of_a_repeated_run_measures_the_noise_between_its_runs(tmp_path: Path) -> None:
    runs = [head_results(), head_results({"retry-429": 0}), head_results({"page-size": 4})]
    path = write_results(combine_repeats(runs), tmp_path / "head.json")
    code, output = _power(path)
    assert code == 0, output
    assert "noise measured from this run's repeats" in output
    assert "noise assumed" not in output


def test_power_against_another_suites_baseline_is_a_one_line_error(tmp_path: Path) -> None:
    """It measured the noise against any suite's results and exited 0."""
    from dataclasses import replace

    baseline = write_results(replace(results(), suite="other"), tmp_path / "baseline.json")
    head = write_results(head_results(), tmp_path / "head.json")
    done = CliRunner().invoke(cli, ["power", str(head), "--baseline", str(baseline)])
    assert done.exit_code == 2
    assert "baseline.json: suite 'other', but the results' is" in done.output
    assert "same suite" in done.output
