"""Which question each trace answers.

A trace answers the question named by the attribute ``ragguard.question.id`` on any of its
spans (ragguard sets it on the span it opens around each call it makes; a system can set it
itself), else the question whose text is exactly the root span's ``input.value``. A trace
that matches none, or whose input is the text of several questions, is skipped and counted;
spans of one trace naming two questions, and two traces for one question, are input errors
naming both places (a run has one answer per question: keep one of the traces).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ragguard.core.errors import InputError
from ragguard.results.records import Run, RunRecord
from ragguard.traces.otlp import RawSpan
from ragguard.traces.records import trace_record
from ragguard.traces.report import Skipped
from ragguard.traces.trees import Span, Trace, group_traces, kept_spans


class QuestionTexts:
    """The test set's questions by their text, to find the one a trace's input asks."""

    def __init__(self, texts: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> None:
        pairs = texts.items() if isinstance(texts, Mapping) else texts
        self.by_text: dict[str, list[str]] = {}
        for question_id, text in pairs:
            self.by_text.setdefault(text, []).append(question_id)

    def ids_of(self, text: str | None) -> list[str]:
        return self.by_text.get(text, []) if text is not None else []


def run_of_traces(
    traces: Iterable[Trace], questions: QuestionTexts, skipped: Skipped, source: Path
) -> Run:
    """The run: one record per trace that answers a question, keyed by question id."""
    records: dict[str, RunRecord] = {}
    roots: dict[str, Span] = {}
    for trace in traces:
        question_id = _question_of(trace, questions, skipped, source)
        if question_id is None:
            continue
        if question_id in roots:
            raise _twice(question_id, roots[question_id], trace.root, source)
        roots[question_id] = trace.root
        records[question_id] = trace_record(trace, question_id, skipped)
    lines = {qid: root.line for qid, root in roots.items() if root.line is not None}
    return Run(records, source=str(source), lines=lines, notes=skipped.lines(str(source)))


def _question_of(
    trace: Trace, questions: QuestionTexts, skipped: Skipped, source: Path
) -> str | None:
    named = named_question(trace, source)
    if named is not None:
        return named
    ids = questions.ids_of(trace.root.facts.input)
    if len(ids) == 1:
        return ids[0]
    skipped.add("ambiguous" if ids else "unmatched", trace.root.trace_place)
    return None


def named_question(trace: Trace, source: str | Path) -> str | None:
    """The question the trace's spans name in ``ragguard.question.id`` (None: none does);
    two different ones are an InputError naming both spans."""
    first: Span | None = None
    for span in trace.spans:
        named = span.facts.question_id
        if named is None:
            continue
        if first is None:
            first = span
        elif named != first.facts.question_id:
            raise InputError(
                source,
                f"one trace ({trace.trace_id}) names two questions in ragguard.question.id: "
                f"{first.facts.question_id!r} ({first.place}) and {named!r} ({span.place}); "
                "a trace answers one question",
                line=span.line,
            )
    return first.facts.question_id if first is not None else None


def _twice(question_id: str, first: Span, second: Span, source: Path) -> InputError:
    return InputError(
        source,
        f"two traces answer question {question_id!r} ({first.trace_place}; "
        f"{second.trace_place}); a run has one answer per question, so keep one trace (or "
        "score each file on its own)",
        line=second.line,
    )


def record_of_spans(
    raw_spans: Iterable[RawSpan], question_id: str, skipped: Skipped, source: str
) -> RunRecord | None:
    """The record of one question from the spans of its one trace (captured while ragguard
    asked it, so the question is known); None without a root span."""
    traces = group_traces(kept_spans(raw_spans, source), skipped)
    return trace_record(traces[0], question_id, skipped) if traces else None
