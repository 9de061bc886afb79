"""What a span says about an agent's work, by the OpenInference and OpenTelemetry GenAI
semantic conventions (docs/traces.md has the table).

The kind of step comes from ``openinference.span.kind`` (RETRIEVER, TOOL, LLM; AGENT, CHAIN
and the rest only give the trace its shape), else from ``gen_ai.operation.name``
(``retrieval``, ``execute_tool``, ``chat`` / ``text_completion`` / ``generate_content``).
The question a trace answers comes from ``ragguard.question.id`` or the root span's
``input.value``; the session from ``session.id`` or ``gen_ai.conversation.id``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragguard.core.sources import shown
from ragguard.results.steps import LLM, RETRIEVAL, TOOL, Step
from ragguard.results.usage import Usage
from ragguard.traces.anyvalue import BadValue
from ragguard.traces.documents import ranking_of

QUESTION_ID = "ragguard.question.id"
SPAN_KIND = "openinference.span.kind"
OPERATION = "gen_ai.operation.name"
INPUT, OUTPUT = "input.value", "output.value"
SESSION_IDS = ("session.id", "gen_ai.conversation.id")
QUERY_NAMES = (INPUT, "gen_ai.retrieval.query.text")  # GenAI spans: the other way round
TOOL_NAMES = ("tool.name", "gen_ai.tool.name")
TOOL_ARGUMENTS = (INPUT, "tool_call.function.arguments", "gen_ai.tool.call.arguments")
GENAI_ARGUMENTS_FIRST = ("gen_ai.tool.call.arguments", INPUT, "tool_call.function.arguments")
USAGE_ATTRIBUTES = {
    "prompt_tokens": (
        "llm.token_count.prompt",
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.prompt_tokens",
    ),
    "completion_tokens": (
        "llm.token_count.completion",
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.completion_tokens",
    ),
    "total_tokens": ("llm.token_count.total",),
    "cost": ("llm.cost.total",),
}
OPENINFERENCE_KINDS = {"RETRIEVER": RETRIEVAL, "TOOL": TOOL, "LLM": LLM}
GENAI_OPERATIONS = {
    "retrieval": RETRIEVAL,
    "execute_tool": TOOL,
    "chat": LLM,
    "text_completion": LLM,
    "generate_content": LLM,
}
OUTPUT_MESSAGES = "llm.output_messages."
GENAI_OUTPUT_MESSAGES = "gen_ai.output.messages"


@dataclass(frozen=True, slots=True)
class SpanFacts:
    """What ragguard keeps of one span: its step, and the texts a root or a model call has.

    ``input``/``output`` are kept for a span without a parent (a root) only; ``reply`` (a
    model call's reply text) for LLM spans only. ``without_id``/``repeated`` count the
    retrieved documents left out of its step.
    """

    step: Step | None = None
    input: str | None = None
    output: str | None = None
    reply: str | None = None
    question_id: str | None = None
    session_id: str | None = None
    without_id: int = 0
    repeated: int = 0


def span_facts(attributes: Mapping[str, Any], name: str, is_root: bool, key: str) -> SpanFacts:
    """The facts of a span with these attributes and ``name``; ``key`` names it in errors."""
    kind, genai = step_kind(attributes)
    question_id = _text(attributes, QUESTION_ID, key)
    session_id = _first_text(attributes, SESSION_IDS, key)
    texts = (_text(attributes, INPUT, key), _output(attributes, key)) if is_root else (None, None)
    if kind == RETRIEVAL:
        ranking = ranking_of(attributes, key)
        query = _first_text(attributes, QUERY_NAMES[::-1] if genai else QUERY_NAMES, key)
        step = Step(RETRIEVAL, query=query, retrieved=ranking.chunks)
        return SpanFacts(
            step, *texts, None, question_id, session_id, ranking.without_id, ranking.repeated
        )
    if kind == TOOL:
        tool = _tool_name(attributes, name, key)
        step = Step(TOOL, name=tool, arguments=_arguments(attributes, genai))
        return SpanFacts(step, *texts, None, question_id, session_id)
    if kind == LLM:
        step = Step(LLM, usage=_usage(attributes, key))
        return SpanFacts(step, *texts, _reply(attributes, key), question_id, session_id)
    return SpanFacts(None, *texts, None, question_id, session_id)


def step_kind(attributes: Mapping[str, Any]) -> tuple[str | None, bool]:
    """The step type (None: not a step) and whether the GenAI conventions named it."""
    span_kind = attributes.get(SPAN_KIND)
    if isinstance(span_kind, str):
        return OPENINFERENCE_KINDS.get(span_kind.upper()), False
    operation = attributes.get(OPERATION)
    if isinstance(operation, str):
        return GENAI_OPERATIONS.get(operation), True
    return None, False


def _text(attributes: Mapping[str, Any], name: str, key: str) -> str | None:
    value = attributes.get(name)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) and name != INPUT:
        return str(value)
    raise BadValue(f"expected a string, found {shown(value)}", f"{key} attribute {name!r}")


def _first_text(attributes: Mapping[str, Any], names: tuple[str, ...], key: str) -> str | None:
    for name in names:
        value = _text(attributes, name, key)
        if value is not None:
            return value
    return None


def _tool_name(attributes: Mapping[str, Any], span_name: str, key: str) -> str:
    """``tool.name``, else ``gen_ai.tool.name``, else the span's name."""
    name = _first_text(attributes, TOOL_NAMES, key) or span_name
    if not name.strip():
        raise BadValue(
            "a tool span needs the tool's name in 'tool.name', 'gen_ai.tool.name' or the "
            "span's name",
            key,
        )
    return name


def _arguments(attributes: Mapping[str, Any], genai: bool) -> dict[str, Any] | None:
    """A tool call's arguments: an object, or its JSON text; any other input is given as
    ``{"input": value}`` (a tool that takes one string)."""
    for name in GENAI_ARGUMENTS_FIRST if genai else TOOL_ARGUMENTS:
        value = attributes.get(name)
        if value is None:
            continue
        if isinstance(value, str):
            try:
                value = json.loads(value) if value.strip() else None
            except ValueError:
                return {"input": attributes[name]}
        if isinstance(value, Mapping):
            return dict(value)
        return None if value is None else {"input": value}
    return None


def _usage(attributes: Mapping[str, Any], key: str) -> Usage | None:
    counts: dict[str, float] = {}
    for field, names in USAGE_ATTRIBUTES.items():
        for name in names:
            value = attributes.get(name)
            if value is None:
                continue
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value < 0
            ):
                raise BadValue(
                    f"expected a non-negative number, found {shown(value)}",
                    f"{key} attribute {name!r}",
                )
            counts[field] = float(value)
            break
    return Usage(**counts) if counts else None


def _output(attributes: Mapping[str, Any], key: str) -> str | None:
    """A root span's answer: ``output.value``, else its reply messages."""
    value = _text(attributes, OUTPUT, key)
    return value if value is not None else _reply(attributes, key, fallback=False)


def _reply(attributes: Mapping[str, Any], key: str, fallback: bool = True) -> str | None:
    """A model call's reply: its first output message's text (OpenInference's
    ``llm.output_messages.0.message.content``, or the text parts of the GenAI
    ``gen_ai.output.messages``), else ``output.value``."""
    reply = _openinference_reply(attributes)
    if reply is None and GENAI_OUTPUT_MESSAGES in attributes:
        reply = _genai_reply(attributes[GENAI_OUTPUT_MESSAGES])
    if reply is None and fallback:
        reply = _text(attributes, OUTPUT, key)
    return reply


def _openinference_reply(attributes: Mapping[str, Any]) -> str | None:
    parts: dict[int, list[tuple[str, str]]] = {}
    for name, value in attributes.items():
        if not name.startswith(OUTPUT_MESSAGES) or not isinstance(value, str):
            continue
        index, _, field = name[len(OUTPUT_MESSAGES) :].partition(".")
        if not (index.isascii() and index.isdigit()):
            continue
        if field == "message.content" or (
            field.startswith("message.contents.") and field.endswith(".message_content.text")
        ):
            parts.setdefault(int(index), []).append((field, value))
    if not parts:
        return None
    first = parts[min(parts)]
    whole = [value for field, value in first if field == "message.content"]
    return whole[0] if whole else "".join(value for _, value in sorted(first, key=_part_order))


def _part_order(part: tuple[str, str]) -> int:
    number = part[0].split(".")[2]
    return int(number) if number.isdigit() else 0


def _genai_reply(value: Any) -> str | None:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if not isinstance(value, list):
        return None
    for message in value:
        parts = message.get("parts") if isinstance(message, Mapping) else None
        if not isinstance(parts, list):
            continue
        texts = [
            part["content"]
            for part in parts
            if isinstance(part, Mapping)
            and part.get("type") == "text"
            and isinstance(part.get("content"), str)
        ]
        if texts:
            return "".join(texts)
    return None
