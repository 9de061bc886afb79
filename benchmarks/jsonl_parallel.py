"""`ragguard score` of a large JSON Lines run in parts against one process, as a user runs it.

Writes a test set of ``--questions`` questions (3 graded labels each) and a recorded run of
JSON Lines (``--docs`` retrieved chunks with their text, document and score, an answer,
latency; some errors, some questions missing), then runs the whole ``ragguard score``
process with ``--processes 1`` and with the default (one per core, at most 8), interleaved,
``--repeat`` times each. Printed: each one's best and median wall time and best CPU time of
the process tree (``os.wait4``: the children forked and waited for are counted), the ratio
one process / in parts, and whether the two results files are equal byte for byte (but
``created_at``), which the benchmark requires.

    python benchmarks/jsonl_parallel.py
    python benchmarks/jsonl_parallel.py --questions 100000 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import environment, use_installed_bytecode

METRICS = "ndcg@10,recall@10,mrr,hit_rate@3,precision@5"


def write_files(folder: Path, questions: int, docs: int, seed: int = 5) -> tuple[Path, Path]:
    rng = random.Random(seed)
    testset, run = folder / "testset.jsonl", folder / "run.jsonl"
    with testset.open("w", encoding="utf-8") as tests, run.open("w", encoding="utf-8") as runs:
        for number in range(questions):
            qid = f"q{number}"
            labels = {f"c{rng.randrange(5 * questions)}": rng.randint(1, 3) for _ in range(3)}
            entry = {"id": qid, "question": f"What does endpoint {number} return?"}
            tests.write(json.dumps({**entry, "relevant": labels}) + "\n")
            if number % 50 == 7:
                continue  # missing from the run
            ranked = [*labels][: rng.randint(0, 2)] + [
                f"c{rng.randrange(5 * questions)}" for _ in range(docs)
            ]
            ranked = list(dict.fromkeys(ranked))[:docs]
            rng.shuffle(ranked)
            retrieved = [
                {"id": chunk, "doc": f"d{chunk[1:4]}", "text": f"Chunk {chunk} text.", "score": 1}
                for chunk in ranked
            ]
            record = {"id": qid, "retrieved": retrieved, "answer": f"Endpoint {number} returns."}
            if number % 97 == 3:
                record = {"id": qid, "retrieved": [], "error": "timeout after 30s"}
            record["latency_ms"] = rng.randint(80, 900)
            runs.write(json.dumps(record) + "\n")
    return testset, run


def ragguard_score(
    testset: Path, run: Path, out: Path, processes: str | None
) -> tuple[float, float]:
    """Wall and CPU seconds of one whole `ragguard score` process (and its children)."""
    command = [sys.executable, "-m", "ragguard", "score", "--testset", str(testset)]
    command += ["--run", str(run), "--metrics", METRICS, "--out", str(out)]
    if processes is not None:
        command += ["--processes", processes]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(command)} exited {done.returncode}:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def without_created_at(path: Path) -> bytes:
    return b"".join(
        line for line in path.read_bytes().splitlines(keepends=True) if b'"created_at"' not in line
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--docs", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(environment())
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        use_installed_bytecode(folder / "pycache")
        testset, run = write_files(folder, args.questions, args.docs)
        size = run.stat().st_size / (1 << 20)
        print(f"{args.questions} questions, {args.docs} chunks each, run file {size:.0f} MiB")
        kinds = {"one process (--processes 1)": "1", f"in parts (default, {cores} cores)": None}
        outs = {name: folder / f"{index}.json" for index, name in enumerate(kinds)}
        for name, processes in kinds.items():  # warm-up, untimed: bytecode, page cache
            ragguard_score(testset, run, outs[name], processes)
        walls: dict[str, list[float]] = {name: [] for name in kinds}
        cpus: dict[str, list[float]] = {name: [] for name in kinds}
        for _ in range(args.repeat):
            for name, processes in kinds.items():  # interleaved: load changes hit both
                wall, cpu = ragguard_score(testset, run, outs[name], processes)
                walls[name].append(wall)
                cpus[name].append(cpu)
        for name in kinds:
            print(
                f"{name}: best {min(walls[name]):.2f} s, median "
                f"{statistics.median(walls[name]):.2f} s, best CPU {min(cpus[name]):.2f} s "
                f"over {args.repeat} runs"
            )
        one, parts = list(kinds)
        print(
            f"in parts / one process: {min(walls[parts]) / min(walls[one]):.2f}x wall (best), "
            f"{statistics.median(walls[parts]) / statistics.median(walls[one]):.2f}x (median), "
            f"{min(cpus[parts]) / min(cpus[one]):.2f}x CPU"
        )
        same = without_created_at(outs[one]) == without_created_at(outs[parts])
        print(f"results files equal byte for byte (but created_at): {same}")
        if not same:
            sys.exit("FAIL: the results differ")


if __name__ == "__main__":
    main()
