"""Scoring with the judge over real HTTP: end states per question, no NaN, the cached rerun
makes zero calls (counted at the server), and `ragguard score --judge` end to end."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI

from ragguard.judge.client import JudgeClient
from ragguard.metrics.names import parse_metric_list
from ragguard.metrics.settings import GenerationSettings, JudgeSettings
from ragguard.results.chunks import Chunk
from ragguard.results.records import RunRecord
from ragguard.scoring.score import score_run
from ragguard.testset.model import Question, TestSet

PASSAGE = (
    "Each API key may send 100 requests per minute. Extra requests return status 429 with a "
    "Retry-After header."
)
ANSWER = (
    "You can send 100 requests per minute per API key. Extra requests return status 429. "
    "Limits reset every hour."
)
KEY = "sk-judge-secret-42"
METRICS = parse_metric_list("hit_rate@1,faithfulness,answer_relevance,answer_f1,abstention")


def question(qid: str, answerable: bool = True) -> Question:
    return Question(
        qid,
        "How many requests per minute are allowed?",
        {"rate-limits": 1} if answerable else {},
        answerable=answerable,
        reference_answer="Each API key may send 100 requests per minute." if answerable else None,
    )


def record(qid: str, answer: str | None) -> RunRecord:
    return RunRecord(qid, (Chunk("rate-limits", PASSAGE),), answer)


def judged(server: FakeOpenAI, cache: Path | None, **overrides) -> GenerationSettings:
    options = {"max_retries": 1, **overrides}
    judge = JudgeSettings(server.base_url, "m", cache_dir=cache, **options)
    return GenerationSettings("judge", 0.75, "judge", "judge", judge)


def no_nan(results) -> None:
    data = json.loads(results.to_json())
    for entry in data["questions"]:
        assert all(math.isfinite(v) for v in entry["metrics"].values())
    for summary in data["summary"].values():
        assert math.isfinite(summary["value"])


def test_each_question_ends_in_its_documented_state(tmp_path):
    testset = TestSet(
        (question("good"), question("broken"), question("empty"), question("refuses", False))
    )
    records = {
        "good": record("good", ANSWER),
        "broken": record("broken", "BROKEN answer about 100 requests."),
        "empty": record("empty", ""),
        "refuses": record("refuses", "I don't know."),
    }
    with FakeOpenAI(by_text={"BROKEN": "non_json"}) as server:
        settings = judged(server, tmp_path / "cache")
        client = JudgeClient(settings.judge, sleep=lambda s: None)
        results = score_run(testset, records, METRICS, suite="t", generation=settings, judge=client)
        assert server.calls == 1 + 2 + 1  # good, broken asked twice, refuses; empty: none
    no_nan(results)
    by_id = results.by_id
    good = by_id["good"]
    assert good.status == "ok"
    assert good.metrics["faithfulness"] == pytest.approx(2 / 3)
    assert good.metrics["answer_relevance"] == 0.75  # fake's rating 4 -> (4-1)/4
    assert good.metrics["answer_f1"] > 0
    assert [(s.supported, s.score, s.evidence) for s in good.sentences] == [
        (True, 1.0, "rate-limits"),
        (True, 1.0, "rate-limits"),
        (False, 0.0, None),
    ]
    broken = by_id["broken"]
    assert broken.status == "judge_error"
    assert broken.error.startswith("judge: invalid reply twice; last: not JSON")
    assert broken.metrics["faithfulness"] == 0.0 and broken.metrics["answer_relevance"] == 0.0
    assert broken.metrics["answer_f1"] > 0  # lexical metric, unaffected by the judge
    assert {s.note for s in broken.sentences} == {"judge error"}
    assert (by_id["empty"].status, by_id["empty"].metrics["faithfulness"]) == ("error", 0.0)
    assert by_id["refuses"].metrics == {"abstention": 1.0}
    assert results.counts["judge_error"] == 1
    assert client.usage.errors == 1


def test_the_judge_sees_every_statement_but_judges_only_the_claims(tmp_path):
    answer = "Based on the given passages, here is the answer:\n\n" + ANSWER
    testset = TestSet((question("framed"),))
    with FakeOpenAI() as server:
        settings = judged(server, None)
        client = JudgeClient(settings.judge, sleep=lambda s: None)
        results = score_run(
            testset,
            {"framed": record("framed", answer)},
            METRICS,
            suite="t",
            generation=settings,
            judge=client,
        )
        prompt = server.requests[0].body["messages"][1]["content"]
    assert "(s1, not judged): Based on the given passages, here is the answer:" in prompt
    assert "\ns2: You can send 100 requests per minute per API key." in prompt
    assert prompt.endswith("for each of these ids: s2, s3, s4.")
    framed = results.by_id["framed"]
    assert framed.status == "ok"
    assert [(s.id, s.supported) for s in framed.sentences] == [
        ("s1", None),
        ("s2", True),
        ("s3", True),
        ("s4", False),
    ]
    assert framed.sentences[0].note == "not a claim: a lead-in"
    assert framed.metrics["faithfulness"] == pytest.approx(2 / 3)


def test_second_run_over_unchanged_answers_makes_zero_calls(tmp_path):
    testset = TestSet(tuple(question(f"q{i}") for i in range(6)))
    records = {f"q{i}": record(f"q{i}", f"{ANSWER} Answer number {i}.") for i in range(6)}
    with FakeOpenAI() as server:
        settings = judged(server, tmp_path / "cache", concurrency=3)
        first = score_run(
            testset,
            records,
            METRICS,
            suite="t",
            generation=settings,
            judge=JudgeClient(settings.judge),
            created_at="x",
        )
        assert server.calls == 6
        second_client = JudgeClient(settings.judge)
        second = score_run(
            testset,
            records,
            METRICS,
            suite="t",
            generation=settings,
            judge=second_client,
            created_at="x",
        )
        assert server.calls == 6
        assert second_client.usage.cached == 6
        assert second.to_json() == first.to_json()
        records["q0"] = record("q0", ANSWER)  # one answer changed: one call
        score_run(
            testset,
            records,
            METRICS,
            suite="t",
            generation=settings,
            judge=JudgeClient(settings.judge),
        )
        assert server.calls == 7


def write_suite(tmp_path: Path, base_url: str) -> tuple[Path, Path, Path]:
    testset = tmp_path / "testset.yaml"
    testset.write_text(
        "- id: rpm\n  question: How many requests per minute are allowed?\n"
        "  relevant: [rate-limits]\n"
        "- id: refunds\n  question: How do refunds work?\n  answerable: false\n"
    )
    run = tmp_path / "run.jsonl"
    run.write_text(
        json.dumps(
            {"id": "rpm", "retrieved": [{"id": "rate-limits", "text": PASSAGE}], "answer": ANSWER}
        )
        + "\n"
        + json.dumps({"id": "refunds", "retrieved": [], "answer": "I don't know."})
        + "\n"
    )
    config = tmp_path / "ragguard.yml"
    config.write_text(
        f"judge:\n  base_url: {base_url}\n  model: m\n  api_key_env: RAGGUARD_TEST_JUDGE_KEY\n"
        "  cache: judge-cache\n"
    )
    return testset, run, config


def test_score_with_judge_end_to_end(tmp_path, ragguard_cli, monkeypatch):
    monkeypatch.setenv("RAGGUARD_TEST_JUDGE_KEY", KEY)
    with FakeOpenAI() as server:
        testset, run, config = write_suite(tmp_path, server.base_url)
        args = [
            "score",
            "--testset",
            testset,
            "--run",
            run,
            "--config",
            config,
            "--judge",
            "--metrics",
            "faithfulness,answer_relevance,abstention",
        ]
        dry = ragguard_cli(*args, "--dry-run")
        assert dry.exit_code == 0, dry.output
        assert dry.stdout.startswith("judge dry run: 2 answers to judge, 0 in the cache, 2 calls")
        assert server.calls == 0
        out = tmp_path / "results.json"
        first = ragguard_cli(*args, "--out", out)
        assert first.exit_code == 0, first.output
        assert server.calls == 2
        assert "judge: 2 answers, 2 requests (0 cached" in first.stderr
        assert all(r.headers["Authorization"] == f"Bearer {KEY}" for r in server.requests)
        data = json.loads(out.read_text())
        assert data["summary"]["faithfulness"]["value"] == pytest.approx(2 / 3)
        assert data["config"]["settings"]["judge"]["model"] == "m"
        again = ragguard_cli(*args, "--dry-run")
        assert "2 in the cache, 0 calls" in again.stdout
        second = ragguard_cli(*args, "--out", out)
        assert second.exit_code == 0 and server.calls == 2
        assert "0 requests (2 cached" in second.stderr
    stored = out.read_text() + "".join(
        p.read_text() for p in (tmp_path / "judge-cache").rglob("*.json")
    )
    assert KEY not in stored and KEY not in first.output and KEY not in second.output


def test_missing_key_and_small_budget_stop_before_any_call(tmp_path, cli_error, monkeypatch):
    monkeypatch.delenv("RAGGUARD_TEST_JUDGE_KEY", raising=False)
    with FakeOpenAI() as server:
        testset, run, config = write_suite(tmp_path, server.base_url)
        args = [
            "score",
            "--testset",
            testset,
            "--run",
            run,
            "--config",
            config,
            "--judge",
            "--metrics",
            "faithfulness",
        ]
        cli_error(args, "ragguard.yml:4: judge.api_key_env:", "RAGGUARD_TEST_JUDGE_KEY is not set")
        monkeypatch.setenv("RAGGUARD_TEST_JUDGE_KEY", KEY)
        config.write_text(config.read_text() + "  max_calls: 1\n")
        cli_error(args, "ragguard.yml:", "judge.max_calls:", "needs 2 judge calls")
        assert server.calls == 0


def test_dry_run_warns_when_the_budget_is_too_small(tmp_path, ragguard_cli, monkeypatch):
    monkeypatch.delenv("RAGGUARD_TEST_JUDGE_KEY", raising=False)  # a dry run needs no key
    with FakeOpenAI() as server:
        testset, run, config = write_suite(tmp_path, server.base_url)
        config.write_text(config.read_text() + "  max_calls: 1\n")
        result = ragguard_cli(
            "score",
            "--testset",
            testset,
            "--run",
            run,
            "--config",
            config,
            "--judge",
            "--metrics",
            "faithfulness",
            "--dry-run",
        )
        assert server.calls == 0
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(
        "more than judge.max_calls = 1: the run would stop before calling\n"
    )


def test_judge_errors_are_shown_in_the_table(tmp_path, ragguard_cli, monkeypatch):
    monkeypatch.setenv("RAGGUARD_TEST_JUDGE_KEY", KEY)
    with FakeOpenAI(default="500") as server:
        testset, run, config = write_suite(tmp_path, server.base_url)
        config.write_text(config.read_text() + "  max_retries: 0\n")
        result = ragguard_cli(
            "score",
            "--testset",
            testset,
            "--run",
            run,
            "--config",
            config,
            "--judge",
            "--metrics",
            "faithfulness,abstention",
        )
    assert result.exit_code == 0, result.output
    assert "2 judge_error" in result.stdout
    assert (
        "judge_error (2 questions): judge: HTTP 500; gave up after 1 attempt\n  rpm, refunds\n"
        in (result.stdout)
    )
    assert "nan" not in result.stdout.lower()


def test_judge_errors_beyond_max_error_rate_make_the_verdict_error(tmp_path):
    from ragguard.compare import compare
    from ragguard.config.sections.gate import default_gate_rules

    testset = TestSet(tuple(question(f"q{i}") for i in range(4)))
    records = {f"q{i}": record(f"q{i}", f"{ANSWER} Case {i}.") for i in range(4)}
    records["q3"] = record("q3", "BROKEN answer.")
    with FakeOpenAI(by_text={"BROKEN": "500"}) as server:
        settings = judged(server, None, max_retries=0)
        head = score_run(
            testset,
            records,
            METRICS,
            suite="t",
            generation=settings,
            judge=JudgeClient(settings.judge),
        )
    no_nan(head)
    assert head.counts["judge_error"] == 1  # 1 of 4 = 25% > the default 5%
    comparison = compare(None, head, default_gate_rules())
    assert comparison.verdict == "error"
    assert any("could not be evaluated" in reason.text for reason in comparison.reasons)


PERSISTENT_FAILURES = [
    "500",
    "503",
    "401",
    "404",
    "400",
    "redirect",
    "envelope",
    "truncated",
    "non_json",
    "missing_id",
    "extra_id",
    "duplicate_id",
    "bad_evidence",
]


@pytest.mark.parametrize("behaviour", PERSISTENT_FAILURES)
def test_a_judge_that_keeps_failing_gives_judge_error_and_no_nan(behaviour):
    testset = TestSet((question("a"), question("b")))
    records = {"a": record("a", ANSWER), "b": record("b", "Extra requests return status 429.")}
    with FakeOpenAI(default=behaviour) as server:
        settings = judged(server, None)
        results = score_run(
            testset,
            records,
            METRICS,
            suite="t",
            generation=settings,
            judge=JudgeClient(settings.judge, sleep=lambda s: None),
        )
    no_nan(results)
    for entry in results.questions:
        assert entry.status == "judge_error", entry
        assert entry.error.startswith("judge: ")
        assert entry.metrics["faithfulness"] == 0.0 and entry.metrics["answer_relevance"] == 0.0
        assert all(s.supported is None for s in entry.sentences)
    assert results.summary["faithfulness"].value == 0.0
    assert results.counts["judge_error"] == 2


@pytest.mark.parametrize(
    "script",
    [
        ["500"],
        ["503", "500"],
        ["429"],
        ["429-date"],
        ["429-bare"],
        ["truncated"],
        ["non_json"],
        ["missing_id"],
        ["extra_id"],
        ["fenced"],
        ["slow"],
    ],
)
def test_a_judge_that_recovers_gives_the_same_results_as_a_healthy_one(script):
    testset = TestSet((question("a"),))
    records = {"a": record("a", ANSWER)}
    with FakeOpenAI() as healthy:
        settings = judged(healthy, None)
        expected = score_run(
            testset,
            records,
            METRICS,
            suite="t",
            generation=settings,
            judge=JudgeClient(settings.judge),
            created_at="x",
        )
    with FakeOpenAI(script=list(script), retry_after=1, slow_seconds=0.05) as flaky:
        settings = judged(flaky, None, max_retries=3)
        got = score_run(
            testset,
            records,
            METRICS,
            suite="t",
            generation=settings,
            judge=JudgeClient(settings.judge, sleep=lambda s: None),
            created_at="x",
        )
    assert got.questions == expected.questions
    assert got.questions[0].status == "ok"


def test_a_cache_dir_override_moves_the_judge_cache(tmp_path, monkeypatch):
    """The action's cache-dir input (and `ragguard run --cache-dir`) wins over judge.cache."""
    from ragguard.config.load import load_generation_config
    from ragguard.pipeline.score import prepare_generation
    from ragguard.results.records import load_run
    from ragguard.testset.load import load_testset

    monkeypatch.setenv("RAGGUARD_TEST_JUDGE_KEY", KEY)
    override = tmp_path / "restored-by-actions-cache"
    with FakeOpenAI() as server:
        testset_path, run_path, config = write_suite(tmp_path, server.base_url)
        testset, run = load_testset(testset_path), load_run(run_path)
        specs = parse_metric_list("faithfulness")
        raw, source = load_generation_config(config)
        setup = prepare_generation(
            specs, testset, run.records, raw_config=raw, config_source=source,
            use_judge=True, cache_dir=override,
        )  # fmt: skip
        score_run(testset, run.records, specs, suite="s", **setup.score_kwargs())
        assert server.calls == 2
    assert list(override.rglob("*.json")), "replies are cached in the override folder"
    assert not (tmp_path / "judge-cache").exists(), "judge.cache is not used"


def test_a_refusal_the_lexical_method_finds_is_not_sent_to_the_judge(tmp_path):
    """#28: with abstention scored lexically, a declined answer's metrics never read the
    judge's reply (no sentences for an unanswerable question, "declined" for an answerable
    one), so it is not asked; the results are those the call would have given."""
    testset = TestSet((question("good"), question("refuses", False), question("gives-up")))
    records = {
        "good": record("good", ANSWER),
        "refuses": record("refuses", "I don't know."),
        "gives-up": record("gives-up", "I don't know."),
    }
    with FakeOpenAI() as server:
        settings = replace(judged(server, None), abstention_method="lexical")
        client = JudgeClient(settings.judge, sleep=lambda s: None)
        results = score_run(testset, records, METRICS, suite="t", generation=settings, judge=client)
        asked = [r.body["messages"][1]["content"] for r in server.requests]
    assert len(asked) == 1 and "100 requests per minute per API key" in asked[0]
    refuses, gives_up = results.by_id["refuses"], results.by_id["gives-up"]
    assert (refuses.status, refuses.metrics, refuses.sentences) == ("ok", {"abstention": 1.0}, ())
    assert gives_up.status == "abstained"
    assert [s.note for s in gives_up.sentences] == ["declined"]
    assert gives_up.metrics["faithfulness"] == 0.0 and gives_up.metrics["answer_relevance"] == 0.0
    assert (client.usage.answers, results.counts["judge_error"]) == (1, 0)


def test_the_judge_error_count_on_stderr_is_the_results_count(tmp_path, ragguard_cli, monkeypatch):
    """#28: an answer the judge failed on is a judge error in the results, even when none
    of its metrics kept a judged value (an unanswerable question's refusal)."""
    monkeypatch.setenv("RAGGUARD_TEST_JUDGE_KEY", KEY)
    out = tmp_path / "results.json"
    with FakeOpenAI(default="500") as server:
        testset, run, config = write_suite(tmp_path, server.base_url)
        config.write_text(config.read_text() + "  max_retries: 0\n")
        result = ragguard_cli(
            "score", "--testset", testset, "--run", run, "--config", config, "--judge",
            "--metrics", "faithfulness", "--out", out,
        )  # fmt: skip
        assert server.calls == 2  # abstention judged (--judge): the refusal is asked too
    assert result.exit_code == 0, result.output
    counts = json.loads(out.read_text())["counts"]
    assert "2 judge errors" in result.stderr
    assert counts["judge_error"] == 2
