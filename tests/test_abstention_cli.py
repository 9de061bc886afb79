"""Abstention by default (#29 item 5), end to end through the CLI: ``ragguard score`` of a
test set with an ``answerable: false`` question scores abstention without being asked, and
``ragguard compare`` fails the question the system now answers, with its why in the
terminal, the comment, the job summary and the JUnit XML."""

from __future__ import annotations

import json

from ragguard.render.questions import answered_unanswerable_text

TESTSET = """\
- id: rate-limit
  question: How many requests per minute are allowed?
  relevant: [rate-limits]
- id: salary
  question: What is the CEO's salary?
  answerable: false
  critical: true
"""
CHUNK = {"id": "rate-limits", "text": "Each API key may send 100 requests per minute."}
RATE_ANSWER = "Each API key may send 100 requests per minute."
REFUSAL = "I don't know; the documentation does not say."
MADE_UP = "The CEO earns 300,000 dollars a year."
PLAIN_WHY = answered_unanswerable_text(markdown=False)


def _run(write, name: str, salary_answer: str) -> str:
    records = [
        {"id": "rate-limit", "retrieved": [CHUNK], "answer": RATE_ANSWER},
        {"id": "salary", "retrieved": [CHUNK], "answer": salary_answer},
    ]
    return str(write(name, "".join(json.dumps(record) + "\n" for record in records)))


def _score(ragguard_cli, testset, run, out, *extra: str):
    result = ragguard_cli(
        "score", "--testset", testset, "--run", run, "--metrics", "hit_rate@3", "--out", out, *extra
    )
    assert result.exit_code == 0, result.stderr
    return json.loads(out.read_text(encoding="utf-8"))


def test_an_answered_unanswerable_question_fails_with_its_why(
    write, ragguard_cli, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # no ./ragguard.yml: the documented gate defaults
    testset = write("testset.yaml", TESTSET)
    baseline_out, head_out = tmp_path / "baseline.json", tmp_path / "head.json"
    baseline = _score(ragguard_cli, testset, _run(write, "base.jsonl", REFUSAL), baseline_out)
    head = _score(ragguard_cli, testset, _run(write, "head.jsonl", MADE_UP), head_out)
    assert baseline["metrics"] == ["hit_rate@3", "abstention"]
    assert baseline["summary"]["abstention"]["value"] == 1.0
    assert head["summary"]["abstention"]["value"] == 0.0

    comment, summary, junit = (tmp_path / n for n in ("comment.md", "summary.md", "junit.xml"))
    result = ragguard_cli(
        "compare", baseline_out, head_out, "--markdown", comment, "--summary", summary,
        "--junit", junit,
    )  # fmt: skip

    # like any newly failing question: critical, it blocks on its own
    assert result.exit_code == 1, result.stdout + result.stderr
    assert f"  salary (critical): What is the CEO's salary?\n    {PLAIN_WHY}\n" in result.stdout
    assert "newly failing (1):" in result.stdout
    markdown_why = answered_unanswerable_text()
    assert f"**salary** _(critical)_: What is the CEO's salary? — {markdown_why}" in (
        comment.read_text()
    )
    assert markdown_why in summary.read_text()
    assert f"abstention: {PLAIN_WHY}" in junit.read_text()


def test_a_refused_unanswerable_question_passes(write, ragguard_cli, tmp_path):
    testset = write("testset.yaml", TESTSET)
    baseline_out, head_out = tmp_path / "baseline.json", tmp_path / "head.json"
    _score(ragguard_cli, testset, _run(write, "base.jsonl", REFUSAL), baseline_out)
    _score(ragguard_cli, testset, _run(write, "head.jsonl", REFUSAL), head_out)
    result = ragguard_cli("compare", baseline_out, head_out)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "newly failing" not in result.stdout


def test_auto_false_scores_abstention_only_when_listed(write, ragguard_cli, tmp_path):
    testset = write("testset.yaml", TESTSET)
    config = write("ragguard.yml", "abstention: {auto: false}\n")
    run = _run(write, "run.jsonl", MADE_UP)
    off = _score(ragguard_cli, testset, run, tmp_path / "off.json", "--config", config)
    assert off["metrics"] == ["hit_rate@3"]
    assert "abstention" not in off["config"]
    listed = ragguard_cli(
        "score", "--testset", testset, "--run", run, "--metrics", "hit_rate@3,abstention",
        "--config", config, "--out", tmp_path / "listed.json",
    )  # fmt: skip
    assert listed.exit_code == 0, listed.stderr
    assert json.loads((tmp_path / "listed.json").read_text())["summary"]["abstention"]["n"] == 1


def test_a_run_without_answers_is_scored_on_retrieval_alone(write, ragguard_cli, tmp_path):
    testset = write("testset.yaml", TESTSET)
    run = write(
        "run.jsonl",
        json.dumps({"id": "rate-limit", "retrieved": ["rate-limits"]})
        + "\n"
        + json.dumps({"id": "salary", "retrieved": ["rate-limits"]})
        + "\n",
    )
    scored = _score(ragguard_cli, testset, run, tmp_path / "out.json")
    assert scored["metrics"] == ["hit_rate@3"]


def test_a_baseline_from_before_stays_comparable(write, ragguard_cli, tmp_path):
    """A baseline scored without abstention (before it was on by default, or with
    ``auto: false``): the head's abstention is only in the head, its settings do not make
    the runs incomparable, and the question is not judged by it."""
    testset = write("testset.yaml", TESTSET)
    config = write("ragguard.yml", "abstention: {auto: false}\n")
    before, head = tmp_path / "before.json", tmp_path / "head.json"
    _score(ragguard_cli, testset, _run(write, "b.jsonl", MADE_UP), before, "--config", config)
    _score(ragguard_cli, testset, _run(write, "h.jsonl", MADE_UP), head)
    result = ragguard_cli("compare", before, head, "--json", tmp_path / "c.json")
    assert result.exit_code == 0, result.stdout + result.stderr
    comparison = json.loads((tmp_path / "c.json").read_text())
    assert comparison["incomparable_settings"] == []
    assert "abstention" not in comparison["per_question_rule"]
