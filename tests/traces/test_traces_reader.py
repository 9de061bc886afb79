"""The trace reader on spans made by opentelemetry-sdk and encoded by the OTLP encoder.

Attribute names come from openinference-semantic-conventions and the OpenTelemetry GenAI
conventions (opentelemetry-semantic-conventions), not typed by hand; each file is written
the three ways real writers do (protobuf JSON over many lines and on one line, with base64
ids; the Collector's file exporter, hex ids), and all three must read the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from openinference.semconv.trace import (
    DocumentAttributes,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as genai
from opentelemetry.trace import Status, StatusCode
from otlp_writers import collector_lines, protobuf_json, recording_provider
from traced_agents import KIND, QUESTIONS, genai_agent, two_hop_agent

from ragguard.results.chunks import Chunk
from ragguard.results.steps import LLM, RETRIEVAL, TOOL, Step
from ragguard.results.usage import Usage
from ragguard.traces.reader import load_trace_run


def the_three_files(tmp_path: Path, spans) -> list[Path]:
    """The same spans as protobuf JSON over many lines, on one line, and as the Collector's
    file exporter writes them (split in two requests)."""
    middle = len(spans) // 2
    files = {
        "document.json": protobuf_json(spans),
        "line.json": protobuf_json(spans, indent=None),
        "collector.jsonl": collector_lines([spans[:middle], spans[middle:]]),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return [tmp_path / name for name in files]


def test_a_two_hop_agent_reads_the_same_from_every_writer(tmp_path: Path) -> None:
    provider, exporter = recording_provider()
    two_hop_agent(provider, QUESTIONS["warranty"])
    runs = [
        load_trace_run(path, QUESTIONS)
        for path in the_three_files(tmp_path, exporter.get_finished_spans())
    ]
    assert runs[0].records == runs[1].records == runs[2].records
    record = runs[0].records["warranty"]
    hop_one = (
        Chunk("models#2", "Model X is the 2024 kettle.", 0.9),
        Chunk("models#1", "Model W.", 0.4),
    )
    hop_two = (
        Chunk("warranty#3", "Two years.", 0.8),
        Chunk("models#2", "Model X is the 2024 kettle.", 0.3),
    )
    usage = Usage(prompt_tokens=812, completion_tokens=96, total_tokens=908)
    assert record.steps == (
        Step(RETRIEVAL, query="which model is X", retrieved=hop_one),
        Step(TOOL, name="lookup_model", arguments={"model": "X"}),
        Step(RETRIEVAL, query="warranty for model X", retrieved=hop_two),
        Step(LLM, usage=usage),
    )
    assert record.retrieved_ids == ["models#2", "models#1", "warranty#3"]
    assert record.answer == "Model X has a two-year warranty."
    assert record.usage == usage
    assert record.error is None
    root = next(span for span in exporter.get_finished_spans() if span.parent is None)
    assert record.latency_ms == (root.end_time - root.start_time) / 1e6
    assert record.meta == {"trace_id": format(root.context.trace_id, "032x")}
    assert runs[0].notes == ()
    assert runs[2].lines == {"warranty": 2}  # the root ends last: it is in the second request


def test_the_genai_conventions_map_to_the_same_steps(tmp_path: Path) -> None:
    provider, exporter = recording_provider()
    genai_agent(provider, "refund")
    for path in the_three_files(tmp_path, exporter.get_finished_spans()):
        record = load_trace_run(path, QUESTIONS).records["refund"]
        assert record.steps == (
            Step(
                RETRIEVAL,
                query="refund rules",
                retrieved=(Chunk("refunds#2", None, 0.7), Chunk("orders#1", None, 0.2)),
            ),
            Step(TOOL, name="lookup_order", arguments={"order_id": "A-17"}),
            Step(LLM, usage=Usage(prompt_tokens=300, completion_tokens=40)),
        )
        assert (
            record.answer == "Yes, within 30 days."
        )  # the root has no output: the last model call's reply
        assert record.meta["session_id"] == "conv-7"


def test_a_root_span_in_error_is_the_records_error(tmp_path: Path) -> None:
    provider, exporter = recording_provider()
    tracer = provider.get_tracer("failing")
    with tracer.start_as_current_span("agent") as root:
        root.set_attribute(SpanAttributes.INPUT_VALUE, QUESTIONS["warranty"])
        root.set_status(Status(StatusCode.ERROR, "upstream timeout"))
    with pytest.raises(ValueError), tracer.start_as_current_span("agent") as root:
        root.set_attribute(SpanAttributes.INPUT_VALUE, QUESTIONS["refund"])
        raise ValueError("no such order")  # recorded as an exception event, status ERROR
    for path in the_three_files(tmp_path, exporter.get_finished_spans()):
        run = load_trace_run(path, QUESTIONS)
        assert run.records["warranty"].error == "upstream timeout"
        assert run.records["refund"].error == "ValueError: no such order"


def test_a_model_call_inside_another_counts_once(tmp_path: Path) -> None:
    """A framework's LLM span around the client library's GenAI chat span is one call:
    its usage comes from the inner span when the outer has none, and the note says so."""
    provider, exporter = recording_provider()
    tracer = provider.get_tracer("framework")
    with tracer.start_as_current_span("agent") as root:
        root.set_attribute(SpanAttributes.INPUT_VALUE, QUESTIONS["warranty"])
        with tracer.start_as_current_span("ChatOpenAI") as outer:
            outer.set_attribute(KIND, OpenInferenceSpanKindValues.LLM.value)
            with tracer.start_as_current_span("chat gpt") as inner:
                inner.set_attribute(genai.GEN_AI_OPERATION_NAME, "chat")
                inner.set_attribute(genai.GEN_AI_USAGE_INPUT_TOKENS, 10)
                inner.set_attribute(genai.GEN_AI_USAGE_OUTPUT_TOKENS, 5)
    path = the_three_files(tmp_path, exporter.get_finished_spans())[2]
    run = load_trace_run(path, QUESTIONS)
    assert run.records["warranty"].steps == (
        Step(LLM, usage=Usage(prompt_tokens=10, completion_tokens=5)),
    )
    (note,) = run.notes
    assert note.startswith(
        f"ragguard: {path}: 1 model-call span counted once, with the outer one: "
    )


def test_langchain_style_documents_take_their_id_from_the_metadata(tmp_path: Path) -> None:
    """openinference-instrumentation-langchain exports a Document's content and metadata but
    not its id; the id in the metadata is used, and a document without one is counted."""
    provider, exporter = recording_provider()
    tracer = provider.get_tracer("langchain-like")
    with tracer.start_as_current_span("retriever") as span:
        span.set_attribute(KIND, OpenInferenceSpanKindValues.RETRIEVER.value)
        span.set_attribute(SpanAttributes.INPUT_VALUE, QUESTIONS["warranty"])
        prefix = SpanAttributes.RETRIEVAL_DOCUMENTS
        span.set_attribute(f"{prefix}.0.{DocumentAttributes.DOCUMENT_CONTENT}", "Two years.")
        span.set_attribute(
            f"{prefix}.0.{DocumentAttributes.DOCUMENT_METADATA}", '{"id": "warranty#3"}'
        )
        span.set_attribute(f"{prefix}.1.{DocumentAttributes.DOCUMENT_CONTENT}", "No id here.")
        span.set_attribute(f"{prefix}.2.{DocumentAttributes.DOCUMENT_ID}", "warranty#3")
    path = the_three_files(tmp_path, exporter.get_finished_spans())[1]
    run = load_trace_run(path, QUESTIONS)
    assert run.records["warranty"].retrieved == (Chunk("warranty#3", "Two years."),)
    span_id = format(exporter.get_finished_spans()[0].context.span_id, "016x")
    assert run.notes == (
        f"ragguard: {path}: 1 retrieved document skipped: no document.id (nor an id in "
        f"document.metadata) (at line 1, span {span_id})",
        f"ragguard: {path}: 1 retrieved document skipped: an id the same span already retrieved "
        f"(the first keeps its rank) (at line 1, span {span_id})",
    )
