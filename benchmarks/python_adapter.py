"""Runner overhead with the python adapter: what ragguard adds to each question's call.

A trivial system function (it returns two chunk ids and an answer) is called directly
``--questions`` times (the call itself), then through ``PythonAdapter.ask`` (a helper
thread keeps the time, for callers other than the runner, and the answer is parsed), then
through the whole runner, ``run_questions`` at
``--concurrency`` (queues, records, latency, progress). The per-question overhead is the
runner's time less the bare call's, divided by the questions. Target: under 50 us at
concurrency 1.

    python benchmarks/python_adapter.py
    python benchmarks/python_adapter.py --questions 50000 --concurrency 4
"""

from __future__ import annotations

import argparse
import threading
import time
from queue import SimpleQueue
from typing import Any

from _common import environment

from ragguard.config.model import RunSettings
from ragguard.system.pool import run_questions
from ragguard.system.python import PythonAdapter
from ragguard.testset.model import Question

TARGET_US = 50.0


def system(question: str) -> dict[str, Any]:
    return {"retrieved": ["rate-limits", "pagination"], "answer": "100 requests a minute"}


def thread_round_trip(count: int) -> float:
    """Seconds for ``count`` hand-offs to a waiting thread and back: the floor of any
    mechanism that runs the call on another thread (context switches on this machine)."""
    inbox: SimpleQueue[int] = SimpleQueue()
    outbox: SimpleQueue[int] = SimpleQueue()

    def serve() -> None:
        while (item := inbox.get()) >= 0:
            outbox.put(item)

    threading.Thread(target=serve, daemon=True).start()
    started = time.perf_counter()
    for number in range(count):
        inbox.put(number)
        outbox.get()
    elapsed = time.perf_counter() - started
    inbox.put(-1)
    return elapsed


def per_question_us(seconds: float, questions: int) -> float:
    return seconds / questions * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=20_000)
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()
    questions = [
        Question(id=f"q{i}", question=f"How many requests a minute, case {i}?", relevant={"x": 1})
        for i in range(args.questions)
    ]
    adapter = PythonAdapter("bench:system", system)
    settings = RunSettings(concurrency=args.concurrency, timeout=30.0, retries=0)

    started = time.perf_counter()
    for question in questions:
        system(question.question)
    bare = time.perf_counter() - started

    started = time.perf_counter()
    for question in questions:
        adapter.ask(question, settings.timeout)
    asked = time.perf_counter() - started

    started = time.perf_counter()
    outcome = run_questions(adapter, questions, settings)
    ran = time.perf_counter() - started
    if outcome.errors or len(outcome.records) != args.questions:
        raise SystemExit(f"FAIL: {outcome.errors} errors, {len(outcome.records)} records")

    round_trip = thread_round_trip(args.questions)
    overhead = per_question_us(ran - bare, args.questions)
    print(environment())
    print(f"{args.questions:,} questions, concurrency {args.concurrency}, timeout 30 s")
    print(
        f"  the call itself              {per_question_us(bare, args.questions):8.1f} us a question"
    )
    print(
        f"  PythonAdapter.ask            {per_question_us(asked, args.questions):8.1f} us a question"
    )
    print(
        f"  run_questions (whole runner) {per_question_us(ran, args.questions):8.1f} us a question"
    )
    floor = per_question_us(round_trip, args.questions)
    print(f"  (a round trip to a waiting thread, the floor of any thread hand-off: {floor:.1f} us)")
    verdict = "under" if overhead < TARGET_US else "OVER"
    print(f"runner overhead {overhead:.1f} us a question: {verdict} the {TARGET_US:.0f} us target")


if __name__ == "__main__":
    main()
