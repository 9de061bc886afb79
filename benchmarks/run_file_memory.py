"""Peak memory of reading a large JSON Lines run file, as `ragguard score` does it.

A run file is read as a stream (one line held at a time), so the peak is the records ragguard
keeps, not the file's text on top of them. The script writes a test set and a run of N
questions (each run line: 100 retrieved chunk ids with a score, and a 1 kB answer that no
metric here reads), then runs ``ragguard score --testset ... --run ... --metrics ndcg@10`` as a
subprocess and prints its peak resident set size next to the run file's size. For reference,
in the same run: a process that only reads the file whole (``Path.read_text``), the floor of
any reader that is not streamed.

    python benchmarks/run_file_memory.py                  # 10,000 questions (48 MiB)
    python benchmarks/run_file_memory.py --questions 50000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import environment

CHUNKS = 100
ANSWER = "The answer, repeated to the size of a real one. " * 20


def write_inputs(folder: Path, questions: int) -> tuple[Path, Path]:
    testset, run = folder / "testset.jsonl", folder / "run.jsonl"
    with testset.open("w", encoding="utf-8") as t, run.open("w", encoding="utf-8") as r:
        for n in range(questions):
            relevant = {f"d{n}-{k}": 1 for k in range(3)}
            t.write(json.dumps({"id": f"q{n}", "question": f"Q{n}?", "relevant": relevant}) + "\n")
            retrieved = [{"id": f"d{n}-{k}", "score": 1.0 - k / CHUNKS} for k in range(CHUNKS)]
            line = {"id": f"q{n}", "retrieved": retrieved, "answer": ANSWER}
            r.write(json.dumps(line) + "\n")
    return testset, run


def peak_mib_of(argv: list[str]) -> float:
    """Peak RSS of one child process: a fresh interpreter runs it and reports its own peak."""
    probe = (
        "import resource, runpy, sys\n"
        f"sys.argv = {argv!r}\n"
        "try:\n"
        "    runpy.run_module(sys.argv[0], run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return int(done.stderr.strip().splitlines()[-1]) / 1024


def read_whole_mib(path: Path) -> float:
    code = (
        "import pathlib, resource, sys\n"
        f"text = pathlib.Path({str(path)!r}).read_text(encoding='utf-8')\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(done.stderr.strip()) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10_000)
    args = parser.parse_args()
    print(environment())
    with tempfile.TemporaryDirectory() as name:
        testset, run = write_inputs(Path(name), args.questions)
        size = run.stat().st_size / (1024 * 1024)
        score = ["ragguard", "score", "--testset", str(testset), "--run", str(run)]
        peak = peak_mib_of([*score, "--metrics", "ndcg@10"])
        whole = read_whole_mib(run)
    print(f"run file: {args.questions:,} questions, {size:.0f} MiB")
    print(f"ragguard score, peak RSS: {peak:.0f} MiB ({peak / size:.2f}x the file)")
    print(f"reference, the file read whole and nothing else: {whole:.0f} MiB")


if __name__ == "__main__":
    main()
