"""Spans grouped into traces: each trace's root and the spans below it, in start order.

A trace's root is its span without a parent (the one that started first when there are
several). A span belongs to the trace when following its parents leads to that root; the
others are left out and counted, by why (:class:`~ragguard.traces.report.Skipped`): their
parent is not in the file (orphans), they sit on a loop of parents (cycles), they hang
from a second root, or they repeat a span already read (same trace and span id). Each span
is walked once, so grouping is linear in the number of spans (plus a sort per trace).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ragguard.core.errors import Where
from ragguard.traces.anyvalue import BadValue
from ragguard.traces.conventions import SpanFacts, span_facts
from ragguard.traces.otlp import RawSpan
from ragguard.traces.report import Skipped

IN, ORPHAN, CYCLE, OTHER_ROOT = "in", "orphan", "cycle", "other root"


@dataclass(frozen=True, slots=True)
class Span:
    """What is kept of a span once read: ids, times (ns), failure, place and facts."""

    trace_id: str
    span_id: str
    parent_id: str | None
    start: int
    end: int
    error: str | None
    line: int | None
    path: str
    order: int
    facts: SpanFacts

    @property
    def place(self) -> str:
        """Where the span is: ``line 12, span eee19b7ec3c1b174`` (its path in a document
        over many lines)."""
        where = f"line {self.line}" if self.line is not None else self.path
        return f"{where}, span {self.span_id}"

    @property
    def trace_place(self) -> str:
        """Where the trace of this (root) span is: ``trace 5b8e..., line 12``."""
        where = f"line {self.line}" if self.line is not None else self.path
        return f"trace {self.trace_id}, {where}"


@dataclass(frozen=True, slots=True)
class Trace:
    """A trace's root and every span below it (the root included), in start order."""

    trace_id: str
    root: Span
    spans: tuple[Span, ...]


def kept_spans(raw_spans: Iterable[RawSpan], source: str | Path) -> Iterator[Span]:
    """The spans as kept: the facts the conventions give, the attributes let go (a mistake
    in an attribute is an InputError naming the span)."""
    for order, raw in enumerate(raw_spans):
        yield kept_span(raw, order, source)


def kept_span(raw: RawSpan, order: int, source: str | Path) -> Span:
    """One span as kept; ``order`` is its place among the spans read (ties in start time)."""
    try:
        facts = span_facts(raw.attributes, raw.name, raw.parent_id is None, raw.path)
    except BadValue as exc:
        raise Where(source, raw.line).error(exc.message, key=exc.key) from None
    return Span(
        raw.trace_id,
        raw.span_id,
        raw.parent_id,
        raw.start,
        raw.end,
        raw.error,
        raw.line,
        raw.path,
        order,
        facts,
    )


def group_traces(spans: Iterable[Span], skipped: Skipped) -> list[Trace]:
    """The traces of ``spans`` in the order their first span was read; what cannot belong
    to one is counted in ``skipped``."""
    by_trace: dict[str, dict[str, Span]] = {}
    for span in spans:
        members = by_trace.setdefault(span.trace_id, {})
        if span.span_id in members:
            skipped.add("repeated", span.place)
            continue
        members[span.span_id] = span
    traces = []
    for trace_id, members in by_trace.items():
        trace = _trace(trace_id, members, skipped)
        if trace is not None:
            traces.append(trace)
    return traces


def _trace(trace_id: str, members: dict[str, Span], skipped: Skipped) -> Trace | None:
    roots = [span for span in members.values() if span.parent_id is None]
    root = min(roots, key=_start_order) if roots else None
    belonging = _belonging(members, root)
    inside = []
    for span in members.values():
        kind = belonging[span.span_id]
        if kind == IN:
            inside.append(span)
        else:
            skipped.add(kind, span.place)
    if root is None:
        return None
    return Trace(trace_id, root, tuple(sorted(inside, key=_start_order)))


def _start_order(span: Span) -> tuple[int, int]:
    return span.start, span.order


def _belonging(members: dict[str, Span], root: Span | None) -> dict[str, str]:
    """Why each span is in the trace or not, following each chain of parents once."""
    kinds: dict[str, str] = {}
    for span in members.values():
        chain: list[str] = []
        on_chain: set[str] = set()
        current: Span | None = span
        kind = CYCLE
        while current is not None:
            known = kinds.get(current.span_id)
            if known is not None:
                kind = known
                break
            if current.span_id in on_chain:
                kind = CYCLE
                break
            chain.append(current.span_id)
            on_chain.add(current.span_id)
            if current.parent_id is None:
                kind = IN if current is root else OTHER_ROOT
                break
            parent = members.get(current.parent_id)
            if parent is None:
                kind = ORPHAN
                break
            current = parent
        for span_id in chain:
            kinds[span_id] = kind
    return kinds
