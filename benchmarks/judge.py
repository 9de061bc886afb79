"""Judge throughput and the cache: 200 answers, a judge with 200 ms latency, concurrency 8.

The judge is the tests' local OpenAI-compatible server (tests/judge/fake_openai.py), run
in a process of its own on 127.0.0.1, answering every request after ``--latency`` seconds
and counting the requests it gets. ragguard scores a run of
``--answers`` answers of about 4 sentences each with faithfulness, answer_relevance and
abstention all by the judge, through ``score_run`` (segmentation, prompts, HTTP, parsing,
results), with a fresh cache folder:

1. the first run must make exactly one call per answer; its wall time is compared with the
   ideal ``answers x latency / concurrency`` (the target is at most 1.25x);
2. the rerun over the unchanged answers, with a new client on the same cache, must make 0
   calls.

    python benchmarks/judge.py
    python benchmarks/judge.py --answers 400 --latency 0.1 --concurrency 16
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests
from _common import environment

from ragguard.judge.client import JudgeClient
from ragguard.metrics.names import parse_metric_list
from ragguard.metrics.settings import GenerationSettings, JudgeSettings
from ragguard.results.chunks import Chunk
from ragguard.results.records import RunRecord
from ragguard.scoring.score import score_run
from ragguard.testset.model import Question, TestSet

CHUNK = (
    "Each API key may send 100 requests per minute. Extra requests return status 429 with a "
    "Retry-After header. The Retry-After value is the number of seconds to wait."
)
TARGET_RATIO = 1.25
FAKE = Path(__file__).resolve().parents[1] / "tests" / "judge" / "fake_openai.py"


def suite(answers: int) -> tuple[TestSet, dict[str, RunRecord]]:
    """``answers`` distinct answers of 4 sentences each, one retrieved chunk with text."""
    questions, records = [], {}
    for i in range(answers):
        qid = f"q{i:04d}"
        questions.append(Question(qid, f"Question {i} about rate limits?", {"rate-limits": 1}))
        answer = (
            f"You can send 100 requests per minute per API key (case {i}). "
            "Extra requests return status 429. "
            "Wait for the seconds in Retry-After. "
            "Limits reset every hour."
        )
        records[qid] = RunRecord(qid, (Chunk("rate-limits", CHUNK),), answer)
    return TestSet(tuple(questions)), records


class TimedJudge:
    """Wraps the client to time the judging phase alone (score_run also segments, scores
    and bootstraps the intervals)."""

    def __init__(self, client: JudgeClient) -> None:
        self.client = client
        self.seconds = 0.0

    def judge_many(self, items):
        start = time.perf_counter()
        try:
            return self.client.judge_many(items)
        finally:
            self.seconds += time.perf_counter() - start


def timed_run(testset, records, settings, judge):
    start = time.perf_counter()
    results = score_run(
        testset,
        records,
        parse_metric_list("faithfulness,answer_relevance"),
        suite="bench",
        generation=settings,
        judge=judge,
    )
    return results, time.perf_counter() - start


class JudgeProcess:
    """The fake judge in a process of its own, as a real judge would be."""

    def __init__(self, latency: float) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(FAKE), "--latency", str(latency)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.base_url = self.process.stdout.readline().strip()
        if not self.base_url.startswith("http://127.0.0.1:"):
            self.close()
            sys.exit("the fake judge did not start")

    def calls(self) -> int:
        root = self.base_url.rsplit("/v1", 1)[0]
        return requests.get(f"{root}/calls", timeout=5).json()["calls"]

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    testset, records = suite(args.answers)
    ideal = args.answers * args.latency / args.concurrency
    print(environment())
    server = JudgeProcess(args.latency)
    try:
        with tempfile.TemporaryDirectory() as folder:
            judge = JudgeSettings(
                server.base_url, "bench", concurrency=args.concurrency, cache_dir=Path(folder)
            )
            settings = GenerationSettings("judge", 0.75, "judge", "lexical", judge)
            first_client = JudgeClient(judge)
            first_timed = TimedJudge(first_client)
            results, first_seconds = timed_run(testset, records, settings, first_timed)
            first_calls = server.calls()
            statuses = results.counts
            second_client = JudgeClient(judge)
            _, second_seconds = timed_run(testset, records, settings, second_client)
            second_calls = server.calls() - first_calls
    finally:
        server.close()
    ratio = first_seconds / ideal
    verdict = "ok" if ratio <= TARGET_RATIO else "MISSED"
    print(
        f"first run:  {args.answers} answers x ~4 sentences, judge latency "
        f"{args.latency * 1000:.0f} ms, concurrency {args.concurrency}: {first_calls} calls "
        f"(counted at the server), {first_seconds:.2f} s wall for score_run; ideal "
        f"{ideal:.2f} s; ratio {ratio:.2f}x (target <= {TARGET_RATIO}x) -> {verdict}"
    )
    print(
        f"            of which judging: {first_timed.seconds:.2f} s "
        f"({first_timed.seconds / ideal:.2f}x the ideal)"
    )
    print(f"            statuses: {statuses}; {first_client.usage.line()}")
    print(
        f"cached run: {second_calls} calls (counted at the server), {second_seconds:.2f} s "
        f"wall ({second_client.usage.cached} answers from the cache)"
    )
    ok = (
        first_calls == args.answers
        and second_calls == 0
        and ratio <= TARGET_RATIO
        and statuses["ok"] == args.answers
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
