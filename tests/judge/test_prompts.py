"""The judge's prompt and the strict reply parser."""

from __future__ import annotations

import json

import pytest

from ragguard.judge.prompts import ReplyError, build_messages, parse_reply
from ragguard.metrics.text import segment

IDS = ["s1", "s2"]
CHUNKS = ["rate-limits", "errors"]


def reply(**overrides) -> str:
    data = {
        "sentences": [
            {"id": "s1", "supported": True, "evidence": "rate-limits"},
            {"id": "s2", "supported": False, "evidence": None},
        ],
        "relevance": 5,
        "declined": False,
    }
    data.update(overrides)
    return json.dumps(data)


def test_prompt_numbers_sentences_and_names_chunks():
    messages = build_messages(
        "How many\nrequests?",
        segment("First one.\n\n- Second\n  line."),
        [("rate-limits", "Text.")],
    )
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert "Question: How many requests?" in user
    assert "<context>\n[chunk rate-limits]\nText.\n</context>" in user
    assert "<answer>\ns1: First one.\ns2: Second line.\n</answer>" in user
    assert user.endswith("for each of these ids: s1, s2.")
    assert "(no chunks were retrieved)" in build_messages("q", segment("A."), [])[1]["content"]


def test_valid_reply_plain_and_fenced():
    verdict = parse_reply(reply(), IDS, CHUNKS)
    assert [(s.id, s.supported, s.evidence) for s in verdict.sentences] == [
        ("s1", True, "rate-limits"),
        ("s2", False, None),
    ]
    assert (verdict.relevance, verdict.declined) == (5, False)
    assert parse_reply(f"```json\n{reply()}\n```", IDS, CHUNKS) == verdict
    assert parse_reply(f"```\n{reply()}```", IDS, CHUNKS) == verdict
    assert parse_reply(reply(reasoning="extra keys at the top are ignored"), IDS, CHUNKS) == verdict


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Looks fine to me.", "not JSON"),
        (reply()[:40], "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"sentences": [], "relevance": NaN, "declined": false}', "not JSON"),
        (reply(sentences="s1 yes"), '"sentences" must be a list'),
        (reply(relevance=0), '"relevance" must be a whole number from 1 to 5'),
        (reply(relevance=4.5), '"relevance" must be a whole number from 1 to 5'),
        (reply(relevance=True), '"relevance" must be a whole number from 1 to 5'),
        (reply(declined="no"), '"declined" must be true or false'),
        (
            reply(sentences=[{"id": "s1", "supported": "yes"}]),
            '"supported" of s1 must be true or false',
        ),
        (reply(sentences=[{"id": 1, "supported": True}]), 'a sentence "id" must be a string'),
        (reply(sentences=["s1"]), 'each entry of "sentences" must be an object'),
    ],
)
def test_invalid_replies_name_the_problem(text, reason):
    with pytest.raises(ReplyError) as caught:
        parse_reply(text, IDS, CHUNKS)
    assert str(caught.value).startswith(reason)
