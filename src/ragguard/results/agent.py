"""What an agent did on one question, as the results file keeps it (docs/agents.md): each
expected hop's retrieval step and what it missed, and the tool calls made against the
expected ones, so a comparison can name the hop or the tool that broke::

    "agent": {
      "steps": 5,
      "hops": [{"retrieval": 1, "query": "model X", "values": {"hop_recall@5": 1.0}, "missing": []},
               {"retrieval": null, "query": null, "values": {"hop_recall@5": 0.0},
                "missing": ["warranty#3"]}],
      "tools": {"called": [{"name": "refund", "arguments": {"id": 9}}],
                "missing": [{"name": "lookup_order", "arguments": {"id": 9}}],
                "unexpected": [{"name": "refund", "arguments": {"id": 9}}]}
    }

``steps`` is how many steps the run took (compared as the lower-is-better ``steps``);
``retrieval`` is the hop's step among the retrieval steps, from 1 (null: no step found its
evidence; ``query`` is then that of the one step left in its place, if there is one);
``missing`` the hop's relevant labels (chunk ids, evidence keys) that step did not retrieve.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragguard.core.errors import InputError


@dataclass(frozen=True, slots=True)
class HopDetail:
    retrieval: int | None
    query: str | None
    values: dict[str, float]
    missing: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CallDetail:
    name: str
    arguments: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments}


@dataclass(frozen=True, slots=True)
class AgentDetail:
    hops: tuple[HopDetail, ...] = ()
    called: tuple[CallDetail, ...] = ()
    missing_tools: tuple[CallDetail, ...] = ()
    unexpected_tools: tuple[CallDetail, ...] = ()
    has_tools: bool = False
    steps: int | None = None  # how many steps the run took (None: it gave none)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {} if self.steps is None else {"steps": self.steps}
        if self.hops:
            data["hops"] = [
                {
                    "retrieval": hop.retrieval,
                    "query": hop.query,
                    "values": hop.values,
                    "missing": list(hop.missing),
                }
                for hop in self.hops
            ]
        if self.has_tools:
            data["tools"] = {
                "called": [call.to_dict() for call in self.called],
                "missing": [call.to_dict() for call in self.missing_tools],
                "unexpected": [call.to_dict() for call in self.unexpected_tools],
            }
        return data


def agent_from_results(value: Any, source: str, path: str) -> AgentDetail | None:
    """A results file's ``agent`` of one question; InputError naming the key path."""
    if value is None:
        return None
    key = f"{path}.agent"
    if not isinstance(value, dict):
        raise InputError(source, "expected an object; re-create the file", key=key)
    hops = tuple(
        _hop(item, source, f"{key}.hops[{i}]")
        for i, item in enumerate(_list(value, "hops", source, key))
    )
    tools = value.get("tools")
    if tools is not None and not isinstance(tools, dict):
        raise InputError(source, "expected an object; re-create the file", key=f"{key}.tools")
    calls = {
        name: tuple(
            _call(item, source, f"{key}.tools.{name}[{i}]")
            for i, item in enumerate(_list(tools or {}, name, source, f"{key}.tools"))
        )
        for name in ("called", "missing", "unexpected")
    }
    steps = value.get("steps")
    if steps is not None and (type(steps) is not int or steps < 0):
        raise InputError(
            source, "expected a whole number of steps; re-create the file", key=f"{key}.steps"
        )
    return AgentDetail(
        hops, calls["called"], calls["missing"], calls["unexpected"], tools is not None, steps
    )


def _list(mapping: dict[str, Any], name: str, source: str, key: str) -> list[Any]:
    value = mapping.get(name, [])
    if not isinstance(value, list):
        raise InputError(source, "expected a list; re-create the file", key=f"{key}.{name}")
    return value


def _hop(item: Any, source: str, key: str) -> HopDetail:
    def bad(what: str) -> InputError:
        return InputError(source, f"{what}; re-create the file", key=key)

    if not isinstance(item, dict):
        raise bad("expected an object")
    retrieval, query = item.get("retrieval"), item.get("query")
    values, missing = item.get("values", {}), item.get("missing", [])
    if retrieval is not None and (type(retrieval) is not int or retrieval < 1):
        raise bad("'retrieval' must be a step number from 1, or null")
    if query is not None and not isinstance(query, str):
        raise bad("'query' must be a string or null")
    if not isinstance(values, dict) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in values.values()
    ):
        raise bad("'values' must map metric names to numbers")
    if not isinstance(missing, list) or not all(isinstance(m, str) for m in missing):
        raise bad("'missing' must be a list of labels")
    return HopDetail(retrieval, query, {k: float(v) for k, v in values.items()}, tuple(missing))


def _call(item: Any, source: str, key: str) -> CallDetail:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise InputError(
            source, "expected a tool call {name, arguments}; re-create the file", key=key
        )
    arguments = item.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        raise InputError(source, "'arguments' must be an object or null", key=key)
    return CallDetail(item["name"], arguments)
