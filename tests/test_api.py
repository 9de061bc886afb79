"""The Python API (ragguard.api) and the test-suite gate (ragguard.testing): the same results,
verdicts and one-line errors as the CLI, and a team's own pytest failing as the gate would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from compare_cases import head_results, results
from ragguard import api
from ragguard.core.errors import InputError
from ragguard.demo.scaffold import write_starter_suite
from ragguard.results.io import load_results, write_results
from ragguard.testing import assert_gate

TESTSET = """\
- id: q1
  question: How do I authenticate?
  relevant: {auth: 2, errors: 1}
  reference_answer: Send the token in the Authorization header.
- id: q2
  question: How many requests per minute?
  relevant: [rate-limits]
"""
RUN = """\
{"id": "q1", "retrieved": [{"id": "errors", "text": "Errors are JSON."}, {"id": "auth", "text": "Send the token in the Authorization header."}], "answer": "Send the token in the Authorization header."}
{"id": "q2", "retrieved": [{"id": "rate-limits", "text": "100 requests per minute."}], "answer": "100 requests per minute."}
"""


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Path, Path]:
    testset = tmp_path / "testset.yaml"
    run = tmp_path / "run.jsonl"
    testset.write_text(TESTSET, encoding="utf-8")
    run.write_text(RUN, encoding="utf-8")
    return testset, run


def test_score_gives_the_numbers_ragguard_score_writes(ragguard_cli, recorded, tmp_path) -> None:
    testset, run = recorded
    metrics = ["hit_rate@1", "mrr", "ndcg@3", "faithfulness", "answer_f1"]
    scored = api.score(testset, run, metrics)
    out = tmp_path / "cli.json"
    done = ragguard_cli(
        "score", "--testset", testset, "--run", run, "--metrics", ",".join(metrics), "--out", out
    )
    assert done.exit_code == 0, done.output
    cli = load_results(out)
    # faithfulness brings hallucination_free (from the same sentence verdicts) right after it
    listed = ("hit_rate@1", "mrr", "ndcg@3", "faithfulness", "hallucination_free", "answer_f1")
    assert scored.metrics == cli.metrics == listed
    for name in metrics:
        assert scored.summary[name].value == cli.summary[name].value, name
    assert scored.summary["mrr"].value == 1.0  # q1: "errors" (grade 1) is relevant at rank 1
    assert scored.summary["ndcg@3"].value < 1.0  # but the grade-2 chunk is second


def test_score_errors_are_the_clis_one_line_errors(recorded) -> None:
    testset, run = recorded
    with pytest.raises(InputError, match="unknown metric"):
        api.score(testset, run, "hit_rate@1,precison@3")
    with pytest.raises(InputError, match="not found"):
        api.score(testset.with_name("missing.yaml"), run)


def test_run_runs_the_suite_like_ragguard_run(tmp_path: Path) -> None:
    write_starter_suite(tmp_path / "ragguard.yml", workflows_dir=None)
    ran = api.run(tmp_path / "ragguard.yml")
    assert [q.id for q in ran.questions] == ["refund-time", "express-shipping", "return-window"]
    assert ran.summary["hit_rate@1"].value == 1.0
    assert "faithfulness" in ran.summary


def test_run_takes_repeat_as_the_cli_does(tmp_path: Path) -> None:
    write_starter_suite(tmp_path / "ragguard.yml", workflows_dir=None)
    ran = api.run(tmp_path / "ragguard.yml", repeat=2)
    assert {len(question.repeats) for question in ran.questions} == {2}
    assert ran.summary["hit_rate@1"].value == 1.0
    with pytest.raises(InputError, match=r"repeat: expected a whole number .* found 0"):
        api.run(tmp_path / "ragguard.yml", repeat=0)


def test_load_reads_results_and_stored_baselines(tmp_path: Path) -> None:
    from ragguard.github.databranch import baseline_document, encode_document

    write_results(results(), tmp_path / "plain.json")
    data = "".join(results().json_chunks()).encode()
    document = baseline_document("orders-api", "main", "abc", data, "2026-11-28T10:00:00+00:00")
    (tmp_path / "stored.json").write_bytes(encode_document(document))
    assert (
        api.load(tmp_path / "plain.json").questions == api.load(tmp_path / "stored.json").questions
    )


def test_compare_reads_the_local_config_unless_told(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "testset.yaml").write_text("- id: q1\n  question: Q?\n  relevant: [a]\n")
    (tmp_path / "ragguard.yml").write_text(
        "suite: s\ntestset: testset.yaml\nsystem: {recorded: testset.yaml}\n"
        "gate: {metrics: {mrr: {max_drop: 0.01, alpha: off}}}\n"
    )
    head = head_results({"retry-429": 2})
    assert api.compare(results(), head).verdict == "fail"  # ./ragguard.yml: mrr may not drop
    assert api.compare(results(), head, config=False).verdict == "pass"  # the defaults
    assert api.compare(None, head).baseline_missing


def test_report_renders_the_three_forms() -> None:
    comparison = api.compare(results(), head_results(), config=False)
    assert api.report(comparison).startswith("ragguard compare · suite orders-api: PASS")
    assert "**pass** · no change" in api.report(comparison, "comment")
    assert "All 8 questions" in api.report(comparison, "summary")
    with pytest.raises(InputError, match="unknown kind"):
        api.report(comparison, "html")  # type: ignore[arg-type]


def test_assert_gate_passes_a_pass_and_fails_a_regression() -> None:
    assert assert_gate(results(), head_results(), config=False).verdict == "pass"
    with pytest.raises(AssertionError) as caught:
        assert_gate(results(), head_results({"auth-expiry": 0}), config=False)
    first, blank, report = str(caught.value).split("\n", 2)
    assert (first, blank) == ("FAIL: auth-expiry: critical question newly fails", "")
    assert report.startswith("ragguard compare · suite orders-api: FAIL")


def test_a_teams_own_pytest_fails_as_the_gate_would(tmp_path: Path) -> None:
    """The helper inside a user's test file, run by pytest as their CI would."""
    write_results(results(), tmp_path / "baseline.json")
    write_results(head_results({"auth-expiry": 0, "retry-429": 4}), tmp_path / "head.json")
    write_results(head_results(), tmp_path / "same.json")
    (tmp_path / "test_quality.py").write_text(
        "from ragguard.testing import assert_gate\n\n"
        "def test_unchanged():\n"
        "    assert_gate('baseline.json', 'same.json')\n\n"
        "def test_regressed():\n"
        "    assert_gate('baseline.json', 'head.json')\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=j.xml",
         "test_quality.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout
    assert "1 failed, 1 passed" in done.stdout
    assert "auth-expiry: critical question newly fails" in done.stdout
    junit = (tmp_path / "j.xml").read_text(encoding="utf-8")
    assert 'failures="1"' in junit and "FAIL: auth-expiry: critical question newly fails" in junit
    assert json.dumps("test_regressed")[1:-1] in junit


def test_the_documented_names_import_from_where_docs_api_md_says(tmp_path) -> None:
    """docs/api.md: InputError from ragguard.errors, Results from ragguard.results,
    Comparison from ragguard.compare; the API raises the documented InputError."""
    from ragguard.compare import Comparison
    from ragguard.errors import InputError
    from ragguard.results import QuestionResult, Results

    assert (Results.__name__, QuestionResult.__name__, Comparison.__name__) == (
        "Results",
        "QuestionResult",
        "Comparison",
    )
    with pytest.raises(InputError):
        api.load(tmp_path / "missing.json")


def test_run_with_a_folder_for_its_log_is_the_documented_input_error(tmp_path: Path) -> None:
    """It raised IsADirectoryError after the run started."""
    from ragguard.errors import InputError

    write_starter_suite(tmp_path / "ragguard.yml", workflows_dir=None)
    folder = tmp_path / "logs"
    folder.mkdir()
    with pytest.raises(InputError, match="is a directory; give a file name"):
        api.run(tmp_path / "ragguard.yml", log=folder)
