"""Lone surrogates (core/surrogates.py): found in JSON text exactly where Python's json
module would decode one, and in values a python system returns."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragguard.core.sources import parse_json_value
from ragguard.core.surrogates import (
    LoneSurrogate,
    escape_surrogates,
    lone_surrogate_escape,
    surrogate_in,
)


def _has_surrogate(value: str) -> bool:
    return any(0xD800 <= ord(char) <= 0xDFFF for char in value)


# Pieces of a JSON string's text: surrogate escapes in either case, other escapes, an
# escaped backslash (whose second half must not start an escape) and plain characters.
HEX = "0123456789abcdefABCDEF"
pieces = st.one_of(
    st.builds(
        lambda d, first, rest: f"\\u{d}{first}{rest}",
        st.sampled_from("dD"),
        st.sampled_from("89abcdefABCDEF"),
        st.text(alphabet=HEX, min_size=2, max_size=2),
    ),
    st.sampled_from(["\\\\", '\\"', "\\n", "\\u0041", "\\u00e9", "u", "d", "8", "a", "é", " "]),
)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(st.lists(pieces, max_size=8))
def test_an_escape_is_found_exactly_when_json_decodes_a_lone_surrogate(parts: list[str]) -> None:
    text = '"' + "".join(parts) + '"'
    found = lone_surrogate_escape(text)
    assert (found is not None) == _has_surrogate(json.loads(text)), text


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ('"\\ud800"', 2),
        ('"a\\udc00"', 3),
        ('"\\udbff\\u0041"', 2),  # a high half followed by something else
        ('"\\udc00\\ud800"', 2),  # the halves in the wrong order
        ('"\\uD83D\\uDE00\\uDFFF"', 14),  # a valid pair, then a lone low half
        ('"\\\\\\ud800"', 4),  # an escaped backslash, then the escape
    ],
)
def test_the_first_lone_surrogate_escape_and_its_column(text: str, column: int) -> None:
    found = lone_surrogate_escape(text)
    assert found is not None and (found.lineno, found.colno) == (1, column)


@pytest.mark.parametrize("text", ['"\\ud83d\\ude00"', '"\\\\ud800"', '"plain"', '"\\u00e9"'])
def test_valid_pairs_and_escaped_backslashes_are_no_surrogate(text: str) -> None:
    assert lone_surrogate_escape(text) is None
    assert parse_json_value(text) == json.loads(text)


def test_parse_json_value_refuses_it_naming_line_and_column() -> None:
    with pytest.raises(LoneSurrogate) as raised:
        parse_json_value('{\n "a": "x",\n "b": "y\\udc00"\n}')
    assert (raised.value.lineno, raised.value.colno) == (3, 9)
    assert str(raised.value) == (
        "lone surrogate \\udc00 in a string (column 9); write the character itself or a "
        "valid surrogate pair"
    )


def test_a_surrogate_in_a_value_is_found_with_its_path() -> None:
    assert surrogate_in({"answer": "ok", "retrieved": []}) is None
    assert surrogate_in({"answer": "a\ud800"}) == ("answer", "\\ud800")
    value = {"retrieved": [{"id": "c1"}, {"id": "c2", "text": "x\udfff"}]}
    assert surrogate_in(value) == ("retrieved[1].text", "\\udfff")
    assert surrogate_in({"meta": {"k\udc80": 1}}) == ("meta (a key)", "\\udc80")
    assert surrogate_in("\ud83d\ude00") == ("the value", "\\ud83d")  # two code points: no pair
    looped: dict = {"a": "ok"}
    looped["self"] = looped
    assert surrogate_in(looped) is None


def test_a_message_quoting_another_programs_words_shows_a_surrogate_escaped() -> None:
    assert escape_surrogates("index \udc80 not loaded") == "index \\udc80 not loaded"
    assert escape_surrogates("plain é") == "plain é"
