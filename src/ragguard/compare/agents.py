"""The hop or the tool call that broke an agent's question: what the head's hops missed that
the baseline's found, and the calls it made or skipped against the baseline's.

Without a baseline (or a baseline without agent detail), everything the head missed is
named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragguard.results.agent import AgentDetail, CallDetail, HopDetail
from ragguard.results.model import QuestionResult


@dataclass(frozen=True, slots=True)
class HopChange:
    """Hop ``number`` (from 1): the labels it no longer retrieves, and its head query."""

    number: int
    query: str | None
    lost: tuple[str, ...]
    matched: bool  # whether some head retrieval step still found part of its evidence


@dataclass(frozen=True, slots=True)
class ToolChange:
    """Expected calls the head no longer makes, and calls it newly makes."""

    missing: tuple[CallDetail, ...]
    unexpected: tuple[CallDetail, ...]


def hop_changes(before: QuestionResult | None, now: QuestionResult) -> tuple[HopChange, ...]:
    if now.agent is None or not now.agent.hops:
        return ()
    old = _hops_of(before)
    changes = []
    for number, hop in enumerate(now.agent.hops, start=1):
        earlier = set(old[number - 1].missing) if len(old) >= number else set()
        lost = tuple(label for label in hop.missing if label not in earlier)
        if lost:
            changes.append(HopChange(number, hop.query, lost, hop.retrieval is not None))
    return tuple(changes)


def tool_change(before: QuestionResult | None, now: QuestionResult) -> ToolChange | None:
    if now.agent is None or not now.agent.has_tools:
        return None
    old = before.agent if before is not None else None
    missing = _new(now.agent.missing_tools, old.missing_tools if old else ())
    unexpected = _new(now.agent.unexpected_tools, old.unexpected_tools if old else ())
    if not missing and not unexpected:
        return None
    return ToolChange(missing, unexpected)


def _hops_of(question: QuestionResult | None) -> Sequence[HopDetail]:
    detail: AgentDetail | None = question.agent if question is not None else None
    return detail.hops if detail is not None else ()


def _new(calls: Sequence[CallDetail], earlier: Sequence[CallDetail]) -> tuple[CallDetail, ...]:
    """``calls`` not in ``earlier`` (as a multiset: a call missed twice, once before, is new once)."""
    left = list(earlier)
    fresh = []
    for call in calls:
        if call in left:
            left.remove(call)
        else:
            fresh.append(call)
    return tuple(fresh)
