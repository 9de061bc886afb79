"""What an agent did on its way to an answer: its retrievals, tool calls and model calls.

A run record may carry ``steps``, in the order they happened::

    "steps": [
      {"type": "retrieval", "query": "which plans exist", "retrieved": ["plans#1", "plans#4"]},
      {"type": "tool", "name": "lookup_order", "arguments": {"order_id": "A-17"}},
      {"type": "retrieval", "query": "refund rules for Pro", "retrieved": ["refunds#2"]},
      {"type": "llm", "usage": {"prompt_tokens": 812, "completion_tokens": 96}}
    ]

A record without ``retrieved`` takes the ordered union of its retrieval steps (each chunk at
its first place), and one without ``usage`` the sum of its model calls' usage, so every
question-level metric works on an agent's run unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ragguard.core.errors import Where
from ragguard.core.sources import parse_json_value, shown, type_name, unknown_key_message
from ragguard.core.surrogates import LoneSurrogate
from ragguard.results.chunks import Chunk, chunk_to_dict, ranking_from_list
from ragguard.results.usage import USAGE_KEYS, Usage, usage_from_mapping

RETRIEVAL, TOOL, LLM = "retrieval", "tool", "llm"
STEP_KEYS = {
    RETRIEVAL: ("type", "query", "retrieved"),
    TOOL: ("type", "name", "arguments"),
    LLM: ("type", "usage"),
}


@dataclass(frozen=True, slots=True)
class Step:
    """One thing the system did: a retrieval (its query and ranking), a tool call (its name
    and arguments) or a model call (its usage)."""

    type: str
    query: str | None = None
    retrieved: tuple[Chunk, ...] = ()
    name: str | None = None
    arguments: Mapping[str, Any] | None = None
    usage: Usage | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.type == RETRIEVAL:
            ranking = [c.id if c.is_bare else chunk_to_dict(c) for c in self.retrieved]
            return {"type": RETRIEVAL, "query": self.query, "retrieved": ranking}
        if self.type == TOOL:
            arguments = dict(self.arguments) if self.arguments is not None else None
            return {"type": TOOL, "name": self.name, "arguments": arguments}
        return {"type": LLM, "usage": self.usage.to_dict() if self.usage else None}


def steps_from_list(value: Any, where: Where) -> tuple[Step, ...]:
    """Validated steps (``None`` is none); errors name ``steps[i]`` and the key."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise where.error(f"expected a list of steps in order, found {type_name(value)}", "steps")
    return tuple(_step(item, f"steps[{index}]", where) for index, item in enumerate(value))


def _step(item: Any, key: str, where: Where) -> Step:
    if not isinstance(item, Mapping):
        raise where.error(f"expected a step object with 'type', found {type_name(item)}", key)
    kind = item.get("type")
    if kind not in STEP_KEYS:
        found = "missing" if "type" not in item else shown(kind)
        raise where.error(f"'type' is {found}; a step is one of: {', '.join(STEP_KEYS)}", key)
    for name in item:
        if name not in STEP_KEYS[kind]:
            raise where.error(unknown_key_message(name, STEP_KEYS[kind]), f"{key}.{name}")
    if kind == RETRIEVAL:
        query = item.get("query")
        if query is not None and not isinstance(query, str):
            raise where.error(f"expected a string, found {type_name(query)}", f"{key}.query")
        ranking = ranking_from_list(item.get("retrieved"), where, f"{key}.retrieved")
        return Step(RETRIEVAL, query=query, retrieved=ranking)
    if kind == TOOL:
        return Step(TOOL, name=_tool_name(item, key, where), arguments=_arguments(item, key, where))
    return Step(LLM, usage=usage_from_mapping(item.get("usage"), where, f"{key}.usage"))


def _tool_name(item: Mapping[str, Any], key: str, where: Where) -> str:
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise where.error(f"a tool step needs the tool's name, found {shown(name)}", f"{key}.name")
    return name


def _arguments(item: Mapping[str, Any], key: str, where: Where) -> Mapping[str, Any] | None:
    """A tool call's arguments: an object, or the JSON text of one (as LLM APIs send them)."""
    value = item.get("arguments")
    if isinstance(value, str):
        try:
            value = parse_json_value(value)
        except LoneSurrogate as exc:  # docs/formats.md, "Decisions the formats leave open"
            raise where.error(f"JSON text of the arguments: {exc}", f"{key}.arguments") from None
        except ValueError:
            value = None if not value.strip() else value
    if value is None or isinstance(value, Mapping):
        return dict(value) if value is not None else None
    raise where.error(
        f"expected an object (or its JSON text), found {type_name(value)}", f"{key}.arguments"
    )


def retrieval_steps(steps: Iterable[Step]) -> list[Step]:
    return [step for step in steps if step.type == RETRIEVAL]


def tool_steps(steps: Iterable[Step]) -> list[Step]:
    return [step for step in steps if step.type == TOOL]


def union_of_retrievals(steps: Iterable[Step]) -> tuple[Chunk, ...]:
    """The chunks of every retrieval step in order, each at its first place."""
    seen: dict[str, Chunk] = {}
    for step in retrieval_steps(steps):
        for chunk in step.retrieved:
            seen.setdefault(chunk.id, chunk)
    return tuple(seen.values())


def usage_of_steps(steps: Iterable[Step]) -> Usage | None:
    """The model calls' usage summed; a count is known only when every call that reports
    usage gives it (a partial sum would undercount)."""
    usages = [step.usage for step in steps if step.type == LLM and step.usage is not None]
    if not usages:
        return None
    totals: dict[str, float] = {}
    for key in USAGE_KEYS:
        values = [
            usage.tokens if key == "total_tokens" else getattr(usage, key) for usage in usages
        ]
        if all(value is not None for value in values):
            totals[key] = sum(value for value in values if value is not None)
    return Usage(**totals)
