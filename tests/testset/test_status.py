"""A question's review status (draft or reviewed) and a drafter's kind and source."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from ragguard.core.errors import InputError
from ragguard.testset.load import load_testset

SCHEMA = Path(__file__).resolve().parents[2] / "schemas/testset-entry.schema.json"
TESTSET = json.loads(SCHEMA.read_text())
FORMAT = jsonschema.Draft202012Validator

DRAFTED = """\
- id: q1
  question: How do I authenticate?
  relevant: [auth]
- id: q2
  question: How many requests per minute?
  relevant: [{doc: limits.md, quote: 100 requests per minute}]
  reference_answer: One hundred.
  kind: single-hop
  source: limits.md
  status: draft
- id: q3
  question: Is there a sandbox?
  relevant: [sandbox]
  status: reviewed
"""


def _load(tmp_path, text: str, name: str = "t.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return load_testset(path)


def test_a_draft_is_read_with_its_kind_and_source_and_the_rest_are_reviewed(tmp_path):
    testset = _load(tmp_path, DRAFTED)
    first, draft, reviewed = testset.questions
    assert (first.status, first.kind, first.source) == ("reviewed", None, None)
    assert (draft.status, draft.kind, draft.source) == ("draft", "single-hop", "limits.md")
    assert reviewed.status == "reviewed"
    assert [q.id for q in testset.drafts] == ["q2"]


def test_without_drafts_keeps_the_reviewed_questions_and_their_lines(tmp_path):
    testset = _load(tmp_path, DRAFTED)
    kept = testset.without_drafts()
    assert [q.id for q in kept] == ["q1", "q3"]
    assert kept.lines == {"q1": 1, "q3": 11}
    assert kept.source == testset.source


def test_status_kind_and_source_do_not_change_the_fingerprint(tmp_path):
    plain = DRAFTED.replace("  kind: single-hop\n", "").replace("  source: limits.md\n", "")
    plain = plain.replace("  status: draft\n", "").replace("  status: reviewed\n", "")
    assert _load(tmp_path, DRAFTED).fingerprint == _load(tmp_path, plain, "p.yaml").fingerprint


@pytest.mark.parametrize("value", ["approved", "Draft", " draft", "1", "true"])
def test_an_unknown_status_names_the_line_and_the_allowed_values(tmp_path, value):
    text = DRAFTED.replace("status: draft", f"status: {value!r}")
    with pytest.raises(InputError) as caught:
        _load(tmp_path, text)
    assert (caught.value.line, caught.value.key) == (10, "status")
    assert "expected draft or reviewed" in caught.value.message


@pytest.mark.parametrize(
    ("written", "key"), [("kind: [a]", "kind"), ("source: ''", "source"), ("kind: 3", "kind")]
)
def test_kind_and_source_are_non_empty_strings(tmp_path, written, key):
    text = DRAFTED.replace("kind: single-hop\n  source: limits.md", written)
    with pytest.raises(InputError) as caught:
        _load(tmp_path, text)
    assert caught.value.key == key
    assert "expected a non-empty string" in caught.value.message


def test_jsonl_and_csv_take_a_status_too(tmp_path):
    jsonl = '{"id": "a", "question": "Q?", "relevant": ["c"], "status": "draft", "kind": "k"}\n'
    assert _load(tmp_path, jsonl, "t.jsonl").questions[0].is_draft
    csv = "id,question,relevant,status\na,Q?,c,draft\nb,R?,c,\n"
    assert [q.status for q in _load(tmp_path, csv, "t.csv")] == ["draft", "reviewed"]
    with pytest.raises(InputError) as caught:
        _load(tmp_path, "id,question,relevant,status\na,Q?,c,done\n", "u.csv")
    assert (caught.value.line, caught.value.key) == (2, "status")


def test_a_conversation_status_applies_to_all_its_turns(tmp_path):
    text = """\
- id: chat
  status: draft
  kind: conversation
  turns:
    - question: Hi?
      relevant: [auth]
    - question: And then?
      relevant: [auth]
"""
    turns = _load(tmp_path, text).questions
    assert [(q.status, q.kind) for q in turns] == [("draft", "conversation")] * 2
    with pytest.raises(InputError) as caught:
        _load(tmp_path, text.replace("status: draft", "status: pending"), "u.yaml")
    assert (caught.value.line, caught.value.key) == (2, "status")


def test_the_schema_takes_status_kind_and_source_and_refuses_another_status():
    entries = yaml.safe_load(DRAFTED)
    for entry in entries:
        FORMAT(TESTSET).validate(entry)
    with pytest.raises(jsonschema.ValidationError):
        FORMAT(TESTSET).validate({**entries[1], "status": "approved"})
