"""One trace as one run record: its steps, answer, latency, error and usage.

- ``steps``: the retrieval, tool and model-call spans of the trace in start order. A
  model-call span inside another (a framework's span around the client library's) is one
  call: the outer span's step, with the inner one's usage when the outer has none.
- ``retrieved``: the retrieval steps' chunks, each at its first place (as for any record
  whose ``retrieved`` is left out); ``usage``: the model calls' usage summed.
- ``answer``: the root span's ``output.value`` (or its reply messages), else the reply of
  the last model call.
- ``latency_ms``: the root span's duration; ``error``: the root span's status message when
  its status is ERROR.
- ``meta``: the trace id, and the session (``session.id`` / ``gen_ai.conversation.id``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ragguard.results.records import RunRecord
from ragguard.results.steps import LLM, Step, union_of_retrievals, usage_of_steps
from ragguard.traces.report import Skipped
from ragguard.traces.trees import Span, Trace

NO_MESSAGE = "the root span's status is ERROR (no message)"


def trace_record(trace: Trace, question_id: str, skipped: Skipped) -> RunRecord:
    """The run record of ``question_id`` from its trace."""
    steps = _steps(trace, skipped)
    root = trace.root
    error = root.error
    return RunRecord(
        id=question_id,
        retrieved=union_of_retrievals(steps),
        answer=_answer(trace),
        latency_ms=(root.end - root.start) / 1e6,
        error=(error or NO_MESSAGE) if error is not None else None,
        meta=_meta(trace),
        usage=usage_of_steps(steps),
        steps=tuple(steps),
    )


def _steps(trace: Trace, skipped: Skipped) -> list[Step]:
    outer = _outer_model_calls(trace)
    steps: list[Step] = []
    index_of: dict[str, int] = {}
    for span in trace.spans:
        step = span.facts.step
        if step is None:
            continue
        skipped.add("without id", span.place, span.facts.without_id)
        skipped.add("repeated document", span.place, span.facts.repeated)
        host = outer.get(span.span_id)
        if host is None:
            index_of[span.span_id] = len(steps)
            steps.append(step)
            continue
        skipped.add("nested llm", span.place)
        position = index_of.get(host)
        if position is not None and steps[position].usage is None and step.usage is not None:
            steps[position] = replace(steps[position], usage=step.usage)
    return steps


def _outer_model_calls(trace: Trace) -> dict[str, str]:
    """For each model-call span inside another, the outermost model call above it."""
    by_id = {span.span_id: span for span in trace.spans}
    above: dict[str, str | None] = {}  # span id: the outermost model call above it, if any
    for span in trace.spans:
        pending: list[Span] = []
        current = span
        while current.span_id not in above:
            parent = by_id.get(current.parent_id) if current.parent_id else None
            if parent is None:
                above[current.span_id] = None
                break
            pending.append(current)
            current = parent
        for child in reversed(pending):
            parent = by_id[child.parent_id or ""]
            host = above[parent.span_id]
            above[child.span_id] = (
                parent.span_id if host is None and _is_model_call(parent) else host
            )
    return {
        span.span_id: host
        for span in trace.spans
        if _is_model_call(span) and (host := above[span.span_id]) is not None
    }


def _is_model_call(span: Span) -> bool:
    step = span.facts.step
    return step is not None and step.type == LLM


def _answer(trace: Trace) -> str | None:
    if trace.root.facts.output is not None:
        return trace.root.facts.output
    replies = [span.facts.reply for span in trace.spans if span.facts.reply is not None]
    return replies[-1] if replies else None


def _meta(trace: Trace) -> dict[str, Any]:
    meta: dict[str, Any] = {"trace_id": trace.trace_id}
    sessions = [span.facts.session_id for span in trace.spans if span.facts.session_id]
    if sessions:
        meta["session_id"] = sessions[0]
    return meta
