"""In-process capture of an instrumented Python system's spans (docs/traces.md).

When opentelemetry-sdk is importable, ragguard opens a span of its own around each call of
the system (``ragguard.ask``, with ``ragguard.question.id``, the question as ``input.value``
and a text answer as ``output.value``): the spans the system makes during the call are its
children, in its trace. A span processor on the global tracer provider keeps the finished
spans of the traces being captured; when the call returns, they become the question's
steps, read by the same conventions as a trace file (:mod:`ragguard.traces`). The spans
also reach the system's own exporters, ragguard's span included, so an exported file reads
back to the same records.

The system counts as instrumented when the global tracer provider is the SDK's when a call
starts (set by the system, e.g. at import): no provider set, another kind of provider, or
no opentelemetry-sdk, and the call is made as it is, nothing captured and nothing added.
Spans the system makes on threads it starts without passing on OpenTelemetry's context
start traces of their own and are not captured.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ragguard.core.errors import InputError
from ragguard.results.records import RunRecord
from ragguard.system.base import SystemFailure
from ragguard.testset.model import Question
from ragguard.traces.conventions import INPUT, OUTPUT, QUESTION_ID, SPAN_KIND
from ragguard.traces.matching import record_of_spans
from ragguard.traces.otlp import RawSpan, exception_text
from ragguard.traces.report import Skipped

SPAN_NAME = "ragguard.ask"


@dataclass
class Captured:
    """The spans of one call, and its record once the call has returned; ``span`` is
    ragguard's span around the call (None when the call is not captured)."""

    question_id: str
    spans: list[Any] = field(default_factory=list)
    record: RunRecord | None = None
    span: Any = None

    def returned(self, output: Any) -> None:
        """Write the system's text answer (from what it returned) on ragguard's span as
        ``output.value``, so an exported trace carries it."""
        answer = _answer_text(output)
        if self.span is not None and answer is not None:
            self.span.set_attribute(OUTPUT, answer)


class _Open:
    """The traces being captured by trace id; a span processor on the tracer provider
    (:func:`_processor`) keeps their finished spans."""

    def __init__(self) -> None:
        self.open: dict[int, Captured] = {}
        self.lock = threading.Lock()

    def keep(self, span: Any) -> None:
        captured = self.open.get(span.context.trace_id)
        if captured is not None:
            with self.lock:
                captured.spans.append(span)


_PROCESSOR = _Open()
_INSTALLED: list[Any] = []  # the providers the processor was added to
_INSTALL_LOCK = threading.Lock()


class SpanCapture:
    """Captures each call's spans for one adapter; :attr:`notes` says what was skipped."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.skipped = Skipped()

    @classmethod
    def start(cls, source: str) -> SpanCapture | None:
        """A capture for one adapter, or None without opentelemetry-sdk."""
        try:
            import opentelemetry.sdk.trace  # noqa: F401
        except ImportError:
            return None
        return cls(source)

    @property
    def notes(self) -> tuple[str, ...]:
        return self.skipped.lines(self.source)

    @contextmanager
    def call(self, question: Question) -> Iterator[Captured]:
        """Around one call of the system: ``captured.record`` is its record afterwards
        (``captured.returned(output)``, inside, writes the answer on ragguard's span)."""
        from opentelemetry import trace

        captured = Captured(question.id)
        provider = _sdk_provider()
        if provider is None:
            yield captured
            return
        attributes = {QUESTION_ID: question.id, INPUT: question.question, SPAN_KIND: "CHAIN"}
        span = provider.get_tracer("ragguard").start_span(SPAN_NAME, attributes=attributes)
        captured.span = span
        trace_id = span.get_span_context().trace_id
        _PROCESSOR.open[trace_id] = captured
        try:
            with trace.use_span(span, end_on_exit=True, record_exception=True):
                yield captured
        finally:
            _PROCESSOR.open.pop(trace_id, None)
        captured.record = self._record(captured)

    def _record(self, captured: Captured) -> RunRecord | None:
        """The call's record from its spans; None when the system made none (only
        ragguard's own span): an uninstrumented system's answer is left as it is."""
        with _PROCESSOR.lock:
            place = f"the call for {captured.question_id}"
            spans = [raw_span(span, place) for span in captured.spans if span.end_time]
        if len(spans) < 2:
            return None
        try:
            return record_of_spans(spans, captured.question_id, self.skipped, self.source)
        except InputError as exc:
            raise SystemFailure(f"its spans: {exc}") from None


def _answer_text(output: Any) -> str | None:
    value = output.get("answer") if isinstance(output, Mapping) else getattr(output, "answer", None)
    return value if isinstance(value, str) else None


def raw_span(span: Any, place: str) -> RawSpan:
    """An SDK span as the trace reader's span (the values the OTLP encoder would write);
    ``place`` says where it was made, for the notes."""
    context = span.context
    parent = span.parent
    attributes = {name: _plain(value) for name, value in (span.attributes or {}).items()}
    return RawSpan(
        trace_id=format(context.trace_id, "032x"),
        span_id=format(context.span_id, "016x"),
        parent_id=format(parent.span_id, "016x") if parent is not None else None,
        name=span.name or "",
        start=span.start_time or 0,
        end=span.end_time or 0,
        attributes=attributes,
        error=_error(span),
        line=None,
        path=place,
    )


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _error(span: Any) -> str | None:
    from opentelemetry.trace import StatusCode

    if span.status.status_code is not StatusCode.ERROR:
        return None
    if span.status.description:
        return str(span.status.description)
    for event in span.events:
        if event.name == "exception":
            return exception_text(event.attributes or {})
    return ""


def _sdk_provider() -> Any | None:
    """The global tracer provider when it is the SDK's, with the capture's processor added
    (once), else None."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider

    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        return None
    if not any(installed is provider for installed in _INSTALLED):
        with _INSTALL_LOCK:
            if not any(installed is provider for installed in _INSTALLED):
                provider.add_span_processor(_processor())
                _INSTALLED.append(provider)
    return provider


def _processor() -> Any:
    """An SDK span processor that hands each finished span to the open captures."""
    from opentelemetry.sdk.trace import SpanProcessor

    class CaptureProcessor(SpanProcessor):
        def on_end(self, span: Any) -> None:
            _PROCESSOR.keep(span)

    return CaptureProcessor()
