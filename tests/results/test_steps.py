"""Run records with ``steps``: an agent's retrievals, tool calls and model calls."""

from __future__ import annotations

import json

import pytest

from ragguard.core.errors import InputError
from ragguard.results.records import dump_run, parse_run_jsonl
from ragguard.results.steps import LLM, RETRIEVAL, TOOL


def _run(*objects: object):
    return parse_run_jsonl("".join(json.dumps(o) + "\n" for o in objects), "run.jsonl")


AGENT = {
    "id": "q1",
    "answer": "Yes, within 60 days.",
    "steps": [
        {"type": "retrieval", "query": "plans", "retrieved": ["plans#1", "plans#4"]},
        {"type": "tool", "name": "lookup_plan", "arguments": {"plan": "pro"}},
        {"type": "retrieval", "query": "refunds", "retrieved": [{"id": "refunds#2"}, "plans#4"]},
        {"type": "llm", "usage": {"prompt_tokens": 100, "completion_tokens": 10}},
        {"type": "llm", "usage": {"prompt_tokens": 50, "completion_tokens": 5, "cost": 0.1}},
    ],
}


def test_retrieved_absent_is_the_ordered_union_of_the_retrieval_steps():
    record = _run(AGENT).records["q1"]
    assert record.retrieved_ids == ["plans#1", "plans#4", "refunds#2"]
    assert [step.type for step in record.steps] == [RETRIEVAL, TOOL, RETRIEVAL, LLM, LLM]
    assert record.steps[1].arguments == {"plan": "pro"}


def test_usage_absent_is_the_model_calls_summed_and_a_count_one_call_lacks_stays_unknown():
    usage = _run(AGENT).records["q1"].usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (150, 15, 165)
    assert usage.cost is None  # the first call did not say what it cost


def test_given_retrieved_and_usage_stand_as_written():
    record = _run({**AGENT, "retrieved": ["x"], "usage": {"cost": 2}}).records["q1"]
    assert record.retrieved_ids == ["x"]
    assert record.usage is not None and record.usage.cost == 2


def test_dump_and_parse_give_the_same_records():
    run = _run(AGENT, {"id": "q2", "retrieved": ["a"], "answer": "b"})
    again = parse_run_jsonl(dump_run(run.records.values()), "again.jsonl")
    assert again.records == run.records


def test_a_plain_record_is_written_as_it_always_was():
    plain = {"id": "q2", "retrieved": ["a"], "answer": "b", "latency_ms": None, "error": None}
    assert dump_run(_run(plain).records.values()) == json.dumps(plain) + "\n"


def test_tool_arguments_given_as_json_text_are_read_as_the_object():
    step = {"type": "tool", "name": "t", "arguments": '{"a": [1, 2]}'}
    record = _run({"id": "q1", "steps": [step]}).records["q1"]
    assert record.steps[0].arguments == {"a": [1, 2]}
    assert record.retrieved == ()


def test_tool_arguments_whose_json_text_escapes_a_lone_surrogate_are_refused():
    """The text is JSON read inside JSON: refused as every JSON input is (docs/formats.md,
    "Decisions the formats leave open"), naming the line and the step."""
    step = {"type": "tool", "name": "t", "arguments": '{"a": "\\ud800"}'}
    with pytest.raises(InputError) as raised:
        _run({"id": "q1", "steps": [step]})
    assert str(raised.value).startswith(
        "run.jsonl:1: steps[0].arguments: JSON text of the arguments: lone surrogate \\ud800 "
        "in a string (column 8)"
    )


@pytest.mark.parametrize(
    ("steps", "fragments"),
    [
        ("nope", ["steps:", "expected a list of steps"]),
        ([1], ["steps[0]:", "expected a step object"]),
        ([{"type": "search"}], ["steps[0]:", '"search"', "retrieval, tool, llm"]),
        ([{"type": "retrieval", "retrieved": "a"}], ["steps[0].retrieved:", "list in rank order"]),
        ([{"type": "retrieval", "retrieved": ["a", "a"]}], ["steps[0].retrieved:", "twice"]),
        ([{"type": "retrieval", "query": 3}], ["steps[0].query:", "expected a string"]),
        ([{"type": "retrieval", "name": "x"}], ["steps[0].name:", "unknown key"]),
        ([{"type": "tool"}], ["steps[0].name:", "needs the tool's name"]),
        ([{"type": "tool", "name": "t", "arguments": "{oops"}], ["steps[0].arguments:"]),
        ([{"type": "tool", "name": "t", "arguments": [1]}], ["steps[0].arguments:", "object"]),
        ([{"type": "llm", "usage": {"tokens": 3}}], ["steps[0].usage.tokens:", "unknown key"]),
        ([{"type": "llm", "usage": {"cost": -1}}], ["steps[0].usage.cost:", "non-negative"]),
    ],
)
def test_a_bad_step_is_one_error_naming_the_line_and_the_step(steps, fragments):
    with pytest.raises(InputError) as caught:
        _run({"id": "q0"}, {"id": "q1", "steps": steps})
    text = str(caught.value)
    assert text.startswith("run.jsonl:2:")
    for fragment in fragments:
        assert fragment in text
