"""An agent's failing question in words: the hop that lost its evidence, the tool call that
changed. Every part taken from the evaluated system (queries, labels, tool names and
arguments) is escaped for markdown, or made printable for a terminal (``markdown=False``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ragguard.compare import QuestionDiff
from ragguard.compare.agents import HopChange, HopRow, ToolChange
from ragguard.render.text import and_more, code_name, escape_markdown, fmt, printable, signed
from ragguard.results.agent import CallDetail
from ragguard.testset.conversations import turn_number

LABELS_SHOWN = 3


def _shown(text: str, limit: int, markdown: bool) -> str:
    return f"*{escape_markdown(text, limit)}*" if markdown else printable(text, limit)


def hop_text(change: HopChange, baseline: bool, markdown: bool = True) -> str:
    """``hop 2 (query “warranty for model X”): warranty.md#3 no longer retrieved``."""
    if change.query:
        where = f" (query “{_shown(change.query, 120, markdown)}”)"
    elif not change.matched:
        where = " (no retrieval step found its evidence)"
    else:
        where = ""
    labels = and_more(
        [_shown(label, 80, markdown) for label in change.lost[:LABELS_SHOWN]], len(change.lost)
    )
    verb = "no longer retrieved" if baseline else "not retrieved"
    return f"hop {change.number}{where}: {labels} {verb}"


def tool_text(change: ToolChange, baseline: bool, markdown: bool = True) -> str:
    """``calls refund where lookup_order was expected`` and the like; arguments are shown
    where they are what changed (the same tool called with others)."""
    names = {c.name for c in change.missing} == {c.name for c in change.unexpected}
    made = _calls(change.unexpected, markdown, names)
    wanted = _calls(change.missing, markdown, names)
    if change.missing and change.unexpected:
        if sorted(map(_key, change.missing)) == sorted(map(_key, change.unexpected)):
            return f"calls {_calls(change.unexpected, markdown, False)} out of the expected order"
        return f"calls {made} where {wanted} was expected"
    if change.missing:
        return f"{'no longer calls' if baseline else 'does not call'} {wanted}"
    return f"also calls {made}"


def _key(call: CallDetail) -> str:
    return json.dumps([call.name, call.arguments], sort_keys=True)


def _calls(calls: tuple[CallDetail, ...], markdown: bool, arguments: bool) -> str:
    shown = [_call(call, markdown, arguments) for call in calls[:LABELS_SHOWN]]
    return and_more(shown, len(calls))


def _call(call: CallDetail, markdown: bool, with_arguments: bool) -> str:
    name = _shown(call.name, 80, markdown)
    if not call.arguments or not with_arguments:
        return name
    arguments = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
    return f"{name} with {_shown(arguments, 120, markdown)}"


def hop_context(rows: tuple[HopRow, ...]) -> dict[str, Any]:
    """The comment's "By hop" table: each hop's metrics, baseline → head; none without hops."""
    names = sorted({name for row in rows for name, _, _ in row.values})
    table = []
    for row in rows:
        by_name = {name: (before, after) for name, before, after in row.values}
        cells = []
        for name in names:
            if name not in by_name:
                cells.append("–")
                continue
            before, after = by_name[name]
            change = after - before
            cells.append(
                fmt(after)
                if round(change, 3) == 0
                else f"{fmt(before)} → {fmt(after)} ({signed(change)})"
            )
        table.append(
            {"number": row.number, "n": row.n, "newly_lost": row.newly_lost, "cells": cells}
        )
    return {"hop_metrics": [code_name(name) for name in names], "hop_rows": table}


def conversations_text(failing: Sequence[QuestionDiff]) -> str:
    """``Conversations that fail: support-12 (turn 2), ...``: a conversation passes only when
    every turn passes, so one failing turn fails it; empty without conversations."""
    first: dict[str, int] = {}
    for question in failing:
        if question.conversation is not None:
            first.setdefault(question.conversation, turn_number(question.id))
    if not first:
        return ""
    shown = [
        f"*{escape_markdown(name, 80)}* (turn {turn})" for name, turn in list(first.items())[:5]
    ]
    return "Conversations that fail (one failing turn fails its conversation): " + and_more(
        shown, len(first)
    )


def hop_lines(rows: tuple[HopRow, ...]) -> list[str]:
    """The By hop table for a terminal: a line per hop position (none without hops)."""
    if not rows:
        return []
    lines = ["", "by hop:"]
    for row in rows:
        values = ", ".join(
            f"{name} {fmt(after)}"
            if round(after - before, 3) == 0
            else f"{name} {fmt(before)} -> {fmt(after)}"
            for name, before, after in row.values
        )
        lines.append(
            f"  hop {row.number}: {row.n} questions, {row.newly_lost} newly failing here; {values}"
        )
    return lines
