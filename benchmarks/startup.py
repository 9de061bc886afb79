"""Start-up time: `ragguard --help`, `--version` and a one-question `score`, against
`python -c pass`, each a whole process as a user starts it.

The `ragguard` console script next to this interpreter runs each command ``--repeat`` times,
interleaved with `python -c pass` (the interpreter's own start, the floor). The best run of
each (the least disturbed by other processes on a busy machine), the median and the best
CPU time of the process (user + system, from the OS) are printed, with the target: under
0.25 s. The children find compiled bytecode as an installed package has it (one untimed
round writes it to a temporary cache; see ``_common.use_installed_bytecode``);
``--no-bytecode`` keeps the inherited environment instead: under ``PYTHONDONTWRITEBYTECODE``
(set on the development VM) an editable install compiles every module of ragguard on each
start.

    python benchmarks/startup.py
    python benchmarks/startup.py --repeat 30
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _common import environment, use_installed_bytecode

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


def timed(command: Sequence[str]) -> tuple[float, float]:
    """Wall time around the process, and its CPU time (user + system) from ``os.wait4``."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"FAIL: {' '.join(command)} exited {status}: {errors}")
    return elapsed, usage.ru_utime + usage.ru_stime


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="keep the inherited environment's bytecode setting",
    )
    args = parser.parse_args(argv)
    ragguard = ragguard_command()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        if not args.no_bytecode:
            use_installed_bytecode(folder / "bytecode")
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
        for command in commands.values():
            timed(command)  # untimed: writes the bytecode cache
        timings: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
        for _ in range(args.repeat):
            for label, command in commands.items():
                timings[label].append(timed(command))
    print(environment())
    bytecode = "bytecode as inherited" if args.no_bytecode else "bytecode cached"
    print(f"{args.repeat} runs of each, interleaved, {bytecode}; target under {TARGET} s")
    floor = min(wall for wall, _ in timings["python -c pass"])
    for label, runs in timings.items():
        walls = [wall for wall, _ in runs]
        best, median = min(walls), statistics.median(walls)
        verdict = "" if label.startswith("python") else ("  under" if best < TARGET else "  OVER")
        print(
            f"  {label:<28} best {best:.3f} s, median {median:.3f} s, "
            f"best CPU {min(cpu for _, cpu in runs):.3f} s, "
            f"best {best / floor:5.1f}x python -c pass{verdict}"
        )


if __name__ == "__main__":
    main()
