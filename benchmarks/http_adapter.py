"""Runner throughput: 200 questions through the http adapter, a 100 ms server, concurrency 8.

A threaded HTTP server on 127.0.0.1 answers every request after ``--latency`` seconds.
ragguard runs ``--questions`` questions through the real http adapter and runner (request
templating, the pooled session, JSON mapping, retries bookkeeping, latency per question),
and the wall time is compared with the ideal ``questions x latency / concurrency``.
Target: at most 1.25x.

    python benchmarks/http_adapter.py
    python benchmarks/http_adapter.py --questions 400 --latency 0.05 --concurrency 16
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from _common import environment

from ragguard.config.model import RunSettings
from ragguard.system.http import HttpAdapter, ResponseMapping
from ragguard.system.pool import run_questions
from ragguard.testset.model import Question

TARGET_RATIO = 1.25


def slow_server(latency: float) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a production service would
        disable_nagle_algorithm = True  # as production servers do (uvicorn, gunicorn)

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            time.sleep(latency)
            reply = json.dumps(
                {
                    "contexts": [
                        {"doc_id": "rate-limits", "content": "100 per minute", "score": 1}
                    ],
                    "answer": f"answer to {body['query']}",
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.request_queue_size = 64
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.1, help="server delay, seconds")
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()

    server = slow_server(args.latency)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/ask"
    adapter = HttpAdapter(
        url,
        body={"query": "{question}", "id": "{id}"},
        response=ResponseMapping(retrieved="/contexts", id="doc_id", text="content"),
        pool_size=args.concurrency,
    )
    questions = [
        Question(id=f"q{i}", question=f"How many requests per minute, case {i}?", relevant={"x": 1})
        for i in range(args.questions)
    ]
    settings = RunSettings(concurrency=args.concurrency, timeout=30.0, retries=0)
    started = time.perf_counter()
    outcome = run_questions(adapter, questions, settings)
    wall = time.perf_counter() - started
    server.shutdown()
    server.server_close()

    ideal = args.questions * args.latency / args.concurrency
    ratio = wall / ideal
    latencies = sorted(r.latency_ms or 0.0 for r in outcome.records.values())
    print(environment())
    print(
        f"{args.questions} questions, server latency {args.latency * 1000:.0f} ms, "
        f"concurrency {args.concurrency}: {outcome.errors} errors"
    )
    print(
        f"per-question latency: p50 {latencies[len(latencies) // 2]:.1f} ms, "
        f"max {latencies[-1]:.1f} ms"
    )
    print(
        f"wall time {wall:.3f} s, ideal {ideal:.3f} s, ratio {ratio:.3f}x (target <= {TARGET_RATIO}x)"
    )
    if outcome.errors or ratio > TARGET_RATIO:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
