"""Trace files as real writers make them: spans from opentelemetry-sdk, encoded by
opentelemetry-exporter-otlp-proto-common, written by protobuf's JSON format (base64 ids)
or in the OpenTelemetry Collector file exporter's shape (one request a line, hex ids,
enums as numbers)."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Sequence
from typing import Any

from google.protobuf.json_format import MessageToDict, MessageToJson
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def recording_provider() -> tuple[TracerProvider, InMemorySpanExporter]:
    """A tracer provider of its own whose finished spans are kept in memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def protobuf_json(spans: Sequence[ReadableSpan], indent: int | None = 2) -> str:
    """One ExportTraceServiceRequest in protobuf's JSON format (ids in base64); over many
    lines with ``indent``, on one line without."""
    text = MessageToJson(encode_spans(spans), indent=indent)
    return text if indent else text.replace("\n", "") + "\n"


def collector_lines(batches: Iterable[Sequence[ReadableSpan]]) -> str:
    """One request a line per batch, as the Collector's file exporter writes them."""
    return "".join(json.dumps(collector_request(batch)) + "\n" for batch in batches)


def collector_request(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    request = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    for resource in request.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for field in ID_FIELDS:
                    if span.get(field):
                        span[field] = base64.b64decode(span[field]).hex()
    return request
