"""OTLP JSON decoding: the shapes protobuf's JSON format allows, and nothing beyond json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ragguard.traces.anyvalue import BadValue, any_value, attributes_to_dict
from ragguard.traces.otlp import iter_requests, iter_spans

HEX_TRACE, HEX_SPAN = "5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174"
B64_TRACE, B64_SPAN = "W47/95gDgQPSabYzgT/GDA==", "7uGbfsPBsXQ="


def spans_of(tmp_path: Path, *requests: dict) -> list:
    path = tmp_path / "t.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in requests), encoding="utf-8")
    return list(iter_spans(iter_requests(path), path))


@pytest.mark.parametrize(
    ("value", "decoded"),
    [
        ({"stringValue": "a"}, "a"),
        ({"intValue": "9007199254740993"}, 9007199254740993),
        ({"int_value": 7}, 7),
        ({"doubleValue": 0.5}, 0.5),
        ({"doubleValue": "2.5"}, 2.5),
        ({"boolValue": False}, False),
        ({"arrayValue": {"values": [{"stringValue": "x"}, {"intValue": "1"}]}}, ["x", 1]),
        ({"arrayValue": {}}, []),
        (
            {"kvlistValue": {"values": [{"key": "id", "value": {"stringValue": "d1"}}]}},
            {"id": "d1"},
        ),
        ({"bytesValue": "aGk="}, b"hi"),
        ({}, None),
    ],
)
def test_any_value_shapes(value: dict, decoded: object) -> None:
    assert any_value(value, "v") == decoded


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ({"intValue": "1.5"}, "expected a whole number"),
        ({"stringValue": "a", "intValue": "1"}, "holds exactly one of"),
        ({"textValue": "a"}, "unknown AnyValue field 'textValue'"),
        ({"boolValue": "true"}, "expected true or false"),
        ({"bytesValue": "***"}, "expected base64 text"),
        ("plain", "expected an AnyValue object"),
    ],
)
def test_any_value_mistakes(value: object, fragment: str) -> None:
    with pytest.raises(BadValue, match=fragment):
        any_value(value, "v")


def test_an_attribute_given_twice_keeps_the_last() -> None:
    pairs = [{"key": "a", "value": {"intValue": 1}}, {"key": "a", "value": {"intValue": 2}}]
    assert attributes_to_dict(pairs) == {"a": 2}


def test_ids_in_hex_and_base64_and_protobuf_field_names_read_alike(tmp_path: Path) -> None:
    camel = {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": HEX_TRACE.upper(),
                                "spanId": HEX_SPAN,
                                "startTimeUnixNano": 5,
                                "endTimeUnixNano": "9",
                                "status": {"code": "STATUS_CODE_ERROR", "message": "x"},
                            }
                        ]
                    }
                ]
            }
        ]
    }
    snake = {
        "resource_spans": [
            {
                "instrumentation_library_spans": [
                    {
                        "spans": [
                            {
                                "trace_id": B64_TRACE,
                                "span_id": B64_SPAN.rstrip("="),
                                "start_time_unix_nano": "5",
                                "end_time_unix_nano": 9,
                                "status": {"code": 2, "message": "x"},
                            }
                        ]
                    }
                ]
            }
        ]
    }
    first, second = spans_of(tmp_path, camel, snake)
    assert (first.trace_id, first.span_id, first.start, first.end, first.error) == (
        HEX_TRACE,
        HEX_SPAN,
        5,
        9,
        "x",
    )
    assert (second.trace_id, second.span_id, second.start, second.end, second.error) == (
        HEX_TRACE,
        HEX_SPAN,
        5,
        9,
        "x",
    )
    assert (first.line, second.line) == (1, 2)
    assert first.path == "resourceSpans[0].scopeSpans[0].spans[0]"


def test_an_empty_request_has_no_spans(tmp_path: Path) -> None:
    assert spans_of(tmp_path, {}, {"resourceSpans": []}) == []


def test_reading_a_trace_file_needs_no_opentelemetry_package(tmp_path: Path) -> None:
    """The core install reads trace files: opentelemetry and protobuf are made unimportable."""
    path = tmp_path / "t.json"
    span = {
        "traceId": HEX_TRACE,
        "spanId": HEX_SPAN,
        "attributes": [
            {"key": "input.value", "value": {"stringValue": "q?"}},
            {"key": "output.value", "value": {"stringValue": "a."}},
        ],
    }
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    script = (
        "import sys\n"
        "for name in ('opentelemetry', 'google', 'google.protobuf', 'openinference'):\n"
        "    sys.modules[name] = None\n"
        "from ragguard.testset.formats import load_run_file\n"
        f"run = load_run_file({str(path)!r}, {{'q1': 'q?'}})\n"
        "print(run.records['q1'].answer)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "a.\n", "")
