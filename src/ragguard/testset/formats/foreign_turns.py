"""Multi-turn test sets written by ragas and deepeval, read as conversations (docs/formats.md,
"Importing conversations"), checked against files written by ragas 0.4.3 and deepeval 4.3.1:

- ragas ``MultiTurnSample`` saved by ``EvaluationDataset.to_jsonl`` or ``to_csv``:
  ``user_input``, a list of messages ``{type: human | ai | tool, content, tool_calls}``
  (in CSV a Python literal), ``reference``, ``reference_tool_calls`` (``{name, args}``) for
  the whole conversation, ``reference_topics``, ``rubrics``.
- deepeval ``ConversationalGolden`` saved by ``EvaluationDataset.save_as`` (json, jsonl,
  csv): ``scenario``, ``turns`` (``{role: user | assistant, content, retrieval_context,
  tools_called}``; in CSV the JSON text of the list), ``expected_outcome``, ``context`` (a
  list, or one string joined with ``|`` in csv), ``name``, ``additional_metadata``.

An entry is a conversation by its content, as the libraries' own readers decide: ragas'
``user_input`` is a list of messages, deepeval's golden has a ``scenario``. Each user message
is a turn; the assistant's messages after it are that turn's answer. What an answer did (its
tool calls, the text it retrieved) is the saved conversation's output: it is kept only to say
which turn a conversation-wide label belongs to (:mod:`ragguard.testset.importing_turns`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragguard.core.errors import Where
from ragguard.core.sources import parse_json_value, shown
from ragguard.testset.formats.foreign_values import (
    ForeignCall,
    context_list,
    deepeval_contexts,
    list_at,
    mapping_at,
    optional_text,
    python_literal,
    required_text,
    tool_call,
)

RAGAS_TYPES = {"human": "user", "ai": "assistant", "tool": "tool"}
DEEPEVAL_ROLES = ("user", "assistant")
_RAGAS_MESSAGES = "a list of messages as ragas writes it ([{'content': ..., 'type': 'human'}])"
_RAGAS_CALLS = "a list of tool calls as ragas writes it ([{'name': ..., 'args': {...}}])"
_DEEPEVAL_SOURCE = re.compile(r"^deepeval_source=.*?,deepeval_context=(?P<context>.*)$", re.S)


@dataclass(frozen=True)
class ForeignTurn:
    """A user message and what the saved conversation's answer to it did.

    ``expected_tools`` are the calls the answer made where the format takes them as the
    expectation (deepeval's golden turns); ``called`` (tool names, ragas) and ``retrieved``
    (texts, deepeval) only place the conversation's labels on turns.
    """

    question: str
    expected_tools: tuple[ForeignCall, ...] = ()
    called: tuple[str, ...] = ()
    retrieved: tuple[str, ...] = ()


@dataclass(frozen=True)
class ForeignConversation:
    """One multi-turn entry of another tool's test set, before it has an id and labels."""

    turns: tuple[ForeignTurn, ...]
    where: Where
    contexts: tuple[str, ...] = ()
    reference_tools: tuple[ForeignCall, ...] = ()
    reference_answer: str | None = None
    name: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def id_text(self) -> str:
        """The text an id is made from when the file names none: the user's messages."""
        return "\n".join(turn.question for turn in self.turns)


@dataclass(frozen=True)
class _Message:
    role: str
    content: str
    calls: tuple[ForeignCall, ...] = ()
    retrieved: tuple[str, ...] = ()


def is_ragas_conversation(entry: Mapping[str, Any]) -> bool:
    value = entry.get("user_input")
    return isinstance(value, list) or (isinstance(value, str) and value.lstrip().startswith("[{"))


def is_deepeval_conversation(entry: Mapping[str, Any]) -> bool:
    return bool(entry.get("scenario"))


def ragas_conversation(entry: Mapping[str, Any], where: Where) -> ForeignConversation:
    messages = list_at(
        _literal(entry.get("user_input"), "user_input", where, _RAGAS_MESSAGES),
        "user_input",
        where,
        "messages {type, content}",
    )
    calls = _literal(entry.get("reference_tool_calls"), "reference_tool_calls", where, _RAGAS_CALLS)
    read = [_ragas_message(item, f"user_input[{i}]", where) for i, item in enumerate(messages)]
    reference_tools = tuple(
        tool_call(item, f"reference_tool_calls[{index}]", where, ("args",))
        for index, item in enumerate(list_at(calls, "reference_tool_calls", where, "tool calls"))
    )
    meta = {
        key: _literal(entry[key], key, where, f"the {key} as ragas writes them")
        for key in ("reference_topics", "rubrics")
        if entry.get(key)
    }
    turns = tuple(
        ForeignTurn(question, called=tuple(c.name for m in answer for c in m.calls))
        for question, answer in _turns(read)
    )
    return ForeignConversation(
        turns,
        where,
        reference_tools=reference_tools,
        reference_answer=optional_text(entry, "reference", where),
        meta=meta,
    )


def _literal(value: Any, key: str, where: Where, shape: str) -> Any:
    """A value as read; a string as the Python literal ragas' CSV writer printed."""
    return python_literal(value, key, where, shape) if isinstance(value, str) else value


def _ragas_message(item: Any, key: str, where: Where) -> _Message:
    message = mapping_at(item, key, where, "a message {type, content}")
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in RAGAS_TYPES:
        raise where.error(
            f"expected the message's type: human, ai or tool, found {shown(kind)}",
            key=f"{key}.type",
        )
    role = RAGAS_TYPES[kind]
    if role != "user":
        calls = list_at(message.get("tool_calls"), f"{key}.tool_calls", where, "tool calls")
        return _Message(role, "", _calls(calls, f"{key}.tool_calls", where, ("args",)))
    return _Message(role, required_text(message, "content", where, "the user's message", f"{key}."))


def deepeval_conversation(entry: Mapping[str, Any], where: Where) -> ForeignConversation:
    scenario = required_text(entry, "scenario", where, "the scenario")
    read = [
        _deepeval_turn(item, f"turns[{i}]", where) for i, item in enumerate(_turns_of(entry, where))
    ]
    turns = tuple(
        ForeignTurn(
            question,
            expected_tools=tuple(c for m in answer for c in m.calls),
            retrieved=tuple(text for m in answer for text in m.retrieved),
        )
        for question, answer in _turns(read)
    )
    return ForeignConversation(
        turns,
        where,
        contexts=deepeval_contexts(entry.get("context"), where),
        reference_answer=optional_text(entry, "expected_outcome", where),
        name=optional_text(entry, "name", where),
        meta=_deepeval_meta(entry, scenario),
    )


def _turns_of(entry: Mapping[str, Any], where: Where) -> list[Any]:
    """deepeval's turns: a list, or in CSV the JSON text of one."""
    value = entry.get("turns")
    if isinstance(value, str):
        try:
            value = parse_json_value(value)
        except ValueError as exc:
            raise where.error(
                f"expected the turns as deepeval writes them (the JSON text of a list): {exc}",
                key="turns",
            ) from None
    return list_at(value, "turns", where, "turns {role, content, ...}")


def _deepeval_turn(item: Any, key: str, where: Where) -> _Message:
    turn = mapping_at(item, key, where, "a turn {role, content}")
    role = turn.get("role")
    if role not in DEEPEVAL_ROLES:
        raise where.error(
            f"expected the turn's role: user or assistant, found {shown(role)}", key=f"{key}.role"
        )
    if role == "user":
        return _Message(
            role, required_text(turn, "content", where, "the user's message", f"{key}.")
        )
    calls = list_at(turn.get("tools_called"), f"{key}.tools_called", where, "tool calls")
    retrieved = context_list(turn.get("retrieval_context"), f"{key}.retrieval_context", where)
    return _Message(
        role,
        "",
        _calls(calls, f"{key}.tools_called", where, ("inputParameters", "input_parameters")),
        tuple(_without_source(text) for text in retrieved),
    )


def _without_source(text: str) -> str:
    """A retrieved text without the marker deepeval saves a context's source in."""
    match = _DEEPEVAL_SOURCE.match(text)
    return match.group("context") if match else text


def _calls(
    items: Sequence[Any], key: str, where: Where, arguments_key: tuple[str, ...]
) -> tuple[ForeignCall, ...]:
    return tuple(
        tool_call(item, f"{key}[{index}]", where, arguments_key) for index, item in enumerate(items)
    )


def _deepeval_meta(entry: Mapping[str, Any], scenario: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"scenario": scenario}
    extra = entry.get("additional_metadata")
    if isinstance(extra, str):
        with contextlib.suppress(ValueError):
            extra = parse_json_value(extra)  # csv: the JSON text deepeval wrote
    if extra:
        meta["additional_metadata"] = extra
    return meta


def _turns(messages: Sequence[_Message]) -> list[tuple[str, list[_Message]]]:
    """Each user message with the messages after it up to the next one; what comes before
    the first user message counts with the first turn."""
    turns: list[tuple[str, list[_Message]]] = []
    leading: list[_Message] = []
    for message in messages:
        if message.role == "user":
            turns.append((message.content, []))
        elif turns:
            turns[-1][1].append(message)
        else:
            leading.append(message)
    if turns:
        turns[0][1][:0] = leading
    return turns
