"""The hop or the tool call that broke an agent's question: what the head's hops missed that
the baseline's found, and the calls it made or skipped against the baseline's.

Without a baseline (or a baseline without agent detail), everything the head missed is
named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragguard.metrics.names import is_hop_metric
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


@dataclass(frozen=True, slots=True)
class HopRow:
    """Hop ``number`` over the paired questions that have it: how many, and each hop metric's
    mean on each side (the hop's own value: ``hop_recall@5`` of that hop alone)."""

    number: int
    n: int
    values: tuple[tuple[str, float, float], ...]  # (metric, baseline mean, head mean)
    newly_lost: int  # questions that newly fail naming this hop


def hop_breakdown(
    pairs: Sequence[tuple[QuestionResult, QuestionResult]],
    failing_hops: Sequence[tuple[HopChange, ...]],
    metric_names: Sequence[str],
) -> tuple[HopRow, ...]:
    """Each hop position's metrics, baseline against head, when the test set has hops
    (read only then: the hop detail of a question is parsed from its results line)."""
    if not any(map(is_hop_metric, metric_names)):
        return ()
    by_number: dict[int, list[tuple[HopDetail, HopDetail]]] = {}
    for before, now in pairs:
        if before.agent is None or now.agent is None:
            continue
        for number, (old, new) in enumerate(
            zip(before.agent.hops, now.agent.hops, strict=False), start=1
        ):
            by_number.setdefault(number, []).append((old, new))
    lost = [change.number for changes in failing_hops for change in changes]
    return tuple(
        _row(number, hops, lost.count(number)) for number, hops in sorted(by_number.items())
    )


def _row(number: int, hops: Sequence[tuple[HopDetail, HopDetail]], lost: int) -> HopRow:
    names = sorted({name for old, new in hops for name in old.values if name in new.values})
    values = []
    for name in names:
        both = [
            (old.values[name], new.values[name])
            for old, new in hops
            if name in old.values and name in new.values
        ]
        values.append(
            (name, sum(b for b, _ in both) / len(both), sum(h for _, h in both) / len(both))
        )
    return HopRow(number, len(hops), tuple(values), lost)
