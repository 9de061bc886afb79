"""The judge (an OpenAI-compatible server on loopback) failing: a fault that passes is retried
and leaves no trace; one that persists makes each affected question a ``judge_error`` that is
recorded, scored 0 (never NaN, never dropped), reported, and never shown as a pass."""

from __future__ import annotations

import json
import math
import socket
from pathlib import Path

import pytest
from fake_github import FakeGitHub, Repo
from fake_openai import FakeOpenAI
from faults_fixtures import (
    SUITE,
    ci_collaborators,
    ci_settings,
    comments_on,
    left_behind,
    open_pull,
    pull_event,
    statuses_of,
    write_suite,
)

from ragguard.ci.glue import run_ci
from ragguard.compare import compare
from ragguard.config.sections.gate import default_gate_rules
from ragguard.core.exits import EXIT_ERROR
from ragguard.judge.client import JudgeClient
from ragguard.metrics.names import parse_metric_list
from ragguard.metrics.settings import GenerationSettings, JudgeSettings
from ragguard.render import render_comment
from ragguard.results.chunks import Chunk
from ragguard.results.model import Results
from ragguard.results.records import RunRecord
from ragguard.scoring.score import score_run
from ragguard.testset.model import Question, TestSet

PASSAGE = "Each API key may send 100 requests per minute. Extra requests return status 429."
ANSWERS = {
    "rpm": "Each API key may send 100 requests per minute.",
    "over": "Extra requests return status 429.",
}
METRICS = parse_metric_list("hit_rate@1,faithfulness,answer_relevance")
TIMEOUT = 0.2  # the judge's timeout here; a "hang" answers after HANG_SECONDS
HANG_SECONDS = 0.5

# fault name -> the fake server's behaviour (None: nothing listens on the port)
FAULTS: dict[str, str | None] = {
    "500": "500",
    "503": "503",
    "429-retry-after": "429",
    "timeout": "hang",
    "malformed-json": "non_json",
    "truncated-json": "truncated",
    "connection-refused": None,
}


def two_questions() -> TestSet:
    return TestSet(
        tuple(Question(qid, "How many requests per minute?", {"rate-limits": 1}) for qid in ANSWERS)
    )


def records() -> dict[str, RunRecord]:
    return {
        qid: RunRecord(qid, (Chunk("rate-limits", PASSAGE),), answer)
        for qid, answer in ANSWERS.items()
    }


def judge_at(base_url: str, max_retries: int = 2) -> GenerationSettings:
    settings = JudgeSettings(
        base_url, "m", cache_dir=None, max_retries=max_retries, timeout=TIMEOUT
    )
    return GenerationSettings("judge", 0.75, "judge", "judge", settings)


def judged(base_url: str, max_retries: int = 2) -> Results:
    """Score the two answers with the judge at ``base_url``, without sleeping between retries."""
    generation = judge_at(base_url, max_retries)
    client = JudgeClient(generation.judge, sleep=lambda seconds: None)
    return score_run(
        two_questions(), records(), METRICS, suite="t", generation=generation, judge=client,
        created_at="fixed",
    )  # fmt: skip


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def assert_finite(results: Results) -> None:
    data = json.loads(results.to_json())
    for entry in data["questions"]:
        assert all(math.isfinite(value) for value in entry["metrics"].values()), entry
    for name, summary in data["summary"].items():
        assert summary["value"] is not None and math.isfinite(summary["value"]), name


@pytest.fixture(scope="module")
def healthy() -> Results:
    with FakeOpenAI() as server:
        return judged(server.base_url)


@pytest.mark.parametrize("fault", [name for name, how in FAULTS.items() if how is not None])
def test_a_judge_fault_that_passes_leaves_no_trace(healthy: Results, fault: str) -> None:
    behaviour = FAULTS[fault]
    assert behaviour is not None
    with FakeOpenAI(script=[behaviour], retry_after=0, hang_seconds=HANG_SECONDS) as server:
        results = judged(server.base_url)
        assert server.calls == len(ANSWERS) + 1  # one answer needed a second request

    assert results.questions == healthy.questions
    assert {entry.status for entry in results.questions} == {"ok"}


@pytest.mark.parametrize("fault", FAULTS)
def test_a_judge_fault_that_persists_is_a_judge_error_per_question_never_a_pass(
    fault: str,
) -> None:
    behaviour = FAULTS[fault]
    if behaviour is None:
        results = judged(closed_port_url())
    else:
        with FakeOpenAI(default=behaviour, retry_after=0, hang_seconds=HANG_SECONDS) as server:
            results = judged(server.base_url)

    assert [entry.id for entry in results.questions] == list(ANSWERS)  # none dropped
    for entry in results.questions:
        assert entry.status == "judge_error", entry
        assert entry.error is not None and entry.error.startswith("judge: ")
        assert entry.metrics["faithfulness"] == 0.0
        assert entry.metrics["hit_rate@1"] == 1.0  # retrieval does not need the judge
    assert_finite(results)
    assert results.counts["judge_error"] == len(ANSWERS)
    comparison = compare(None, results, default_gate_rules())
    assert comparison.verdict == "error" and comparison.blocks
    comment = render_comment(comparison)
    assert "**error**" in comment and "**pass**" not in comment
    assert f"Questions that could not be evaluated ({len(ANSWERS)})" in comment


def judged_suite(root: Path, base_url: str, max_retries: int) -> Path:
    """The faults suite with faithfulness judged by the server at ``base_url``."""
    suite = write_suite(root, metrics="[hit_rate@1, faithfulness]")
    config = suite / "ragguard.yml"
    config.write_text(
        config.read_text(encoding="utf-8")
        + "faithfulness: {method: judge}\n"
        + f"judge: {{base_url: '{base_url}', model: m, api_key_env: "
        + f"RAGGUARD_FAULTS_JUDGE_KEY, max_retries: {max_retries}, cache: false}}\n",
        encoding="utf-8",
    )
    return suite


def test_a_judge_that_keeps_failing_in_ci_ends_in_an_error_status_with_every_question_listed(
    fake: FakeGitHub,
    repo: Repo,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("RAGGUARD_FAULTS_JUDGE_KEY", "sk-faults")
    with FakeOpenAI(default="503") as server:
        suite = judged_suite(tmp_path / "repo", server.base_url, max_retries=1)
        number = open_pull(fake, repo)
        settings = ci_settings(fake, suite, "pull_request", pull_event(repo, number))
        outcome = run_ci(settings, ci_collaborators(settings, []))
        assert server.calls == 2 * 2  # two answers, each tried twice
    # the job log reports the judge's calls and tokens
    judge_line = [
        x for x in capsys.readouterr().err.splitlines() if x.startswith("ragguard: judge:")
    ]
    assert judge_line and "2 answers, 4 requests" in judge_line[0], judge_line

    assert (outcome.state, outcome.exit_code) == ("error", EXIT_ERROR)
    assert statuses_of(repo, repo.pulls[number].head_sha) == ["pending", "error"]
    left = left_behind(suite)
    assert left.results is not None
    assert [q["status"] for q in left.results["questions"]] == ["judge_error", "judge_error"]
    assert left.comment is not None and "Questions that could not be evaluated (2)" in left.comment
    [posted] = comments_on(repo, number)
    assert "HTTP 503" in posted and SUITE in posted
    assert "sk-faults" not in posted and "sk-faults" not in json.dumps(left.results)


def test_ragguard_run_with_every_answer_a_judge_error_is_an_untrusted_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: exit 3 covers too many system or judge errors; the run verdict counts the
    answers the judge could not judge (it said "ok: 0/2 questions failed" and exited 0)."""
    from click.testing import CliRunner

    from ragguard.cli.app import cli

    monkeypatch.setenv("RAGGUARD_FAULTS_JUDGE_KEY", "sk-faults")
    with FakeOpenAI(default="503") as server:
        suite = judged_suite(tmp_path / "repo", server.base_url, max_retries=0)
        monkeypatch.chdir(suite)
        done = CliRunner().invoke(cli, ["run", "--out", "results.json"])

    assert done.exit_code == EXIT_ERROR, done.output
    assert (
        "run verdict: error: 2/2 questions without a good answer (100.0%: 0 failed, "
        "2 not judged (judge errors)), above max_error_rate 5.0%"
    ) in done.output
    statuses = [q["status"] for q in json.loads((suite / "results.json").read_text())["questions"]]
    assert statuses == ["judge_error", "judge_error"]


def test_an_unset_judge_key_is_found_before_the_system_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was found once every question had been asked, with the records file left."""
    from click.testing import CliRunner

    from ragguard.cli.app import cli

    monkeypatch.delenv("RAGGUARD_FAULTS_JUDGE_KEY", raising=False)
    with FakeOpenAI() as server:
        suite = judged_suite(tmp_path / "repo", server.base_url, max_retries=0)
        monkeypatch.chdir(suite)
        done = CliRunner().invoke(cli, ["run", "--out", "results.json"])
        assert server.calls == 0

    assert done.exit_code == 2, done.output
    assert "judge.api_key_env: environment variable RAGGUARD_FAULTS_JUDGE_KEY is not set" in (
        done.output
    )
    assert not (suite / "results.run.jsonl").exists() and not (suite / "results.json").exists()
