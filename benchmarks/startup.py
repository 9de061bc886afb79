"""Start-up time: `ragguard --help`, `--version` and a one-question `score`, against
`python -c pass`, each a whole process as a user starts it.

The `ragguard` console script next to this interpreter runs each command ``--repeat`` times,
interleaved with `python -c pass` (the interpreter's own start, the floor). The best run of
each (the least disturbed by other processes on a busy machine) and the median are printed,
with the target: under 0.25 s.

    python benchmarks/startup.py
    python benchmarks/startup.py --repeat 30
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _common import environment

TARGET = 0.25
TESTSET = """\
- id: q1
  question: How are rate limits set?
  relevant: {rate-limits: 2}
"""
RUN = '{"id": "q1", "retrieved": ["rate-limits", "pagination"], "answer": "100 a minute"}\n'


def ragguard_command() -> list[str]:
    script = Path(sys.executable).with_name("ragguard")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ragguard"]


def timed(command: Sequence[str]) -> float:
    start = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if completed.returncode != 0:
        sys.exit(f"FAIL: {' '.join(command)} exited {completed.returncode}: {completed.stderr}")
    return elapsed


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    ragguard = ragguard_command()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "t.yaml").write_text(TESTSET)
        (folder / "r.jsonl").write_text(RUN)
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "ragguard --help": [*ragguard, "--help"],
            "ragguard --version": [*ragguard, "--version"],
            "ragguard score (1 question)": [
                *ragguard, "score", "--testset", str(folder / "t.yaml"),
                "--run", str(folder / "r.jsonl"), "--out", str(folder / "results.json"),
            ],
        }  # fmt: skip
        timings: dict[str, list[float]] = {label: [] for label in commands}
        for _ in range(args.repeat):
            for label, command in commands.items():
                timings[label].append(timed(command))
    print(environment())
    print(f"{args.repeat} runs of each, interleaved; target under {TARGET} s")
    floor = min(timings["python -c pass"])
    for label, runs in timings.items():
        best, median = min(runs), statistics.median(runs)
        verdict = "" if label.startswith("python") else ("  under" if best < TARGET else "  OVER")
        print(
            f"  {label:<28} best {best:.3f} s, median {median:.3f} s, "
            f"best {best / floor:5.1f}x python -c pass{verdict}"
        )


if __name__ == "__main__":
    main()
