"""The ``usage`` a system reports per answer: read from run files and adapters' output,
kept through scoring into results.json and back."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from ragguard.core.errors import Where
from ragguard.metrics.names import parse_metric_list
from ragguard.results.io import load_results, write_results
from ragguard.results.records import parse_run_jsonl
from ragguard.results.usage import Usage, usage_from_mapping
from ragguard.scoring.score import score_run
from ragguard.system.base import SystemFailure, answer_from_output
from ragguard.testset.model import Question, TestSet

LINE = (
    '{"id": "q1", "retrieved": ["auth"], "answer": "Send the key.", "latency_ms": 812,'
    ' "usage": {"prompt_tokens": 700, "completion_tokens": 112, "cost": 0.0031}}'
)


def test_a_run_records_usage_goes_through_scoring_into_results_and_back(tmp_path) -> None:
    run = parse_run_jsonl(LINE + "\n", "run.jsonl")
    usage = run.records["q1"].usage
    assert usage == Usage(prompt_tokens=700, completion_tokens=112, cost=0.0031)
    assert usage.tokens == 812  # no total_tokens: prompt + completion
    testset = TestSet((Question("q1", "How do I authenticate?", {"auth": 1}),))
    scored = score_run(testset, run.records, parse_metric_list("mrr"), suite="s")
    assert scored.questions[0].usage == usage

    loaded = load_results(write_results(scored, tmp_path / "results.json"))

    assert loaded.questions[0].usage == usage
    written = json.loads((tmp_path / "results.json").read_text())
    assert written["questions"][0]["usage"] == {
        "prompt_tokens": 700,
        "completion_tokens": 112,
        "cost": 0.0031,
    }


def test_a_record_without_usage_writes_none(tmp_path) -> None:
    run = parse_run_jsonl('{"id": "q1", "retrieved": ["auth"]}\n', "run.jsonl")
    assert run.records["q1"].usage is None
    assert "usage" not in run.records["q1"].to_dict()


def test_total_tokens_wins_over_the_sum() -> None:
    usage = usage_from_mapping(
        {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 9}, Where("x")
    )
    assert usage is not None and usage.tokens == 9
    assert Usage(prompt_tokens=5).tokens is None  # half the counts is no count


def test_a_python_system_may_return_an_sdks_usage_object() -> None:
    sdk_usage = SimpleNamespace(prompt_tokens=30, completion_tokens=12, total_tokens=42)
    answer = answer_from_output({"answer": "x", "usage": sdk_usage})
    assert answer.usage == Usage(prompt_tokens=30, completion_tokens=12, total_tokens=42)


@pytest.mark.parametrize(
    ("usage", "fragment"),
    [
        ({"cost": "cheap"}, "'usage.cost' expected a non-negative number, found \"cheap\""),
        ({"tokens": 3}, "'usage.tokens' unknown key"),
        ([1, 2], "'usage' expected a mapping, found a list"),
    ],
)
def test_bad_usage_from_a_system_fails_that_question(usage: object, fragment: str) -> None:
    with pytest.raises(SystemFailure, match="the result: ") as caught:
        answer_from_output({"answer": "x", "usage": usage})
    assert fragment in str(caught.value)
