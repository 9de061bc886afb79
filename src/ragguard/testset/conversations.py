"""Conversations in a test set: an entry with ``turns`` instead of ``question`` (docs/agents.md)::

    - id: support-12
      tags: [warranty]
      turns:
        - question: I bought a model X last spring.
          expected_tools: [{name: lookup_model, arguments: {model: X}}]
        - question: How long is its warranty?
          relevant: [warranty#3]

Each turn is scored as a question of its own, id ``<conversation id>#<turn>`` (from 1), with
the conversation's tags before its own; ragguard asks the turns in order, each with the
messages before it (the user's and the system's answers).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import shown, unknown_key_message
from ragguard.testset.labels import identifier, item_where, parse_status, parse_tags
from ragguard.testset.model import Question

CONVERSATION_KEYS = ("id", "turns", "tags", "critical", "meta", "status", "kind", "source")
# Set on the conversation, for all its turns: a conversation is reviewed as a whole.
WHOLE_CONVERSATION_KEYS = ("status", "kind", "source")
TURN_SEPARATOR = "#"


def turn_number(question_id: str) -> int:
    """A turn's number, from its id ``<conversation id>#<turn>``."""
    return int(question_id.rsplit(TURN_SEPARATOR, 1)[1])


def is_conversation(entry: Mapping[str, Any]) -> bool:
    return "turns" in entry


def conversation_turns(
    entry: Mapping[str, Any],
    where: Where,
    read_question: Callable[[Mapping[str, Any], Where], Question],
) -> list[Question]:
    """The conversation's turns as questions, each read by ``read_question``."""
    for key in entry:
        if key not in CONVERSATION_KEYS:
            hint = (
                " (a conversation's question text goes in each turn)" if key == "question" else ""
            )
            raise where.error(unknown_key_message(key, CONVERSATION_KEYS) + hint, key=str(key))
    conversation = identifier(entry.get("id"), "id", where)
    if entry.get("critical") is not None and not isinstance(entry["critical"], bool):
        raise where.error(
            f"expected true or false, found {shown(entry['critical'])}", key="critical"
        )
    if entry.get("meta") is not None and not isinstance(entry["meta"], Mapping):
        raise where.error(f"expected a mapping, found {shown(entry['meta'])}", key="meta")
    parse_status(entry.get("status"), where)
    turns = entry.get("turns")
    if not isinstance(turns, list) or not turns:
        raise where.error(
            f"expected a list of turns, each {{question: ..., relevant: ...}}, found {shown(turns)}",
            key="turns",
        )
    questions = []
    for index, turn in enumerate(turns):
        at = item_where(turns, index, where)
        questions.append(_turn(conversation, index, turn, entry, at, read_question))
    return questions


def _turn(
    conversation: str,
    index: int,
    turn: Any,
    entry: Mapping[str, Any],
    where: Where,
    read_question: Callable[[Mapping[str, Any], Where], Question],
) -> Question:
    key = f"turns[{index}]"
    if not isinstance(turn, Mapping):
        raise where.error(f"expected a turn mapping with 'question', found {shown(turn)}", key=key)
    if "id" in turn:
        raise where.error(
            f"a turn takes its id from the conversation ({conversation}#{index + 1}); remove it",
            key=f"{key}.id",
        )
    for name in WHOLE_CONVERSATION_KEYS:
        if name in turn:
            raise where.error(
                f"is set on the conversation, for all its turns; move it up to {conversation!r}",
                key=f"{key}.{name}",
            )
    fields = {"id": f"{conversation}{TURN_SEPARATOR}{index + 1}", **turn}
    fields.update({name: entry[name] for name in WHOLE_CONVERSATION_KEYS if name in entry})
    if "critical" not in turn and entry.get("critical") is not None:
        fields["critical"] = entry["critical"]
    if entry.get("meta") and isinstance(turn.get("meta", {}), Mapping):
        fields["meta"] = {**entry["meta"], **(turn.get("meta") or {})}
    try:
        question = read_question(fields, where)
    except InputError as exc:
        inner = f"{key}.{exc.key}" if exc.key else key
        raise InputError(exc.source, exc.message, line=exc.line, key=inner) from None
    tags = parse_tags(entry.get("tags"), where)
    if tags:
        question = dataclasses.replace(question, tags=tuple(dict.fromkeys(tags + question.tags)))
    return dataclasses.replace(question, conversation=conversation)
