"""Conversations in a test set: turns become questions ``<id>#<turn>``."""

from __future__ import annotations

import pytest

from ragguard.core.errors import InputError
from ragguard.testset.load import load_testset
from ragguard.testset.shards import Shard, select_shard

CONVERSATION = """\
- id: support-12
  tags: [warranty]
  critical: true
  turns:
    - question: I bought a model X last spring.
      expected_tools: [{name: lookup_model, arguments: {model: X}}]
    - question: How long is its warranty?
      relevant: [warranty#3]
      tags: [followup]
    - question: And for batteries?
      relevant: [warranty#4]
      critical: false
- id: plain
  question: What is a plan?
  relevant: [plans#1]
"""


def _load(tmp_path, text: str, name: str = "t.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return load_testset(path)


def test_each_turn_is_a_question_with_the_conversation_its_tags_and_its_marking(tmp_path):
    questions = _load(tmp_path, CONVERSATION).questions
    assert [q.id for q in questions] == ["support-12#1", "support-12#2", "support-12#3", "plain"]
    first, second, third, plain = questions
    assert {q.conversation for q in (first, second, third)} == {"support-12"}
    assert plain.conversation is None
    assert second.tags == ("warranty", "followup")
    assert (first.critical, third.critical) == (True, False)
    assert first.relevant == {} and first.expected_tools[0].name == "lookup_model"


def test_the_same_conversation_in_json_lines_loads_the_same(tmp_path):
    import json

    import yaml

    entries = yaml.safe_load(CONVERSATION)
    jsonl = "".join(json.dumps(entry) + "\n" for entry in entries)
    assert _load(tmp_path, jsonl, "t.jsonl") == _load(tmp_path, CONVERSATION)


def test_a_conversation_stays_in_one_shard(tmp_path):
    text = "".join(
        f"- id: c{n}\n  turns:\n"
        + "".join(f"    - {{question: q{t}, relevant: [x]}}\n" for t in range(4))
        for n in range(20)
    )
    testset = _load(tmp_path, text)
    seen: dict[str, int] = {}
    for index in (1, 2, 3):
        for question in select_shard(testset, Shard(index, 3)).testset:
            assert seen.setdefault(question.conversation, index) == index
    assert len(seen) == 20


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("- id: c\n  turns: []\n", ["t.yaml:2:", "turns:", "list of turns"]),
        ("- id: c\n  turns: hello\n", ["turns:", "list of turns"]),
        (
            "- id: c\n  question: x\n  turns: [{question: y, relevant: [a]}]\n",
            ["question:", "in each turn"],
        ),
        ("- id: c\n  turns:\n    - hello\n", ["t.yaml:3:", "turns[0]:", "turn mapping"]),
        ("- id: c\n  turns:\n    - {id: x, question: y, relevant: [a]}\n", ["turns[0].id:", "c#1"]),
        (
            "- id: c\n  turns:\n    - {question: y}\n",
            ["t.yaml:3:", "turns[0].relevant:", "no relevant"],
        ),
        (
            "- id: c\n  turns:\n    - {question: y, relevant: [a]}\n    - {question: '', relevant: [a]}\n",
            ["t.yaml:4:", "turns[1].question:"],
        ),
        (
            "- id: c\n  critical: maybe\n  turns: [{question: y, relevant: [a]}]\n",
            ["critical:", "true or false"],
        ),
        ("- turns: [{question: y, relevant: [a]}]\n", ["id:", "required"]),
        (
            "- id: c\n  turns: [{question: y, relevant: [a]}]\n- id: c#1\n  question: z\n  relevant: [a]\n",
            ["t.yaml:3:", "duplicate id 'c#1'"],
        ),
    ],
)
def test_a_bad_conversation_is_one_error_with_its_line_and_key(tmp_path, text, fragments):
    with pytest.raises(InputError) as caught:
        _load(tmp_path, text)
    for fragment in fragments:
        assert fragment in str(caught.value), str(caught.value)
