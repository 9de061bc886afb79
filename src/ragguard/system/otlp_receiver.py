"""A local OTLP/HTTP receiver for a run: ``system: {command: ..., traces: otlp}``.

It listens on loopback (a free port) for ``POST /v1/traces`` with an
``ExportTraceServiceRequest`` body, in OTLP JSON (``application/json``) or protobuf
(``application/x-protobuf``, read with the ``ragguard[traces]`` extra: opentelemetry-proto
and protobuf), gzip-compressed or not, and answers with an empty
``ExportTraceServiceResponse`` in the same encoding. The spans go to a
:class:`~ragguard.system.received.ReceivedSpans`. A request it cannot read gets 400 (415
for protobuf without the extra) and is counted in :attr:`OtlpReceiver.notes`.

The command gets ``OTEL_EXPORTER_OTLP_ENDPOINT`` and ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``
pointing here, and ``OTEL_EXPORTER_OTLP_PROTOCOL`` (``http/protobuf`` with the extra,
``http/json`` without) unless its environment sets one.
"""

from __future__ import annotations

import gzip
import threading
import zlib
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ragguard.core.errors import InputError
from ragguard.core.sources import parse_json_value
from ragguard.system.received import ReceivedSpans
from ragguard.traces.otlp import iter_spans

PATH = "/v1/traces"
JSON, PROTOBUF = "application/json", "application/x-protobuf"
PROTOBUF_MISSING = (
    "a protobuf body needs the traces extra (pip install 'ragguard[traces]'), or set "
    "OTEL_EXPORTER_OTLP_PROTOCOL=http/json"
)


class OtlpReceiver:
    """The receiver of one adapter: started on first use, closed at the end of the run."""

    def __init__(self, spans: ReceivedSpans) -> None:
        self.spans = spans
        self.refused = 0
        self.first_refusal = ""
        self.lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    def start(self) -> None:
        handler = type("Handler", (_Handler,), {"receiver": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="ragguard-otlp-receiver",
            daemon=True,
        ).start()

    @property
    def endpoint(self) -> str:
        assert self._server is not None, "the receiver is not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """The variables that send the command's spans here, over ``env``."""
        added = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": self.endpoint,
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": self.endpoint + PATH,
        }
        if (
            "OTEL_EXPORTER_OTLP_PROTOCOL" not in env
            and "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" not in env
        ):
            added["OTEL_EXPORTER_OTLP_PROTOCOL"] = (
                "http/protobuf" if _protobuf_request_type() is not None else "http/json"
            )
        return {**env, **added}

    def refuse(self, message: str) -> None:
        with self.lock:
            self.refused += 1
            self.first_refusal = self.first_refusal or message

    @property
    def notes(self) -> tuple[str, ...]:
        if not self.refused:
            return ()
        counted = "1 export request" if self.refused == 1 else f"{self.refused} export requests"
        first = "" if self.refused == 1 else "the first "
        return (
            f"ragguard: {self.spans.source}: {counted} refused by ragguard's OTLP receiver; "
            f"{first}{self.first_refusal}",
        )

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def receive(self, body: bytes, content_type: str, encoding: str) -> tuple[int, bytes]:
        """Take one export request: (HTTP status, response body)."""
        try:
            request = _request(_decompressed(body, encoding), content_type)
            self.spans.add(iter_spans([(None, request)], self.spans.source))
        except _Unsupported as exc:
            self.refuse(str(exc))
            return 415, b""
        except InputError as exc:
            self.refuse(f"was not OTLP: {exc.key + ': ' if exc.key else ''}{exc.message}")
            return 400, b""
        except ValueError as exc:
            self.refuse(f"was not OTLP: {exc}")
            return 400, b""
        return 200, b"{}" if content_type == JSON else b""


class _Unsupported(Exception):
    """A body ragguard cannot read here (protobuf without the extra, another type)."""


def _decompressed(body: bytes, encoding: str) -> bytes:
    if encoding in ("", "identity"):
        return body
    if encoding not in ("gzip", "deflate"):
        raise _Unsupported(f"Content-Encoding {encoding!r} is not gzip, deflate or none")
    try:
        return gzip.decompress(body) if encoding == "gzip" else zlib.decompress(body)
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"a {encoding} body that does not decompress ({exc})") from None


def _request(body: bytes, content_type: str) -> Any:
    if content_type == JSON:
        return parse_json_value(body.decode("utf-8"))
    if content_type == PROTOBUF:
        request_type = _protobuf_request_type()
        if request_type is None:
            raise _Unsupported(f"was protobuf: {PROTOBUF_MISSING}")
        from google.protobuf.json_format import MessageToDict
        from google.protobuf.message import DecodeError

        try:
            return MessageToDict(request_type.FromString(body))
        except DecodeError as exc:
            raise ValueError(f"protobuf that does not decode ({exc})") from None
    raise _Unsupported(f"Content-Type {content_type!r} is not {JSON} or {PROTOBUF}")


def _protobuf_request_type() -> Any | None:
    try:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )
    except ImportError:
        return None
    return ExportTraceServiceRequest


class _Handler(BaseHTTPRequestHandler):
    receiver: OtlpReceiver
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: what matters is counted in the receiver's notes."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path.split("?")[0] != PATH:
            self._send(404, b"", "text/plain")
            return
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        encoding = (self.headers.get("Content-Encoding") or "").strip().lower()
        status, payload = self.receiver.receive(body, content_type, encoding)
        self._send(status, payload, content_type if status == 200 else "text/plain")

    def _send(self, status: int, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
