"""Peak memory of 100,000 questions: score two runs, write and reload them, compare, render.

What ``ragguard run`` + ``ragguard compare`` do for a large suite, in one process so the
peak covers every step: a test set of N questions (2 graded labels each, a reference
answer), two runs (10 retrieved chunks with text and a 2-sentence answer per question; the
head run differs on about a third of the questions), each scored with retrieval metrics and
the lexical generation metrics (faithfulness keeps a verdict per answer sentence), written as
results JSON and loaded back, then compared and rendered as the PR comment and the job
summary. The peak resident set size (``ru_maxrss``) is printed after each step; the target
is under 1 GiB at 100,000 questions.

    python benchmarks/memory_100k.py
    python benchmarks/memory_100k.py --questions 20000
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import tempfile
import time
from pathlib import Path

from _common import environment

from ragguard.compare import compare
from ragguard.config.sections.gate import default_gate_rules
from ragguard.metrics.names import parse_metric_list
from ragguard.render import render_comment, render_summary, terminal_report
from ragguard.results.chunks import Chunk
from ragguard.results.io import load_results, write_results
from ragguard.results.records import RunRecord
from ragguard.scoring.score import score_run
from ragguard.testset.model import Question, TestSet

METRICS = "hit_rate@1,recall@10,ndcg@10,mrr,answer_f1,faithfulness"
TARGET_MIB = 1024
CHUNKS = 10


def peak_mib() -> float:
    """Peak resident set size of this process so far (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def testset(n: int) -> TestSet:
    return TestSet(
        tuple(
            Question(
                f"q{i:06d}",
                f"How is setting {i} of the orders service configured?",
                {f"doc{i}-a": 2, f"doc{i}-b": 1},
                reference_answer=f"Setting {i} is configured in the orders file.",
                tags=("orders", f"group{i % 20}"),
            )
            for i in range(n)
        )
    )


def run(n: int, variant: int) -> dict[str, RunRecord]:
    """One run; ``variant`` 1 ranks the relevant chunk lower on every third question."""
    records = {}
    for i in range(n):
        first = f"doc{i}-a" if variant == 0 or i % 3 else f"other{i}"
        ids = [first, *(f"doc{(i * 7 + j) % n}-x" for j in range(1, CHUNKS))]
        chunks = tuple(
            Chunk(cid, f"Setting {i} is configured in the orders file, part {j}.")
            for j, cid in enumerate(ids)
        )
        answer = f"Setting {i} is configured in the orders file. It reloads every {variant} hours."
        records[f"q{i:06d}"] = RunRecord(f"q{i:06d}", chunks, answer, latency_ms=100.0 + i % 50)
    return records


def step(name: str, started: float) -> float:
    now = time.perf_counter()
    print(f"{name:<44} {now - started:7.1f} s   peak RSS {peak_mib():7.1f} MiB", flush=True)
    return now


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100_000)
    args = parser.parse_args()
    print(environment())
    print(f"{args.questions:,} questions x {CHUNKS} chunks, metrics {METRICS}")
    specs = parse_metric_list(METRICS)
    clock = time.perf_counter()
    clock = step("start (imports)", clock)
    tests = testset(args.questions)
    clock = step("test set built", clock)
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for variant in (0, 1):
            records = run(args.questions, variant)
            results = score_run(tests, records, specs, suite="memory")
            del records
            paths.append(write_results(results, Path(folder) / f"run{variant}.json"))
            del results
            gc.collect()
            clock = step(f"run {variant} scored and written", clock)
        size = sum(path.stat().st_size for path in paths) / 2 / (1024 * 1024)
        print(f"results file size: {size:.0f} MiB each")
        del tests
        baseline, head = (load_results(path) for path in paths)
        clock = step("both results files loaded", clock)
    comparison = compare(baseline, head, default_gate_rules())
    clock = step("compared", clock)
    comment = render_comment(comparison)
    summary = render_summary(comparison)
    table = terminal_report(head)
    clock = step("comment, summary and table rendered", clock)
    print(f"comment {len(comment):,} chars, summary {len(summary):,} chars, table {len(table):,}")
    peak = peak_mib()
    verdict = "under" if peak < TARGET_MIB else "OVER"
    print(f"peak RSS {peak:.0f} MiB for {args.questions:,} questions: {verdict} {TARGET_MIB} MiB")
    if peak >= TARGET_MIB:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
