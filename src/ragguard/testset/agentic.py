"""An agent's labels in a test-set entry: the retrieval hops it should make, in order, and
the tool calls it should make (docs/agents.md)::

    - id: refund-pro
      question: Can I get a refund on the Pro plan after 30 days?
      hops:
        - relevant: [plans#4]
        - relevant: [{doc: refunds.md, quote: "Pro plans are refundable for 60 days"}]
      expected_tools:
        - name: lookup_plan
          arguments: {plan: pro}
      tool_order: strict

The question's own ``relevant`` may be left out: it is then the union of the hops' labels
(a chunk or evidence in several hops at its highest grade). Given, it is used as written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ragguard.core.errors import Where
from ragguard.core.sources import shown, type_name, unknown_key_message
from ragguard.testset.labels import item_where, parse_labels
from ragguard.testset.model import TOOL_ORDERS, Evidence, Hop, ToolCall

HOP_KEYS = ("relevant",)
TOOL_KEYS = ("name", "arguments")


def parse_hops(value: Any, where: Where) -> tuple[Hop, ...]:
    """The ``hops`` list: each hop a mapping with its ``relevant`` labels (at least one)."""
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        raise where.error(
            f"expected a list of hops in order, each {{relevant: [...]}}, found {shown(value)}",
            key="hops",
        )
    return tuple(
        _hop(item, index, item_where(value, index, where)) for index, item in enumerate(value)
    )


def _hop(item: Any, index: int, where: Where) -> Hop:
    key = f"hops[{index}]"
    if not isinstance(item, Mapping):
        raise where.error(f"expected a mapping with 'relevant', found {type_name(item)}", key=key)
    for name in item:
        if name not in HOP_KEYS:
            raise where.error(unknown_key_message(name, HOP_KEYS), key=f"{key}.{name}")
    relevant, evidence = parse_labels(item.get("relevant"), where, f"{key}.relevant")
    if not any(grade >= 1 for grade in relevant.values()) and not any(
        e.grade >= 1 for e in evidence
    ):
        raise where.error(
            "a hop needs at least one relevant chunk or evidence (grade >= 1): what this "
            "retrieval must find",
            key=f"{key}.relevant",
        )
    return Hop(relevant, evidence)


def parse_tools(value: Any, where: Where) -> tuple[ToolCall, ...]:
    """The ``expected_tools`` list: each ``{name, arguments?}`` (or just the name)."""
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        raise where.error(
            f"expected a list of tool calls, each {{name: ..., arguments: {{...}}}}, found "
            f"{shown(value)}",
            key="expected_tools",
        )
    return tuple(
        _tool(item, index, item_where(value, index, where)) for index, item in enumerate(value)
    )


def _tool(item: Any, index: int, where: Where) -> ToolCall:
    key = f"expected_tools[{index}]"
    if isinstance(item, str):
        item = {"name": item}
    if not isinstance(item, Mapping):
        raise where.error(f"expected a mapping with 'name', found {type_name(item)}", key=key)
    for name in item:
        if name not in TOOL_KEYS:
            raise where.error(unknown_key_message(name, TOOL_KEYS), key=f"{key}.{name}")
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise where.error(f"the tool's name is required, found {shown(name)}", key=f"{key}.name")
    arguments = item.get("arguments")
    if arguments is not None and not isinstance(arguments, Mapping):
        raise where.error(
            f"expected a mapping of the arguments that must match, found {type_name(arguments)}",
            key=f"{key}.arguments",
        )
    return ToolCall(name.strip(), _plain(arguments) if arguments is not None else None)


def _plain(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments as plain JSON values (YAML's line-carrying mappings and lists unwrapped)."""
    return json.loads(json.dumps(arguments, default=str))


def parse_tool_order(value: Any, has_tools: bool, where: Where) -> str:
    if value is None:
        return "any"
    if value not in TOOL_ORDERS:
        raise where.error(
            f"expected one of {', '.join(TOOL_ORDERS)}, found {shown(value)}", key="tool_order"
        )
    if not has_tools:
        raise where.error("tool_order needs expected_tools beside it", key="tool_order")
    return str(value)


def union_of_hops(hops: tuple[Hop, ...]) -> tuple[dict[str, int], tuple[Evidence, ...]]:
    """Every hop's labels together, each chunk or evidence at its highest grade."""
    relevant: dict[str, int] = {}
    evidence: dict[str, Evidence] = {}
    for hop in hops:
        for chunk, grade in hop.relevant.items():
            relevant[chunk] = max(grade, relevant.get(chunk, grade))
        for item in hop.evidence:
            kept = evidence.get(item.key)
            if kept is None or item.grade > kept.grade:
                evidence[item.key] = item
    return relevant, tuple(evidence.values())
