"""Tokens, content terms, stems, quantities and deterministic sentence segmentation."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragguard.metrics import text as text_module
from ragguard.metrics.text import (
    STOPWORDS,
    content_terms,
    quantities,
    segment,
    split_sentences,
    stems,
    tokens,
)

SEED_ANSWER = (
    "You can send 100 requests per minute per API key. Extra requests return status 429. "
    "Limits reset every hour."
)
SEED_STOP = {"a", "an", "the", "you", "can", "per", "with", "every", "each", "may"}


def texts(answer: str) -> list[str]:
    return [s.text for s in segment(answer)]


def test_tokens_follow_the_seed_pattern():
    assert tokens("Extra requests return status 429 with a Retry-After header.") == [
        "extra",
        "requests",
        "return",
        "status",
        "429",
        "with",
        "a",
        "retry-after",
        "header",
    ]
    assert tokens("a - b -- c") == ["a", "b", "c"]


def test_stopword_list_is_standard_english_and_covers_the_seeds():
    assert SEED_STOP <= STOPWORDS
    assert {"the", "is", "of", "and", "don't", "not", "no"} <= STOPWORDS
    assert content_terms("You can send 100 requests per minute per API key.") == {
        "send",
        "100",
        "requests",
        "minute",
        "api",
        "key",
    }


def test_quantities_are_values():
    assert quantities("Send 1,000 requests with v2.3.1 at 10:30, about 1.5x") == {
        1000.0,
        10.0,
        30.0,
        1.5,
    }
    assert quantities("1000 requests") == quantities("1,000 requests") == {1000.0}
    assert quantities("two or three eyes, a dozen eggs") == {2.0, 3.0, 12.0}
    assert quantities("one of them runs on PS4 and mp3") == frozenset()
    assert quantities("$23.70 per hour, 10ms, 4.5%") == {23.7, 10.0, 4.5}
    assert quantities("no digits here") == frozenset()


def test_quantities_never_hold_infinity():
    assert quantities("9" * 400) == frozenset()


def test_stems_fold_inflection_and_keep_versions_whole():
    assert stems("Requests were located; the request location") == [
        "request",
        "locat",
        "request",
        "locat",
    ]
    assert stems("upgrade to 2.3.1 now") == ["upgrad", "2.3.1"]
    assert stems("It earns 3 dollars") == ["earn", "dollar"]


def test_seed_answer_splits_like_the_seed():
    assert texts(SEED_ANSWER) == [
        "You can send 100 requests per minute per API key.",
        "Extra requests return status 429.",
        "Limits reset every hour.",
    ]
    assert [s.id for s in segment(SEED_ANSWER)] == ["s1", "s2", "s3"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Use an SDK, e.g. the Python one. Then retry.",
            ["Use an SDK, e.g. the Python one.", "Then retry."],
        ),
        ("Pick one, i.e. the first. Done.", ["Pick one, i.e. the first.", "Done."]),
        ("It runs in the U.S. region. Fine.", ["It runs in the U.S. region.", "Fine."]),
        ("Version 1.5 is out. Use v2.3.1 now.", ["Version 1.5 is out.", "Use v2.3.1 now."]),
        (
            "Read https://example.com/docs/a.b.html first. Then mail ops@example.co.uk today.",
            ["Read https://example.com/docs/a.b.html first.", "Then mail ops@example.co.uk today."],
        ),
        (
            "Call `client.send(). retry()` twice. Ok.",
            ["Call `client.send(). retry()` twice.", "Ok."],
        ),
        ("Apples, pears etc. are fruit. Yes.", ["Apples, pears etc. are fruit.", "Yes."]),
        ("We stop here etc. Next part.", ["We stop here etc.", "Next part."]),
        (
            "See No. 5 for more. The answer is no. Retry.",
            ["See No. 5 for more.", "The answer is no.", "Retry."],
        ),
        ("Why? Because! Really.", ["Why?", "Because!", "Really."]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("No final stop", ["No final stop"]),
    ],
)
def test_sentence_boundaries(text, expected):
    assert split_sentences(text) == expected


def test_markdown_lists_code_blocks_tables_and_headings():
    answer = """## How to retry

To retry:

1. Wait for Retry-After seconds. It is sent with every 429.
2) Send the request again.
- Or use the SDK,
  which retries for you.
* Another bullet.

```python
client.retry(max=3). wait()
print("done. really")
```

| code | meaning |
|------|---------|
| 429 | too many requests |
---
> Quoted note here.
"""
    segments = segment(answer)
    assert [(s.id, s.kind, s.text) for s in segments] == [
        ("s1", "sentence", "To retry:"),
        ("s2", "item", "Wait for Retry-After seconds."),
        ("s3", "sentence", "It is sent with every 429."),
        ("s4", "item", "Send the request again."),
        ("s5", "item", "Or use the SDK, which retries for you."),
        ("s6", "item", "Another bullet."),
        ("s7", "code", 'client.retry(max=3). wait()\nprint("done. really")'),
        ("s8", "row", "code | meaning"),
        ("s9", "row", "429 | too many requests"),
        ("s10", "sentence", "Quoted note here."),
    ]


def test_underlined_headings_are_left_out():
    answer = "Rate limits\n===========\nSend 100 a minute.\n\nRetries\n-------\nWait first."
    assert texts(answer) == ["Send 100 a minute.", "Wait first."]


def test_unclosed_code_fence_keeps_its_code():
    assert [(s.kind, s.text) for s in segment("Run this:\n```\nmake test. now\n")] == [
        ("sentence", "Run this:"),
        ("code", "make test. now"),
    ]


def test_segmentation_is_stable_and_empty_answers_have_no_segments():
    answer = "First line.\r\nSecond line. Third.\n\n- item one. item two"
    assert segment(answer) == segment(answer)
    assert texts(answer) == ["First line.", "Second line.", "Third.", "item one.", "item two"]
    assert segment("") == ()
    assert segment(None) == ()
    assert segment("  \n\n ") == ()
    assert segment("# Only a heading\n---") == ()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(st.sampled_from("0123456789.,ab- x"), max_size=30))
def test_the_lookahead_of_the_quantity_pattern_changes_no_match(text) -> None:
    pattern = text_module._QUANTITY
    plain = re.compile(pattern.pattern.removeprefix("(?=\\d)"))
    assert plain.pattern != pattern.pattern
    assert pattern.findall(text) == plain.findall(text)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(["no", "not", "n't", "cannot", "without", "w", "c", "x", " "])))
def test_the_lookahead_of_the_negation_pattern_changes_no_match(pieces) -> None:
    text = "".join(pieces)
    plain = re.compile(text_module.NEGATION.pattern.removeprefix("(?=[ncw])"))
    assert plain.pattern != text_module.NEGATION.pattern
    assert text_module.NEGATION.subn(" ", text) == plain.subn(" ", text)
