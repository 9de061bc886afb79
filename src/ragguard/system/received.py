"""Spans a running system sent (to the OTLP receiver), waiting for the question they answer.

The spans are kept as they come (each reduced to its facts at once). When a question's call
is over (a per-question command exited, a batch command finished), :meth:`take` groups the
spans waiting into traces and takes the ones that answer it, by ``ragguard.question.id`` or
the root span's ``input.value``, exactly as a trace file is read (docs/traces.md); a trace
still missing its root stays for later. What is left at the end, and a second trace for
one call, is counted in :attr:`ReceivedSpans.notes`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TypeVar

from ragguard.core.errors import InputError
from ragguard.results.records import RunRecord
from ragguard.system.base import Answer
from ragguard.testset.model import Question
from ragguard.traces.matching import named_question
from ragguard.traces.otlp import RawSpan
from ragguard.traces.records import trace_record
from ragguard.traces.report import Skipped
from ragguard.traces.trees import Span, Trace, group_traces, kept_span

Output = TypeVar("Output", Answer, RunRecord)


class ReceivedSpans:
    """The spans received and not yet taken; thread-safe."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.waiting: list[Span] = []
        self.count = 0
        self.lock = threading.Lock()
        self.skipped = Skipped()
        self.asked: dict[str, str] = {}  # question id: text, of every question taken for

    def add(self, raw_spans: Iterable[RawSpan]) -> None:
        """Keep the spans of one export request (an attribute that is not what its
        convention says is an InputError, and none of the request's spans is kept)."""
        raw = list(raw_spans)
        with self.lock:
            first = self.count
            self.count += len(raw)
        spans = [kept_span(span, first + index, self.source) for index, span in enumerate(raw)]
        with self.lock:
            self.waiting.extend(spans)

    def take(self, questions: Sequence[Question]) -> dict[str, RunRecord]:
        """The records the complete traces waiting give these questions, by question id;
        their spans leave the pool."""
        by_text: dict[str, list[str]] = {}
        for question in questions:
            by_text.setdefault(question.question, []).append(question.id)
        wanted = {question.id for question in questions}
        records: dict[str, RunRecord] = {}
        with self.lock:
            self.asked.update((question.id, question.question) for question in questions)
            taken: set[str] = set()
            for trace in group_traces(self.waiting, Skipped()):
                question_id = self._question_of(trace, by_text)
                if question_id not in wanted:
                    continue
                taken.add(trace.trace_id)
                if question_id in records:
                    self.skipped.add("second trace", trace.root.trace_place)
                else:
                    records[question_id] = trace_record(trace, question_id, self.skipped)
            self.waiting = [span for span in self.waiting if span.trace_id not in taken]
        return records

    def _question_of(self, trace: Trace, by_text: dict[str, list[str]]) -> str | None:
        try:
            named = named_question(trace, self.source)
        except InputError:
            return None  # counted with what is left at the end
        if named is not None:
            return named
        ids = by_text.get(trace.root.facts.input or "", [])
        return ids[0] if len(ids) == 1 else None

    @property
    def notes(self) -> tuple[str, ...]:
        """What was skipped, with the spans no question took counted by why."""
        with self.lock:
            final = Skipped(dict(self.skipped.counts), dict(self.skipped.first))
            by_text: dict[str, list[str]] = {}
            for question_id, text in self.asked.items():
                by_text.setdefault(text, []).append(question_id)
            for trace in group_traces(self.waiting, final):
                final.add(self._why_left(trace, by_text), trace.root.trace_place)
        return final.lines(self.source)

    def _why_left(self, trace: Trace, by_text: dict[str, list[str]]) -> str:
        try:
            named = named_question(trace, self.source)
        except InputError:
            return "two questions"
        if named in self.asked:
            return "second trace"
        ids = by_text.get(trace.root.facts.input or "", []) if named is None else []
        if len(ids) > 1:
            return "ambiguous"
        return "second trace" if ids else "unmatched"


def with_trace(output: Output, traced: RunRecord | None) -> Output:
    """The system's answer (or record), with what its trace says where it gave nothing:
    its steps, the ranking (the union of its retrievals), the answer and the usage; the
    trace id in ``meta``. What the system returned (non-empty) wins."""
    if traced is None:
        return output
    steps = output.steps or traced.steps
    return replace(
        output,
        steps=steps,
        retrieved=output.retrieved if output.retrieved or output.steps else traced.retrieved,
        answer=output.answer if output.answer is not None else traced.answer,
        usage=output.usage if output.usage is not None else traced.usage,
        meta={**traced.meta, **output.meta},
    )
