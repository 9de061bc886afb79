"""What judging costs, end to end against the local OpenAI-compatible server: each judged
answer's calls and tokens in results.json (from the replies' ``usage``, or estimated when the
server sends none), the totals and the cost at ``judge.price``, and ``--estimate`` counting
the calls the run then makes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from test_judge_scoring import KEY, write_suite

from ragguard.judge.usage import estimate_prompt_tokens, estimate_tokens

pytestmark = pytest.mark.e2e

PRICED = "  price: {input: 0.15, output: 0.60}\n"


def score_args(testset: Path, run: Path, config: Path) -> list[object]:
    return [
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


def test_tokens_from_usage_and_the_cost_at_the_price(tmp_path, ragguard_cli, monkeypatch):
    monkeypatch.setenv("RAGGUARD_TEST_JUDGE_KEY", KEY)
    with FakeOpenAI() as server:
        testset, run, config = write_suite(tmp_path, server.base_url)
        config.write_text(config.read_text() + PRICED)
        out = tmp_path / "results.json"
        result = ragguard_cli(*score_args(testset, run, config), "--out", out)
        assert result.exit_code == 0, result.output
        assert server.calls == 2
    judge = json.loads(out.read_text())["judge"]
    # the fake server reports 100 prompt and 20 completion tokens a reply
    assert {k: v for k, v in judge.items() if k != "judged"} == {
        "calls": 2,
        "answers": 2,
        "cached": 0,
        "prompt_tokens": 200,
        "completion_tokens": 40,
        "estimated": False,
        "price": {"input": 0.15, "output": 0.6},
        "cost": pytest.approx((200 * 0.15 + 40 * 0.6) / 1e6),
    }
    assert judge["judged"] == [
        {
            "id": qid,
            "calls": 1,
            "prompt_tokens": 100,
            "completion_tokens": 20,
            "tokens_from": "usage",
            "cached": False,
        }
        for qid in ("rpm", "refunds")
    ]


def test_tokens_estimated_when_the_replies_carry_no_usage(tmp_path, ragguard_cli, monkeypatch):
    monkeypatch.setenv("RAGGUARD_TEST_JUDGE_KEY", KEY)
    with FakeOpenAI(usage=False) as server:
        testset, run, config = write_suite(tmp_path, server.base_url)
        out = tmp_path / "results.json"
        result = ragguard_cli(*score_args(testset, run, config), "--out", out)
        assert result.exit_code == 0, result.output
        sent = [request.body["messages"] for request in server.requests]
    judge = json.loads(out.read_text())["judge"]
    assert judge["estimated"] is True and "cost" not in judge
    assert judge["prompt_tokens"] == sum(estimate_prompt_tokens(m) for m in sent)
    assert all(entry["tokens_from"] == "estimate" for entry in judge["judged"])
    assert all(entry["completion_tokens"] > 0 for entry in judge["judged"])
    assert "2 replies estimated" in result.stderr


def test_a_cached_verdict_costs_nothing_this_run(tmp_path, ragguard_cli, monkeypatch):
    monkeypatch.setenv("RAGGUARD_TEST_JUDGE_KEY", KEY)
    with FakeOpenAI() as server:
        testset, run, config = write_suite(tmp_path, server.base_url)
        out = tmp_path / "results.json"
        args = score_args(testset, run, config)
        assert ragguard_cli(*args, "--out", out).exit_code == 0
        assert ragguard_cli(*args, "--out", out).exit_code == 0
        assert server.calls == 2
    judge = json.loads(out.read_text())["judge"]
    assert (judge["calls"], judge["cached"], judge["prompt_tokens"]) == (0, 2, 0)
    assert judge["judged"][0] == {
        "id": "rpm",
        "calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "tokens_from": None,
        "cached": True,
    }


def test_the_estimate_of_a_half_cached_run_is_the_calls_it_makes(
    tmp_path, ragguard_cli, monkeypatch
):
    monkeypatch.setenv("RAGGUARD_TEST_JUDGE_KEY", KEY)
    with FakeOpenAI() as server:
        testset, run, config = write_suite(tmp_path, server.base_url)
        config.write_text(config.read_text() + PRICED)
        args = score_args(testset, run, config)
        assert ragguard_cli(*args, "--out", tmp_path / "first.json").exit_code == 0
        # one answer changed: its verdict is no longer in the cache, the other's is
        lines = run.read_text().splitlines()
        changed = json.loads(lines[1]) | {"answer": "Refunds are not covered by the docs."}
        run.write_text(lines[0] + "\n" + json.dumps(changed) + "\n")
        before = server.calls
        estimate = ragguard_cli(*args, "--estimate")
        assert estimate.exit_code == 0, estimate.output
        assert server.calls == before  # the estimate calls nothing
        assert "2 answers to judge, 1 in the cache, 1 calls to make" in estimate.stdout
        assert "at judge.price" in estimate.stdout
        out = tmp_path / "results.json"
        assert ragguard_cli(*args, "--out", out).exit_code == 0
        made = server.calls - before
    assert made == 1
    assert json.loads(out.read_text())["judge"]["calls"] == made


def test_the_estimate_counts_words_numbers_and_punctuation_pieces() -> None:
    # a word is a piece (8 letters a piece past that), digits 3 a piece, other characters 2
    assert estimate_tokens("Hello, world!") == 4
    assert estimate_tokens("internationalization") == 3
    assert estimate_tokens("12345") == 2
    assert estimate_tokens("") == 0
    # a chat request: 3 tokens a message and 3 for the reply's start
    assert estimate_prompt_tokens([{"role": "user", "content": "Hello, world!"}]) == 4 + 3 + 3


def test_run_estimate_of_a_half_cached_run_is_the_calls_it_makes(
    tmp_path, ragguard_cli, monkeypatch
):
    monkeypatch.setenv("RAGGUARD_TEST_JUDGE_KEY", KEY)
    with FakeOpenAI() as server:
        testset, run, config = write_suite(tmp_path, server.base_url)
        config.write_text(
            f"testset: {testset.name}\nsystem:\n  recorded: {run.name}\n"
            "metrics: [faithfulness, abstention]\nfaithfulness: judge\nabstention: judge\n"
            + config.read_text()
            + PRICED
        )
        out = tmp_path / "results.json"
        assert ragguard_cli("run", "-c", config, "--out", out).exit_code == 0
        lines = run.read_text().splitlines()
        changed = json.loads(lines[1]) | {"answer": "Refunds are not covered by the docs."}
        run.write_text(lines[0] + "\n" + json.dumps(changed) + "\n")
        out.unlink()
        before = server.calls
        monkeypatch.delenv("RAGGUARD_TEST_JUDGE_KEY")  # an estimate needs no key
        estimate = ragguard_cli("run", "-c", config, "--out", out, "--estimate")
        monkeypatch.setenv("RAGGUARD_TEST_JUDGE_KEY", KEY)
        assert estimate.exit_code == 0, estimate.output
        assert server.calls == before and not out.exists()
        assert "2 answers to judge, 1 in the cache, 1 calls to make" in estimate.stdout
        assert "at judge.price" in estimate.stdout
        assert ragguard_cli("run", "-c", config, "--out", out).exit_code == 0
        made = server.calls - before
    assert made == 1
    assert json.loads(out.read_text())["judge"]["calls"] == made


def test_calls_that_got_no_reply_count_no_tokens(tmp_path, ragguard_cli, monkeypatch):
    monkeypatch.setenv("RAGGUARD_TEST_JUDGE_KEY", KEY)
    with FakeOpenAI(default="500") as server:
        testset, run, config = write_suite(tmp_path, server.base_url)
        config.write_text(config.read_text() + "  max_retries: 1\n")
        out = tmp_path / "results.json"
        assert ragguard_cli(*score_args(testset, run, config), "--out", out).exit_code == 0
        assert server.calls == 4
    judge = json.loads(out.read_text())["judge"]
    assert (judge["calls"], judge["prompt_tokens"], judge["estimated"]) == (4, 0, False)
    assert {entry["tokens_from"] for entry in judge["judged"]} == {None}
