"""OTLP JSON: the spans of a trace file, one at a time.

A trace file holds ``ExportTraceServiceRequest`` objects in protobuf's JSON form::

    {"resourceSpans": [{"resource": {...}, "scopeSpans": [{"scope": {...}, "spans": [
      {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174",
       "parentSpanId": "", "name": "agent", "startTimeUnixNano": "1544712660000000000",
       "endTimeUnixNano": "1544712661000000000", "attributes": [...],
       "status": {"code": 2, "message": "..."}}]}]}]}

one a line (as the OpenTelemetry Collector's file exporter writes them), or one such document
over many lines. Ids are hex (the collector, the OTLP/JSON specification) or base64
(protobuf's JSON format); 64-bit numbers are strings of digits or numbers; enums are numbers
or names; the protobuf field names (``resource_spans`` ...) are accepted too. Fields left
out take protobuf's defaults (no parent, time 0, status unset).

Every mistake is an :class:`~ragguard.core.errors.InputError` naming the file, the line (of a
JSON Lines file) and the key path down to the value.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import (
    iter_lines,
    number_problem,
    out_of_memory,
    read_text,
    shown,
    type_name,
)
from ragguard.traces.anyvalue import BadValue, attributes_to_dict, base64_bytes

WHAT = "trace file"
TRACE_ID_BYTES, SPAN_ID_BYTES = 16, 8
_ERROR_CODES = (2, "STATUS_CODE_ERROR")
_OTHER_CODES = (0, 1, "STATUS_CODE_UNSET", "STATUS_CODE_OK")
_HEX = frozenset("0123456789abcdefABCDEF")
REQUEST_KEYS = ("resourceSpans", "resource_spans")


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a valid JSON number; write a number, or its text in quotes")


# Trace files are large and made of many small objects: parsed at C speed, with no hook
# per object (so a key repeated in one object keeps its last value, as json does).
_JSON = json.JSONDecoder(parse_constant=_refuse_constant)


def parse_json_value(text: str) -> Any:
    """One JSON value (NaN and Infinity refused); ValueError says what is wrong."""
    try:
        return _JSON.decode(text)
    except RecursionError:
        raise ValueError("nested too deeply (hundreds of levels of lists or mappings)") from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        raise ValueError(number_problem(exc)) from None


@dataclass(frozen=True, slots=True)
class RawSpan:
    """One span as the file has it: ids in lower-case hex, times in nanoseconds.

    ``error`` is the status message of a span whose status is ERROR (the first exception
    event's message when the status has none, else ``""``); ``None`` when it did not fail.
    ``line`` is the line of a JSON Lines file (``None`` in a document over many lines),
    ``path`` the span's place in its request (``resourceSpans[0].scopeSpans[0].spans[2]``).
    """

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start: int
    end: int
    attributes: dict[str, Any]
    error: str | None
    line: int | None
    path: str


def iter_requests(path: Path) -> Iterator[tuple[int | None, Any]]:
    """(line, request) for each JSON line, streamed; a file whose first line is not JSON
    by itself is read as one document over many lines (line ``None``)."""
    lines = iter_lines(path, what=WHAT)
    for number, line in lines:
        if not line.strip():
            continue
        try:
            first = parse_json_value(line)
        except json.JSONDecodeError:
            lines.close()
            yield None, _whole_document(path)
            return
        except ValueError as exc:
            raise InputError(path, f"invalid JSON: {exc}", line=number) from None
        except MemoryError:
            raise out_of_memory(path, WHAT) from None
        yield number, first
        break
    for number, line in lines:
        if line.strip():
            yield number, _json_line(line, number, path)


def _json_line(line: str, number: int, path: Path) -> Any:
    try:
        return parse_json_value(line)
    except json.JSONDecodeError as exc:
        raise InputError(
            path,
            f"invalid JSON: {exc.msg} (column {exc.colno}); each line must hold one "
            "complete ExportTraceServiceRequest object",
            line=number,
        ) from None
    except ValueError as exc:
        raise InputError(path, f"invalid JSON: {exc}", line=number) from None
    except MemoryError:
        raise out_of_memory(path, WHAT) from None


def _whole_document(path: Path) -> Any:
    text = read_text(path, what=WHAT)
    try:
        return parse_json_value(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            path,
            f"invalid JSON: {exc.msg} (column {exc.colno}); a trace file holds one "
            "ExportTraceServiceRequest object a line, or one such document",
            line=exc.lineno,
        ) from None
    except ValueError as exc:
        raise InputError(path, f"invalid JSON: {number_problem(exc)}") from None
    except MemoryError:
        raise out_of_memory(path, WHAT) from None


def iter_spans(requests: Iterable[tuple[int | None, Any]], source: Path) -> Iterator[RawSpan]:
    """Every span of every request, in file order, validated."""
    for line, request in requests:
        where = Where(source, line)
        try:
            yield from _request_spans(request, line)
        except BadValue as exc:
            raise where.error(exc.message, key=exc.key) from None


def _request_spans(request: Any, line: int | None) -> Iterator[RawSpan]:
    if not isinstance(request, dict):
        raise BadValue(
            f'expected an ExportTraceServiceRequest object {{"resourceSpans": [...]}}, '
            f"found {type_name(request)}",
            "",
        )
    for name in request:
        if name not in REQUEST_KEYS:
            raise BadValue(
                f"unknown key {str(name)!r}: an ExportTraceServiceRequest holds only "
                "'resourceSpans' (is this a trace file? a run file's lines are run records)",
                "",
            )
    for resource_path, resource in _items(request, "resourceSpans", "resource_spans", ""):
        for scope_path, scope in _scope_lists(resource, resource_path):
            for span_path, span in _items(scope, "spans", "spans", scope_path):
                yield _span(span, line, span_path)


def _scope_lists(resource: Any, key: str) -> Iterator[tuple[str, Any]]:
    """The scope spans of a resource (``instrumentationLibrarySpans`` in OTLP before 0.15)."""
    if not isinstance(resource, dict):
        raise BadValue(f"expected an object, found {type_name(resource)}", key)
    legacy = ("instrumentationLibrarySpans", "instrumentation_library_spans")
    for camel, snake in (("scopeSpans", "scope_spans"), legacy):
        yield from _items(resource, camel, snake, key)


def _items(obj: Any, camel: str, snake: str, key: str) -> Iterator[tuple[str, Any]]:
    """(key path, item) of a repeated field (missing: none, as protobuf leaves it out)."""
    if not isinstance(obj, dict):
        raise BadValue(f"expected an object, found {type_name(obj)}", key)
    values = _field(obj, camel, snake)
    path = f"{key}.{camel}" if key else camel
    if values is None:
        return
    if not isinstance(values, list):
        raise BadValue(f"expected a list, found {type_name(values)}", path)
    for index, item in enumerate(values):
        yield f"{path}[{index}]", item


def _field(obj: Mapping[str, Any], camel: str, snake: str) -> Any:
    value = obj.get(camel)
    return obj.get(snake) if value is None else value


def _span(span: Any, line: int | None, path: str) -> RawSpan:
    if not isinstance(span, dict):
        raise BadValue(f"expected a span object, found {type_name(span)}", path)
    trace_id = _id(_field(span, "traceId", "trace_id"), TRACE_ID_BYTES, f"{path}.traceId")
    span_id = _id(_field(span, "spanId", "span_id"), SPAN_ID_BYTES, f"{path}.spanId")
    parent = _field(span, "parentSpanId", "parent_span_id")
    parent_id = _id(parent, SPAN_ID_BYTES, f"{path}.parentSpanId") if parent else None
    start = _nanos(_field(span, "startTimeUnixNano", "start_time_unix_nano"), path, "start")
    end = _nanos(_field(span, "endTimeUnixNano", "end_time_unix_nano"), path, "end")
    if end < start:
        raise BadValue(
            f"the span ends ({end}) before it starts ({start}); check the exporter's clock",
            f"{path}.endTimeUnixNano",
        )
    name = span.get("name") or ""
    if not isinstance(name, str):
        raise BadValue(f"expected a string, found {type_name(name)}", f"{path}.name")
    attributes = attributes_to_dict(span.get("attributes"), f"{path}.attributes")
    error = _status_error(span, path)
    return RawSpan(trace_id, span_id, parent_id, name, start, end, attributes, error, line, path)


def _id(value: Any, size: int, key: str) -> str:
    """An id as lower-case hex: given as hex (``2 * size`` digits) or base64 of ``size``
    bytes; all zeros is no id (the OTLP specification calls it invalid)."""
    if isinstance(value, str) and value:
        if len(value) == 2 * size and _HEX.issuperset(value):
            text = value.lower()
        else:
            raw = base64_bytes(value)
            text = raw.hex() if raw is not None and len(raw) == size else ""
        if text and text.strip("0"):
            return text
    what = "trace" if size == TRACE_ID_BYTES else "span"
    raise BadValue(
        f"expected a {what} id of {size} bytes, as {2 * size} hex digits or base64, not all "
        f"zeros; found {shown(value)}",
        key,
    )


def _nanos(value: Any, path: str, which: str) -> int:
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        return int(value)
    raise BadValue(
        f"expected the time in nanoseconds since 1970 (digits, as a string or a number), "
        f"found {shown(value)}",
        f"{path}.{which}TimeUnixNano",
    )


def _status_error(span: Mapping[str, Any], path: str) -> str | None:
    status = span.get("status")
    if status is None:
        return None
    if not isinstance(status, dict):
        raise BadValue(f"expected an object, found {type_name(status)}", f"{path}.status")
    code = status.get("code", 0)
    if code in _OTHER_CODES and not isinstance(code, bool):
        return None
    if code not in _ERROR_CODES or isinstance(code, bool):
        raise BadValue(
            f"expected 0, 1 or 2 (STATUS_CODE_UNSET, _OK, _ERROR), found {shown(code)}",
            f"{path}.status.code",
        )
    message = status.get("message") or ""
    if not isinstance(message, str):
        raise BadValue(f"expected a string, found {type_name(message)}", f"{path}.status.message")
    return message or _exception_message(span.get("events"), path)


def _exception_message(events: Any, path: str) -> str:
    """The message of the span's first ``exception`` event, when it recorded one."""
    if not isinstance(events, list):
        return ""
    for index, event in enumerate(events):
        if isinstance(event, dict) and event.get("name") == "exception":
            attributes = attributes_to_dict(
                event.get("attributes"), f"{path}.events[{index}].attributes"
            )
            return exception_text(attributes)
    return ""


def exception_text(attributes: Mapping[str, Any]) -> str:
    """``Type: message`` of an ``exception`` event's attributes (``""`` without a message)."""
    message = attributes.get("exception.message")
    kind = attributes.get("exception.type")
    if not isinstance(message, str) or not message:
        return ""
    return f"{kind}: {message}" if isinstance(kind, str) and kind else message
