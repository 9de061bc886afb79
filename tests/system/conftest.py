"""Fixtures for adapter tests: a suite folder with a test set and a ragguard.yml."""

from __future__ import annotations

import json
import socket
import textwrap
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from ragguard.config.load import load_config
from ragguard.config.model import Config
from ragguard.system import build_adapter
from ragguard.system.outcome import RunOutcome
from ragguard.system.pool import run_questions
from ragguard.testset.load import load_testset

SUITE_TESTSET = """\
- id: auth
  question: How do I authenticate to the Orders API?
  relevant: {authentication: 2}
  tags: [authentication]
- id: rate
  question: How many requests per minute are allowed?
  relevant: {rate-limits: 2, error-codes: 1}
  tags: [rate-limits, limits]
- id: page
  question: How do I get the next page of orders?
  relevant: [pagination]
"""


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    (tmp_path / "testset.yaml").write_text(SUITE_TESTSET, encoding="utf-8")
    return tmp_path


@pytest.fixture
def make_config(suite_dir: Path) -> Callable[[str], Config]:
    """Write ragguard.yml with the given ``system:`` body (indented YAML) and load it."""

    def make(system: str, extra: str = "") -> Config:
        body = textwrap.indent(textwrap.dedent(system).strip(), "  ")
        text = f"suite: adapters\ntestset: testset.yaml\nsystem:\n{body}\n{extra}"
        path = suite_dir / "ragguard.yml"
        path.write_text(text, encoding="utf-8")
        return load_config(path)

    return make


@pytest.fixture
def module_name() -> str:
    """A fresh importable module name (imports are cached per process)."""
    return f"rag_{uuid.uuid4().hex[:10]}"


@pytest.fixture
def run_suite() -> Callable[..., RunOutcome]:
    """Run a config's test set through its adapter, without sleeping between retries."""

    def run(config: Config, log: Callable[[str], None] | None = None) -> RunOutcome:
        testset = load_testset(config.testset)
        adapter = build_adapter(config, log=log)
        return run_questions(adapter, testset.questions, config.system.run, sleep=lambda s: None)

    return run


class RagHandler(BaseHTTPRequestHandler):
    """A RAG service on loopback whose behaviour per question is scripted by the test."""

    server: RagServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        query = parse_qs(urlsplit(self.path).query)
        self._respond({key: values[0] for key, values in query.items()})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        self._respond(json.loads(self.rfile.read(length) or b"{}"))

    def _respond(self, body: dict) -> None:
        self.server.seen.append(
            {"path": self.path, "method": self.command, "headers": dict(self.headers), "body": body}
        )
        question_id = str(body.get("id", ""))
        behaviour = self.server.next_behaviour(question_id)
        if behaviour == "slow":
            time.sleep(1.0)
        if behaviour == "barrier":
            self.server.barrier.wait()
        if behaviour == "close":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if behaviour.startswith("redirect "):
            location = behaviour.removeprefix("redirect ") + self.path
            self._send(307, "text/plain", "moved", {"Location": location})
            return
        if behaviour == "500":
            self._send(
                500, "text/plain", f"internal oops; auth={self.headers.get('Authorization')}"
            )
        elif behaviour == "400":
            self._send(400, "application/json", '{"detail": "field query is required"}')
        elif behaviour.startswith("429"):
            retry_after = behaviour.partition(":")[2] or "3"
            self._send(429, "text/plain", "slow down", {"Retry-After": retry_after})
        elif behaviour == "malformed":
            self._send(200, "application/json", '{"contexts": [')
        elif behaviour.startswith("raw "):  # "raw TEXT": TEXT is the reply's body
            self._send(200, "application/json", behaviour.removeprefix("raw "))
        elif behaviour == "wrong-shape":
            self._send(200, "application/json", '{"data": {"results": "none"}}')
        else:
            reply = {
                "data": {
                    "results": [
                        {
                            "doc_id": "authentication",
                            "content": "Use a bearer token.",
                            "score": 0.9,
                        },
                        {"doc_id": "rate-limits", "content": "100 per minute."},
                    ]
                },
                "answer": f"answer to {question_id}: {body.get('query', body.get('question'))}",
            }
            if behaviour.startswith("usage "):  # "usage {json}": the reply reports its cost
                reply["meta"] = {"usage": json.loads(behaviour.removeprefix("usage "))}
            self._send(200, "application/json", json.dumps(reply))

    def _send(self, status: int, kind: str, text: str, headers: dict | None = None) -> None:
        payload = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)


class RagServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), RagHandler)
        self.seen: list[dict] = []
        self.script: dict[str, list[str]] = {}
        self.barrier = threading.Barrier(1)
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def next_behaviour(self, question_id: str) -> str:
        """The next scripted behaviour for a question; the last one repeats; default ok."""
        with self.lock:
            steps = self.script.get(question_id) or ["ok"]
            return steps.pop(0) if len(steps) > 1 else steps[0]


@pytest.fixture
def rag_server() -> Iterator[RagServer]:
    yield from _serving()


@pytest.fixture
def other_rag_server() -> Iterator[RagServer]:
    """A second service on another port: where a redirect may lead."""
    yield from _serving()


def _serving() -> Iterator[RagServer]:
    server = RagServer()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)
