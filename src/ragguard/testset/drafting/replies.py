"""The judge's drafting replies read into drafts, tolerating what models do.

A reply is one JSON object, bare or inside a fenced code block (```json ... ```, with prose
around it). Anything else is malformed: not JSON (or JSON holding a lone surrogate escape,
which no UTF-8 file could hold), a missing or empty field, a field of the
wrong type, a quote naming a document the prompt did not give, too few quotes for the kind.
A malformed reply raises :class:`MalformedReply`, which drafting counts and skips.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from ragguard.core.sources import parse_json_value
from ragguard.testset.drafting.model import (
    COMPARISON,
    FOLLOW_UP,
    MULTI_HOP,
    UNANSWERABLE,
    Draft,
    Quote,
    Turn,
)

_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n(.*?)\n?```", re.DOTALL)


class MalformedReply(ValueError):
    """A reply drafting cannot use; the message says why."""


def reply_object(content: str) -> dict[str, Any]:
    """The JSON object of a reply: the whole text, or the first fenced block's."""
    for candidate in [content, *_FENCE.findall(content)]:
        try:
            value = parse_json_value(candidate)  # a lone surrogate could not be written back
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
        raise MalformedReply(f"a JSON {type(value).__name__}, not an object")
    raise MalformedReply("not JSON")


def draft_from_reply(content: str, kind: str, docs: Collection[str], source: str) -> Draft:
    """The draft a reply holds; ``docs``: the documents the prompt gave."""
    data = reply_object(content)
    if kind == FOLLOW_UP:
        turns = _list(data, "turns", 2)
        read = tuple(_turn(turn, docs) for turn in turns)
        return Draft(kind, read[0].question, read[0].answer, source, turns=read)
    question = _text(data, "question")
    if kind == UNANSWERABLE:
        answer = data.get("answer")
        return Draft(kind, question, answer.strip() if _is_text(answer) else None, source)
    answer = _text(data, "answer")
    if kind == MULTI_HOP:
        hops = tuple((_quote(hop, docs),) for hop in _list(data, "hops", 2))
        return Draft(kind, question, answer, source, hops=hops)
    evidence = _quotes(data, docs, 2 if kind == COMPARISON else 1)
    return Draft(kind, question, answer, source, evidence=evidence)


def _turn(value: Any, docs: Collection[str]) -> Turn:
    if not isinstance(value, Mapping):
        raise MalformedReply("a turn is not an object")
    return Turn(_text(value, "question"), _text(value, "answer"), _quotes(value, docs, 1))


def _quotes(data: Mapping[str, Any], docs: Collection[str], least: int) -> tuple[Quote, ...]:
    return tuple(_quote(item, docs) for item in _list(data, "evidence", least))


def _quote(value: Any, docs: Collection[str]) -> Quote:
    if not isinstance(value, Mapping):
        raise MalformedReply("evidence is not an object with doc and quote")
    doc, quote = _text(value, "doc"), _text(value, "quote")
    if doc not in docs:
        raise MalformedReply(f"evidence names {doc!r}, a document the prompt did not give")
    return Quote(doc, quote)


def _list(data: Mapping[str, Any], key: str, least: int) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list):
        raise MalformedReply(f"{key} is missing or not a list")
    if len(value) < least:
        raise MalformedReply(f"{key} has {len(value)} items, fewer than {least}")
    return value


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not _is_text(value):
        raise MalformedReply(f"{key} is missing, empty or not a string")
    return str(value).strip()


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())
