"""A local OpenAI-compatible chat-completions server for tests and benchmarks.

Real HTTP on 127.0.0.1 (a free port), one thread per request. It judges like a simple
model would (a sentence is supported when most of its longer words are in one chunk) and
can misbehave on demand (``usage=False``: its replies carry no ``usage``, as some servers'): each request takes the next behaviour from ``script``, then
``default``. Behaviours:

- ``ok``: a correct JSON reply; ``fenced``: the same inside a ```json fence
- ``slow``: ``ok`` after ``slow_seconds`` (on top of ``latency``)
- ``429``: status 429 with ``Retry-After: <retry_after>``; ``429-date``: Retry-After as an HTTP
  date ``retry_after`` seconds ahead; ``429-bare``: no Retry-After
- ``500``, ``503``: server errors; ``401``, ``404``, ``400``: client errors; ``redirect``: 307
- ``truncated``: the reply cut in half (finish_reason "length"); ``non_json``: prose
- ``missing_id``, ``extra_id``, ``duplicate_id``: a sentence verdict dropped / invented / twice
- ``bad_evidence``: evidence names a chunk that was not given; ``envelope``: not a completion
- ``lone_surrogate``: a correct reply with a note holding a lone surrogate (escaped in the
  completion's JSON)
- ``hang``: sleep ``hang_seconds`` before answering (to trigger the client's timeout)
- drafting prompts (``ragguard testset draft``) get drafts in a real model's style, and
  behaviours of their own (``draft_invented`` ...): tests/judge/fake_drafts.py
- ``echo``: not a judge: a plain chat reply, ``echo: `` and the last message's text (a
  system under test's model calls, tests/traces)

It counts requests (``calls``, also served at ``GET /calls``), keeps each request (``requests``: path, query, headers,
body) and the most requests in flight at once (``max_in_flight``). ``barrier`` (a
``threading.Barrier``), when set, is waited on by each request before answering.
``by_text`` maps a text to a behaviour used for every request whose prompt contains it.
"""

from __future__ import annotations

import email.utils
import json
import re
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from fake_drafts import draft_reply, is_drafting  # beside it: tests/judge is on the path

_CHUNK = re.compile(r"\[chunk ([^\]\n]+)\]\n(.*?)(?=\n\n\[chunk |\n</context>)", re.DOTALL)
_SENTENCE = re.compile(r"^(s\d+): (.*)$", re.MULTILINE)
_WORD = re.compile(r"[a-z0-9-]{4,}")


@dataclass
class Recorded:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


class FakeOpenAI:
    """Start with ``with FakeOpenAI() as server:``; ``server.base_url`` ends in ``/v1``."""

    def __init__(
        self,
        *,
        default: str = "ok",
        script: list[str] | None = None,
        latency: float = 0.0,
        slow_seconds: float = 0.5,
        hang_seconds: float = 2.0,
        retry_after: float = 1,
        barrier: threading.Barrier | None = None,
        relevance: int = 4,
        by_text: dict[str, str] | None = None,
        usage: bool = True,
    ) -> None:
        self.default = default
        self.usage = usage
        self.script: deque[str] = deque(script or [])
        self.latency = latency
        self.slow_seconds = slow_seconds
        self.hang_seconds = hang_seconds
        self.retry_after = retry_after
        self.barrier = barrier
        self.relevance = relevance
        self.by_text = dict(by_text or {})
        self.requests: list[Recorded] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> FakeOpenAI:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._server.request_queue_size = 256
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self.requests)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.max_in_flight = 0

    # -- behaviour -------------------------------------------------------------------------
    def _next_behaviour(self, record: Recorded) -> str:
        with self._lock:
            self.requests.append(record)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            prompt = _first_prompt(record.body)
            for text, behaviour in self.by_text.items():
                if text in prompt:
                    return behaviour
            return self.script.popleft() if self.script else self.default

    def _done(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def verdict(self, body: Any) -> dict[str, Any]:
        """A correct reply for the request: the judging rule described above."""
        prompt = body["messages"][1]["content"]
        chunks = _CHUNK.findall(prompt)
        answer = prompt.split("<answer>\n", 1)[1].split("\n</answer>", 1)[0]
        sentences = []
        for sentence_id, text in _SENTENCE.findall(answer):
            words = set(_WORD.findall(text.lower()))
            best, evidence = 0.0, None
            for chunk_id, chunk_text in chunks:
                found = words & set(_WORD.findall(chunk_text.lower()))
                share = len(found) / len(words) if words else 0.0
                if share > best:
                    best, evidence = share, chunk_id
            supported = best >= 0.75
            sentences.append(
                {
                    "id": sentence_id,
                    "supported": supported,
                    "evidence": evidence if supported else None,
                }
            )
        declined = "don't know" in answer.lower() or "do not know" in answer.lower()
        return {"sentences": sentences, "relevance": self.relevance, "declined": declined}


def _first_prompt(body: Any) -> str:
    try:
        return str(body["messages"][1]["content"])
    except (TypeError, KeyError, IndexError):
        return ""


def completion(content: str, finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes; without this, Nagle's algorithm and the
        # client's delayed ACK add ~40 ms to every reply (a real API server sets it too).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        """``GET /calls``: the number of requests so far (for a server in another process)."""
        if self.path == "/calls":
            self._send(200, {"calls": self.fake.calls})
        else:
            self._send(404, {"error": {"message": "unknown path"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        parsed = urlparse(self.path)
        record = Recorded(parsed.path, parse_qs(parsed.query), dict(self.headers.items()), body)
        behaviour = self.fake._next_behaviour(record)
        try:
            if self.fake.barrier is not None:
                self.fake.barrier.wait(timeout=10)
            if self.fake.latency:
                time.sleep(self.fake.latency)
            self._respond(behaviour, body)
        finally:
            self.fake._done()

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        if isinstance(payload, dict) and not self.fake.usage:
            payload = {key: value for key, value in payload.items() if key != "usage"}
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _respond(self, behaviour: str, body: Any) -> None:
        fake = self.fake
        if not self.path.split("?")[0].endswith("/chat/completions"):
            self._send(404, {"error": {"message": "unknown path"}})
            return
        errors = {
            "500": 500,
            "503": 503,
            "401": 401,
            "404": 404,
            "400": 400,
        }
        if behaviour in errors:
            status = errors[behaviour]
            self._send(status, {"error": {"message": f"fake {status}"}})
            return
        if behaviour == "429":
            self._send(
                429, {"error": {"message": "slow down"}}, {"Retry-After": f"{fake.retry_after:g}"}
            )
            return
        if behaviour == "429-date":
            moment = email.utils.formatdate(time.time() + fake.retry_after, usegmt=True)
            self._send(429, {"error": {"message": "slow down"}}, {"Retry-After": moment})
            return
        if behaviour == "429-bare":
            self._send(429, {"error": {"message": "slow down"}})
            return
        if behaviour == "redirect":
            self._send(307, {}, {"Location": "http://127.0.0.1:9/v1/chat/completions"})
            return
        if behaviour == "envelope":
            self._send(200, {"unexpected": True})
            return
        if behaviour == "echo":
            self._send(200, completion(f"echo: {body['messages'][-1]['content']}"))
            return
        if behaviour == "slow":
            time.sleep(fake.slow_seconds)
        if behaviour == "hang":
            time.sleep(fake.hang_seconds)
        prompt = _first_prompt(body)
        if is_drafting(prompt):
            self._send(200, completion(draft_reply(prompt, behaviour)))
            return
        verdict = fake.verdict(body)
        if behaviour == "missing_id":
            verdict["sentences"] = verdict["sentences"][:-1]
        elif behaviour == "extra_id":
            verdict["sentences"].append({"id": "s99", "supported": True, "evidence": None})
        elif behaviour == "duplicate_id":
            verdict["sentences"].append(dict(verdict["sentences"][0]))
        elif behaviour == "bad_evidence":
            verdict["sentences"][0]["evidence"] = "no-such-chunk"
        elif behaviour == "lone_surrogate":  # the envelope escapes it: "\ud800"
            verdict["note"] = "half \ud800 a pair"
        content = json.dumps(verdict, ensure_ascii=False)
        if behaviour == "fenced":
            content = f"```json\n{content}\n```"
        elif behaviour == "truncated":
            self._send(200, completion(content[: len(content) // 2], "length"))
            return
        elif behaviour == "non_json":
            content = "All sentences look supported to me."
        self._send(200, completion(content))


def main() -> None:
    """Serve in a process of its own (``python fake_openai.py --latency 0.2``): print the
    base URL, then serve until terminated."""
    import argparse

    parser = argparse.ArgumentParser(description="A local OpenAI-compatible fake judge.")
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--default", default="ok")
    args = parser.parse_args()
    server = FakeOpenAI(latency=args.latency, default=args.default)
    server.start()
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
