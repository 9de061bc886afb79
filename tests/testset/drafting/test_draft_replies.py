"""The judge's drafting replies: JSON bare or fenced; every other style counted malformed."""

from __future__ import annotations

import json

import pytest

from ragguard.testset.drafting.model import Quote
from ragguard.testset.drafting.replies import MalformedReply, draft_from_reply

DOCS = {"a.md", "b.md"}
FACT = {
    "question": "How long?",
    "answer": "14 days.",
    "evidence": [{"doc": "a.md", "quote": "14 days"}],
}


def read(content: str, kind: str = "single-fact"):
    return draft_from_reply(content, kind, DOCS, "judge:m")


def test_a_bare_json_reply() -> None:
    draft = read(json.dumps(FACT))
    assert (draft.question, draft.answer, draft.evidence) == (
        "How long?",
        "14 days.",
        (Quote("a.md", "14 days"),),
    )
    assert draft.source == "judge:m" and draft.kind == "single-fact"


def test_a_fenced_reply_with_prose_around_it() -> None:
    content = f"Sure, here it is:\n\n```json\n{json.dumps(FACT, indent=2)}\n```\nHope it helps."
    assert read(content).question == "How long?"


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("A good question: how long does a refund take?", "not JSON"),
        ('{"question": "How long?", "answer": "14 days.", "evidence": [', "not JSON"),  # cut off
        ("[1, 2]", "not an object"),
        (json.dumps({**FACT, "question": "How \ud800 long?"}), "not JSON"),  # a lone surrogate
        (json.dumps({**FACT, "answer": None}), "answer is missing"),
        (json.dumps({k: v for k, v in FACT.items() if k != "evidence"}), "evidence is missing"),
        (json.dumps({**FACT, "question": ["How long?"]}), "question is missing, empty or not"),
        (json.dumps({**FACT, "question": "  "}), "question is missing, empty"),
        (json.dumps({**FACT, "evidence": ["14 days"]}), "evidence is not an object"),
        (json.dumps({**FACT, "evidence": {"doc": "a.md"}}), "not a list"),
        (json.dumps({**FACT, "evidence": [{"doc": "c.md", "quote": "x"}]}), "'c.md', a document"),
        (json.dumps({**FACT, "evidence": [{"doc": "a.md", "quote": 14}]}), "quote is missing"),
    ],
)
def test_malformed_replies_say_why(content: str, why: str) -> None:
    with pytest.raises(MalformedReply, match=why):
        read(content)


def test_a_comparison_needs_two_quotes_and_a_multi_hop_two_hops() -> None:
    with pytest.raises(MalformedReply, match="fewer than 2"):
        read(json.dumps(FACT), "comparison")
    hops = {
        "question": "q",
        "answer": "a",
        "hops": [{"doc": "a.md", "quote": "x"}, {"doc": "b.md", "quote": "y"}],
    }
    draft = read(json.dumps(hops), "multi-hop")
    assert draft.hops == ((Quote("a.md", "x"),), (Quote("b.md", "y"),))
    with pytest.raises(MalformedReply, match="hops"):
        read(json.dumps({**hops, "hops": hops["hops"][:1]}), "multi-hop")


def test_an_unanswerable_draft_needs_no_evidence_and_may_lack_an_answer() -> None:
    draft = read(json.dumps({"question": "Is there a GraphQL API?"}), "unanswerable")
    assert (draft.question, draft.answer, draft.quotes) == ("Is there a GraphQL API?", None, ())


def test_a_follow_up_has_two_turns_each_with_evidence() -> None:
    turn = {"question": "q1", "answer": "a1", "evidence": [{"doc": "a.md", "quote": "x"}]}
    second = {**turn, "question": "And then?"}
    draft = read(json.dumps({"turns": [turn, second]}), "follow-up")
    assert draft.questions == ("q1", "And then?") and len(draft.quotes) == 2
    with pytest.raises(MalformedReply, match="turns has 1 items"):
        read(json.dumps({"turns": [turn]}), "follow-up")
    with pytest.raises(MalformedReply, match="a turn is not an object"):
        read(json.dumps({"turns": [turn, "and then?"]}), "follow-up")
