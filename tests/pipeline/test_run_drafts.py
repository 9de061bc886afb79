"""Drafted questions are left out of a run unless it includes them (pipeline.drafts)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from ragguard import api
from ragguard.results.io import load_results

TESTSET = """\
- id: auth
  question: How do I authenticate?
  relevant: [authentication]
- id: drafted
  question: What does a drafted question ask?
  relevant: [nowhere]
  kind: single-hop
  source: limits.md
  status: draft
- id: rate
  question: How many requests per minute?
  relevant: [rate-limits]
  status: reviewed
"""

ANSWERS = {
    "auth": ["authentication"],
    "drafted": ["elsewhere"],
    "rate": ["rate-limits"],
}


def _run_file(folder: Path, ids: list[str]) -> Path:
    path = folder / "run.jsonl"
    lines = [json.dumps({"id": i, "retrieved": ANSWERS[i], "answer": "a"}) for i in ids]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "testset.yaml").write_text(TESTSET)
    return tmp_path


def test_score_leaves_the_draft_out_and_takes_the_runs_answer_to_it(folder, ragguard_cli):
    run = _run_file(folder, ["auth", "drafted", "rate"])
    out = folder / "results.json"
    result = ragguard_cli(
        "score", "--testset", folder / "testset.yaml", "--run", run,
        "--metrics", "hit_rate@1", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert [q.id for q in load_results(out).questions] == ["auth", "rate"]
    assert load_results(out).summary["hit_rate@1"].value == 1.0
    assert result.stderr == (
        "ragguard: 1 drafted question left out (review them with `ragguard testset review`; "
        "--include-drafts runs them)\n"
    )


def test_score_include_drafts_scores_the_draft_as_an_ordinary_question(folder, ragguard_cli):
    run = _run_file(folder, ["auth", "drafted", "rate"])
    out = folder / "results.json"
    result = ragguard_cli(
        "score", "--testset", folder / "testset.yaml", "--run", run,
        "--metrics", "hit_rate@1", "--out", out, "--include-drafts",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    results = load_results(out)
    assert [q.id for q in results.questions] == ["auth", "drafted", "rate"]
    assert results.summary["hit_rate@1"].value == pytest.approx(2 / 3)
    assert "left out" not in result.stderr


def test_a_run_without_the_drafts_answer_is_complete(folder, ragguard_cli):
    run = _run_file(folder, ["auth", "rate"])
    result = ragguard_cli("score", "--testset", folder / "testset.yaml", "--run", run)
    assert result.exit_code == 0, result.output
    assert "2 questions" in result.stdout


def test_a_test_set_of_drafts_alone_is_an_error(tmp_path, cli_error):
    (tmp_path / "t.yaml").write_text(
        "- id: only\n  question: Q?\n  relevant: [c]\n  status: draft\n"
    )
    run = tmp_path / "run.jsonl"
    run.write_text('{"id": "only", "retrieved": ["c"]}\n')
    cli_error(
        ["score", "--testset", tmp_path / "t.yaml", "--run", run],
        "t.yaml:",
        "every question is a draft (1)",
        "--include-drafts",
    )


def _python_suite(folder: Path) -> tuple[Path, Path]:
    """A suite whose python system writes down every question it is asked."""
    asked = folder / "asked.txt"
    module = f"rag_{uuid.uuid4().hex[:10]}"
    (folder / f"{module}.py").write_text(
        "ANSWERS = " + repr(ANSWERS) + "\n"
        "def answer(question, id):\n"
        f"    with open({str(asked)!r}, 'a') as f:\n"
        "        f.write(id + '\\n')\n"
        "    return {'retrieved': ANSWERS[id], 'answer': 'a'}\n"
    )
    config = folder / "ragguard.yml"
    config.write_text(
        f"suite: drafts\ntestset: testset.yaml\nsystem:\n  python: {module}:answer\n"
        "metrics: [hit_rate@1]\n"
    )
    return config, asked


def test_run_does_not_ask_the_system_a_draft(folder, ragguard_cli, monkeypatch):
    monkeypatch.syspath_prepend(str(folder))
    config, asked = _python_suite(folder)
    out = folder / "out.json"
    result = ragguard_cli("run", "-c", config, "--out", out)
    assert result.exit_code == 0, result.output
    assert sorted(asked.read_text().split()) == ["auth", "rate"]
    assert [q.id for q in load_results(out).questions] == ["auth", "rate"]
    assert "1 drafted question left out" in result.stderr


def test_run_include_drafts_asks_it(folder, ragguard_cli, monkeypatch):
    monkeypatch.syspath_prepend(str(folder))
    config, asked = _python_suite(folder)
    out = folder / "out.json"
    result = ragguard_cli("run", "-c", config, "--out", out, "--include-drafts")
    assert result.exit_code == 0, result.output
    assert sorted(asked.read_text().split()) == ["auth", "drafted", "rate"]
    assert load_results(out).summary["hit_rate@1"].value == pytest.approx(2 / 3)


def test_the_api_leaves_drafts_out_unless_asked(folder):
    run = _run_file(folder, ["auth", "drafted", "rate"])
    testset = folder / "testset.yaml"
    assert [q.id for q in api.score(testset, run).questions] == ["auth", "rate"]
    included = api.score(testset, run, include_drafts=True)
    assert [q.id for q in included.questions] == ["auth", "drafted", "rate"]


def test_a_recorded_system_that_answered_the_draft_is_not_refused(folder, ragguard_cli):
    _run_file(folder, ["auth", "drafted", "rate"])
    config = folder / "ragguard.yml"
    config.write_text(
        "suite: drafts\ntestset: testset.yaml\nsystem:\n  recorded: run.jsonl\n"
        "metrics: [hit_rate@1]\n"
    )
    out = folder / "out.json"
    result = ragguard_cli("run", "-c", config, "--out", out)
    assert result.exit_code == 0, result.output
    assert [q.id for q in load_results(out).questions] == ["auth", "rate"]


def test_a_resumed_run_counts_only_the_reviewed_questions(folder, ragguard_cli, monkeypatch):
    monkeypatch.syspath_prepend(str(folder))
    config, asked = _python_suite(folder)
    out = folder / "out.json"
    (folder / "out.run.jsonl").write_text(
        json.dumps({"id": "auth", "retrieved": ["authentication"], "answer": "a"}) + "\n"
    )
    result = ragguard_cli("run", "-c", config, "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert "resuming: 1 of 2 questions already done" in result.stderr
    assert asked.read_text().split() == ["rate"]


def test_an_estimate_does_not_ask_the_system_a_draft(folder, ragguard_cli, monkeypatch):
    monkeypatch.syspath_prepend(str(folder))
    config, asked = _python_suite(folder)
    result = ragguard_cli("run", "-c", config, "--out", folder / "out.json", "--estimate")
    assert result.exit_code == 0, result.output
    assert sorted(asked.read_text().split()) == ["auth", "rate"]
    assert "1 drafted question left out" in result.stderr
    asked.unlink()
    flags = ("--estimate", "--include-drafts")
    result = ragguard_cli("run", "-c", config, "--out", folder / "all.json", *flags)
    assert result.exit_code == 0, result.output
    assert sorted(asked.read_text().split()) == ["auth", "drafted", "rate"]
