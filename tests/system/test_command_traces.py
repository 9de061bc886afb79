"""``traces: otlp``: a command instrumented with OpenTelemetry sends its spans to ragguard's
local OTLP/HTTP receiver, through the real OTLP exporters (protobuf) or the OTLP encoder's
JSON; the spans give each question its steps."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ragguard.results.steps import RETRIEVAL
from ragguard.system import build_adapter
from ragguard.system.otlp_receiver import OtlpReceiver
from ragguard.system.received import ReceivedSpans

COMMAND = """\
import gzip, json, os, sys, urllib.request
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor, SimpleSpanProcessor, SpanExporter, SpanExportResult)
from openinference.semconv.trace import DocumentAttributes, SpanAttributes

DOCS = {"How do I authenticate to the Orders API?": ["authentication"],
        "How many requests per minute are allowed?": ["rate-limits", "error-codes"],
        "How do I get the next page of orders?": ["pagination"]}


class JsonExporter(SpanExporter):
    '''OTLP JSON over HTTP, gzip-compressed: the OTLP encoder's message in protobuf's JSON.'''

    def export(self, spans):
        from google.protobuf.json_format import MessageToJson
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
        body = gzip.compress(MessageToJson(encode_spans(spans)).encode())
        request = urllib.request.Request(
            os.environ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], data=body, method="POST",
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"})
        urllib.request.urlopen(request).read()
        return SpanExportResult.SUCCESS


provider = TracerProvider()
if os.environ.get("EXPORT") == "json":
    provider.add_span_processor(SimpleSpanProcessor(JsonExporter()))
else:  # the exporter most apps use: protobuf, batched, sent at shutdown
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
tracer = provider.get_tracer("command")


def answer(question):
    with tracer.start_as_current_span("agent") as root:
        root.set_attribute(SpanAttributes.INPUT_VALUE, question)
        with tracer.start_as_current_span("retrieve") as span:
            span.set_attribute(SpanAttributes.OPENINFERENCE_SPAN_KIND, "RETRIEVER")
            for rank, doc in enumerate(DOCS.get(question, [])):
                prefix = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{rank}."
                span.set_attribute(prefix + DocumentAttributes.DOCUMENT_ID, doc)
        root.set_attribute(SpanAttributes.OUTPUT_VALUE, f"traced answer to {question}")


ENV = {name: os.environ.get(name) for name in (
    "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_PROTOCOL")}
if sys.argv[1:] == ["--batch"]:
    for line in sys.stdin:
        asked = json.loads(line)
        answer(asked["question"])
        print(json.dumps({"id": asked["id"], "meta": ENV}), flush=True)
    answer("Is this a question of the test set?")
else:
    answer(sys.argv[1])
    print(json.dumps({"meta": ENV}))
provider.shutdown()
"""


@pytest.fixture
def command(suite_dir: Path) -> Path:
    path = suite_dir / "traced_command.py"
    path.write_text(COMMAND, encoding="utf-8")
    return path


def test_a_per_question_command_sends_its_spans_as_protobuf(
    suite_dir: Path, command: Path, make_config, run_suite
) -> None:
    config = make_config(
        f"""
        command: [{json.dumps(sys.executable)}, traced_command.py, "{{question}}"]
        traces: otlp
        """
    )
    outcome = run_suite(config)
    record = outcome.records["rate"]
    assert record.error is None
    assert record.retrieved_ids == ["rate-limits", "error-codes"]
    assert [step.type for step in record.steps] == [RETRIEVAL]
    assert record.answer == "traced answer to How many requests per minute are allowed?"
    endpoint = record.meta["OTEL_EXPORTER_OTLP_ENDPOINT"]
    assert endpoint.startswith("http://127.0.0.1:")
    assert record.meta["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] == endpoint + "/v1/traces"
    assert record.meta["OTEL_EXPORTER_OTLP_PROTOCOL"] == "http/protobuf"
    assert len(record.meta["trace_id"]) == 32


def test_a_batch_command_sends_its_spans_as_json(
    suite_dir: Path, command: Path, make_config, run_suite
) -> None:
    config = make_config(
        f"""
        command: [{json.dumps(sys.executable)}, traced_command.py, --batch]
        env: {{EXPORT: json}}
        traces: otlp
        """
    )
    adapter = build_adapter(config)
    outcome = run_suite(config)
    assert {qid: r.retrieved_ids for qid, r in outcome.records.items()} == {
        "auth": ["authentication"],
        "rate": ["rate-limits", "error-codes"],
        "page": ["pagination"],
    }
    assert adapter.identity() == {
        "kind": "command",
        "target": f"{sys.executable} traced_command.py --batch",
        "mode": "batch",
    }


def test_a_trace_no_question_takes_is_a_note_after_the_run(
    suite_dir: Path, command: Path, make_config, ragguard_cli
) -> None:
    make_config(
        f"""
        command: [{json.dumps(sys.executable)}, traced_command.py, --batch]
        traces: otlp
        """
    )
    result = ragguard_cli(
        "run", "--config", suite_dir / "ragguard.yml", "--out", suite_dir / "r.json"
    )
    assert result.exit_code == 0, result.stderr
    notes = [line for line in result.stderr.splitlines() if "1 trace skipped" in line]
    assert len(notes) == 1
    assert notes[0].startswith(f"ragguard: spans of {sys.executable}: 1 trace skipped: no span")


def post(receiver: OtlpReceiver, body: bytes, content_type: str, **headers: str) -> int:
    request = urllib.request.Request(
        receiver.endpoint + "/v1/traces",
        data=body,
        method="POST",
        headers={"Content-Type": content_type, **headers},
    )
    try:
        with urllib.request.urlopen(request) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_receiver_refuses_what_is_not_otlp_and_counts_it() -> None:
    receiver = OtlpReceiver(ReceivedSpans("spans of rag"))
    receiver.start()
    try:
        assert post(receiver, b'{"resourceSpans": []}', "application/json") == 200
        assert (
            post(receiver, gzip.compress(b"{}"), "application/json", **{"Content-Encoding": "gzip"})
            == 200
        )
        assert post(receiver, b'{"resourceSpans": 3}', "application/json") == 400
        assert post(receiver, b"not json", "application/json") == 400
        assert post(receiver, b"\x00\x01", "application/x-protobuf") == 400
        assert post(receiver, b"{}", "text/plain") == 415
    finally:
        receiver.close()
    assert receiver.notes == (
        "ragguard: spans of rag: 4 export requests refused by ragguard's OTLP receiver; the "
        "first was not OTLP: resourceSpans: expected a list, found a number",
    )


def test_protobuf_without_the_extra_is_refused_with_what_to_do() -> None:
    script = textwrap.dedent("""
        import sys
        sys.modules["opentelemetry.proto"] = None
        from ragguard.system.otlp_receiver import OtlpReceiver
        from ragguard.system.received import ReceivedSpans
        receiver = OtlpReceiver(ReceivedSpans("spans of rag"))
        receiver.start()
        print(receiver.receive(b"", "application/x-protobuf", "")[0])
        print(receiver.environment({})["OTEL_EXPORTER_OTLP_PROTOCOL"])
        print(receiver.notes[0])
    """)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.stdout.splitlines() == [
        "415",
        "http/json",
        "ragguard: spans of rag: 1 export request refused by ragguard's OTLP receiver; was "
        "protobuf: a protobuf body needs the traces extra (pip install 'ragguard[traces]'), "
        "or set OTEL_EXPORTER_OTLP_PROTOCOL=http/json",
    ]
