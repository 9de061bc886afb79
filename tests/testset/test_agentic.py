"""Test-set entries with hops and expected tool calls."""

from __future__ import annotations

import pytest

from ragguard.core.errors import InputError
from ragguard.testset.load import load_testset
from ragguard.testset.model import Evidence, Hop, ToolCall

ENTRY = """\
- id: refund-pro
  question: Can I get a refund on the Pro plan after 30 days?
  hops:
    - relevant: [plans#4]
    - relevant: [{doc: refunds.md, quote: "Pro plans are refundable for 60 days"}, plans#4]
  expected_tools:
    - name: lookup_plan
      arguments: {plan: pro}
    - cancel
  tool_order: strict
"""


def _load(tmp_path, text: str):
    path = tmp_path / "t.yaml"
    path.write_text(text)
    return load_testset(path)


def test_hops_tools_and_their_order_are_read(tmp_path):
    question = _load(tmp_path, ENTRY).questions[0]
    quote = Evidence("refunds.md", quote="Pro plans are refundable for 60 days")
    assert question.hops == (Hop({"plans#4": 1}), Hop({"plans#4": 1}, (quote,)))
    assert question.expected_tools == (ToolCall("lookup_plan", {"plan": "pro"}), ToolCall("cancel"))
    assert question.tool_order == "strict"


def test_without_relevant_the_question_labels_are_the_union_of_the_hops(tmp_path):
    question = _load(tmp_path, ENTRY).questions[0]
    assert question.relevant == {"plans#4": 1}
    assert [e.doc for e in question.evidence] == ["refunds.md"]


def test_given_relevant_stands_as_written(tmp_path):
    question = _load(tmp_path, ENTRY.replace("  hops:", "  relevant: {other: 2}\n  hops:"))
    assert question.questions[0].relevant == {"other": 2}


def test_a_question_answered_by_tools_alone_needs_no_chunk_label(tmp_path):
    text = "- id: q\n  question: cancel order 7\n  expected_tools: [{name: cancel, arguments: {id: 7}}]\n"
    assert _load(tmp_path, text).questions[0].relevant == {}


def test_hops_and_tools_change_the_fingerprint_and_plain_questions_keep_theirs(tmp_path):
    plain = _load(tmp_path, "- id: q\n  question: x\n  relevant: [a]\n").questions[0]
    hopped = _load(tmp_path, "- id: q\n  question: x\n  relevant: [a]\n  hops: [{relevant: [a]}]\n")
    assert plain.agent_labels is None
    assert hopped.questions[0].fingerprint != plain.fingerprint
    from ragguard.testset.model import label_fingerprint

    assert plain.fingerprint == label_fingerprint("q", {"a": 1}, True)


@pytest.mark.parametrize(
    ("extra", "fragments"),
    [
        ("  hops: []\n", ["t.yaml:4:", "hops:", "list of hops"]),
        ("  hops: [plans#4]\n", ["hops[0]:", "mapping with 'relevant'"]),
        ("  hops:\n    - relevant: []\n", ["t.yaml:5:", "hops[0].relevant:", "at least one"]),
        ("  hops:\n    - relevant: [a]\n      query: x\n", ["hops[0].query:", "unknown key"]),
        ("  hops:\n    - relevant: {a: -1}\n", ["hops[0].relevant:", "non-negative"]),
        ("  expected_tools: lookup\n", ["expected_tools:", "list of tool calls"]),
        ("  expected_tools: [{arguments: {}}]\n", ["expected_tools[0].name:", "required"]),
        ("  expected_tools: [{name: t, arguments: [1]}]\n", ["expected_tools[0].arguments:"]),
        ("  expected_tools: [{name: t, args: {}}]\n", ["expected_tools[0].args:", "unknown"]),
        ("  expected_tools: [t]\n  tool_order: sorted\n", ["tool_order:", "any, strict"]),
        ("  tool_order: strict\n", ["tool_order:", "needs expected_tools"]),
    ],
)
def test_a_bad_agent_label_is_one_error_with_its_line_and_key(tmp_path, extra, fragments):
    with pytest.raises(InputError) as caught:
        _load(tmp_path, "- id: q\n  question: x\n  relevant: [a]\n" + extra)
    text = str(caught.value)
    for fragment in fragments:
        assert fragment in text, text
