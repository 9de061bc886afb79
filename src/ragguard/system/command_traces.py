"""``system: {command: ..., traces: otlp}``: a command's spans, received over OTLP/HTTP.

The command runs with ``OTEL_EXPORTER_OTLP_ENDPOINT`` pointing at a receiver ragguard starts
on loopback for the run (:mod:`ragguard.system.otlp_receiver`); the spans it exports are
matched to questions as a trace file's are, and give each record what the command's output
left out: its steps, ranking, answer and usage (:func:`~ragguard.system.received.with_trace`).
A per-question command's spans are taken when its process exits; a batch command's when it
has finished (its answers are recorded then: exporters send their spans at exit).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from ragguard.config.model import SystemConfig
from ragguard.results.records import RunRecord
from ragguard.system.base import Adapter, Answer, BatchAdapter
from ragguard.system.command import CommandBatchAdapter, CommandPerQuestionAdapter
from ragguard.system.otlp_receiver import OtlpReceiver
from ragguard.system.received import ReceivedSpans, with_trace
from ragguard.testset.model import Question

TRACES = ("otlp",)


def with_traces(
    adapter: CommandBatchAdapter | CommandPerQuestionAdapter, system: SystemConfig
) -> Adapter | BatchAdapter:
    """The command adapter, receiving its spans when ``traces: otlp`` asks for it."""
    option = system.options.get("traces")
    if option is None:
        return adapter
    if option not in TRACES:
        raise system.error(
            f"expected otlp (a local OTLP/HTTP receiver for the command's spans), found {option!r}",
            key="traces",
        )
    if isinstance(adapter, CommandBatchAdapter):
        return TracedBatch(adapter)
    return TracedPerQuestion(adapter)


class _Receiving:
    """The receiver of one traced command, started on first use, and what it skipped."""

    def __init__(self, inner: CommandBatchAdapter | CommandPerQuestionAdapter) -> None:
        self.inner = inner
        self.spans = ReceivedSpans(f"spans of {inner.argv[0]}")
        self.receiver: OtlpReceiver | None = None
        self._lock = threading.Lock()

    def identity(self) -> dict[str, Any]:
        return self.inner.identity()

    def _ensure_receiver(self) -> None:
        with self._lock:
            if self.receiver is None:
                self.receiver = OtlpReceiver(self.spans)
                self.receiver.start()
                self.inner.env = self.receiver.environment(self.inner.env)

    @property
    def notes(self) -> tuple[str, ...]:
        refused = self.receiver.notes if self.receiver is not None else ()
        return (*self.spans.notes, *refused)

    def close(self) -> None:
        """Stop the receiver (the run is over)."""
        with self._lock:
            if self.receiver is not None:
                self.receiver.close()


class TracedPerQuestion(_Receiving):
    """A per-question command whose spans come back over OTLP: taken as its process exits."""

    inner: CommandPerQuestionAdapter

    def ask(self, question: Question, timeout: float) -> Answer:
        self._ensure_receiver()
        try:
            answer = self.inner.ask(question, timeout)
        finally:
            traced = self.spans.take([question]).get(question.id)
        return with_trace(answer, traced)


class TracedBatch(_Receiving):
    """A batch command whose spans come back over OTLP: its records are held until it has
    finished, then given their traces."""

    inner: CommandBatchAdapter

    def run_batch(
        self,
        questions: Sequence[Question],
        timeout: float,
        emit: Callable[[RunRecord], None],
        stop: threading.Event,
    ) -> None:
        self._ensure_receiver()
        held: list[RunRecord] = []
        self.inner.run_batch(questions, timeout, held.append, stop)
        traced = self.spans.take(questions)
        for record in held:
            emit(record if record.error else with_trace(record, traced.get(record.id)))
