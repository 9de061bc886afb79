"""Which question a trace answers, and what the reader skips (counted, one note each)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openinference.semconv.trace import SpanAttributes
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags
from otlp_writers import collector_lines, collector_request, recording_provider

from ragguard.core.errors import InputError
from ragguard.traces.reader import load_trace_run

QUESTIONS = {"q1": "How do I authenticate?", "q2": "How many requests per minute?"}


def root_span(provider: TracerProvider, text: str, **attributes: str) -> None:
    with provider.get_tracer("t").start_as_current_span("agent") as span:
        span.set_attribute(SpanAttributes.INPUT_VALUE, text)
        span.set_attribute(SpanAttributes.OUTPUT_VALUE, f"answer to {text}")
        for name, value in attributes.items():
            span.set_attribute(name.replace("_", "."), value)


def written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "traces.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_trace_answers_the_question_its_root_input_asks_or_the_one_it_names(tmp_path) -> None:
    provider, exporter = recording_provider()
    root_span(provider, QUESTIONS["q1"])
    root_span(provider, "reworded by the agent", ragguard_question_id="q2")
    run = load_trace_run(
        written(tmp_path, collector_lines([exporter.get_finished_spans()])), QUESTIONS
    )
    assert {qid: record.answer for qid, record in run.records.items()} == {
        "q1": f"answer to {QUESTIONS['q1']}",
        "q2": "answer to reworded by the agent",
    }
    assert run.notes == ()


def test_traces_that_match_no_question_or_several_are_counted(tmp_path) -> None:
    provider, exporter = recording_provider()
    root_span(provider, "What is the meaning of life?")
    root_span(provider, "What is the meaning of life?")
    root_span(provider, "Same text")
    path = written(tmp_path, collector_lines([exporter.get_finished_spans()]))
    run = load_trace_run(path, {"a": "Same text", "b": "Same text"})
    assert run.records == {}
    first = format(exporter.get_finished_spans()[0].context.trace_id, "032x")
    third = format(exporter.get_finished_spans()[2].context.trace_id, "032x")
    assert run.notes == (
        f"ragguard: {path}: 2 traces skipped: no span names a question in ragguard.question.id, "
        f"and the root span's input.value is no question's text (the first at trace {first}, line 1)",
        f"ragguard: {path}: 1 trace skipped: the root span's input.value is the text of several "
        f"questions; set ragguard.question.id to say which (at trace {third}, line 1)",
    )


def test_two_traces_for_one_question_are_an_error_naming_both(tmp_path) -> None:
    provider, exporter = recording_provider()
    root_span(provider, QUESTIONS["q1"])
    root_span(provider, QUESTIONS["q1"])
    spans = exporter.get_finished_spans()
    path = written(tmp_path, collector_lines([spans[:1], spans[1:]]))
    with pytest.raises(InputError) as caught:
        load_trace_run(path, QUESTIONS)
    first, second = (format(span.context.trace_id, "032x") for span in spans)
    assert str(caught.value) == (
        f"{path}:2: two traces answer question 'q1' (trace {first}, line 1; trace {second}, "
        "line 2); a run has one answer per question, so keep one trace (or score each file on "
        "its own)"
    )


def test_a_trace_naming_two_questions_is_an_error(tmp_path) -> None:
    provider, exporter = recording_provider()
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span("agent") as root:
        root.set_attribute("ragguard.question.id", "q1")
        with tracer.start_as_current_span("step") as step:
            step.set_attribute("ragguard.question.id", "q2")
    path = written(tmp_path, collector_lines([exporter.get_finished_spans()]))
    with pytest.raises(InputError, match=r"names two questions in ragguard.question.id: 'q1' "):
        load_trace_run(path, QUESTIONS)


class SameTraceIds(RandomIdGenerator):
    """Every root span gets one trace id: two roots in one trace."""

    def generate_trace_id(self) -> int:
        return 0x5B8EFFF798038103D269B633813FC60C


def test_orphans_second_roots_and_repeated_spans_are_counted(tmp_path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(id_generator=SameTraceIds())
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("t")
    root_span(provider, QUESTIONS["q1"])
    root_span(provider, "a later root of the same trace")
    remote = SpanContext(
        0x5B8EFFF798038103D269B633813FC60C, 0xEEE19B7EC3C1B174, True, TraceFlags(TraceFlags.SAMPLED)
    )
    parent = trace.set_span_in_context(NonRecordingSpan(remote))
    with tracer.start_as_current_span("orphan", parent), tracer.start_as_current_span("below"):
        pass
    spans = exporter.get_finished_spans()
    path = written(tmp_path, collector_lines([spans, spans[:1]]))
    run = load_trace_run(path, QUESTIONS)
    assert list(run.records) == ["q1"]
    ids = [format(span.context.span_id, "016x") for span in spans]
    assert run.notes == (
        f"ragguard: {path}: 1 span kept once: a repeat of a span already read (same trace "
        f"and span id) (at line 2, span {ids[0]})",
        f"ragguard: {path}: 2 spans skipped: parent span not in the file (the first at "
        f"line 1, span {ids[2]})",
        f"ragguard: {path}: 1 span skipped: under a second root span of the trace "
        f"(the root that started first is the trace's) (at line 1, span {ids[1]})",
    )


def test_spans_whose_parents_form_a_loop_are_counted(tmp_path) -> None:
    provider, exporter = recording_provider()
    tracer = provider.get_tracer("t")
    root_span(provider, QUESTIONS["q1"])
    with tracer.start_as_current_span("a"), tracer.start_as_current_span("b"):
        pass
    request = collector_request(exporter.get_finished_spans())
    spans = request["resourceSpans"][0]["scopeSpans"][0]["spans"]
    b, a = spans[1], spans[2]
    a["traceId"] = spans[0]["traceId"]
    b["traceId"] = spans[0]["traceId"]
    a["parentSpanId"] = b["spanId"]  # a is b's parent and b is a's: a loop
    path = written(tmp_path, json.dumps(request) + "\n")
    run = load_trace_run(path, QUESTIONS)
    assert list(run.records) == ["q1"]
    assert run.notes == (
        f"ragguard: {path}: 2 spans skipped: parent spans form a loop (the first at line 1, "
        f"span {b['spanId']})",
    )
