"""Install time: a fresh virtual environment to a working ``ragguard --help``.

What a user (or the action's first step on a cold runner) goes through: create a venv,
``pip install`` this checkout with its runtime dependencies from the package index, run
``ragguard --help``. Each step is timed; pip's own cache is bypassed (``--no-cache-dir``)
unless ``--pip-cache`` is given, so the figure includes the downloads.

    python benchmarks/install.py
    python benchmarks/install.py --pip-cache     # a warm runner with pip's cache restored
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import environment

ROOT = Path(__file__).resolve().parents[1]


def timed(name: str, command: list[str]) -> float:
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(f"{name} failed ({completed.returncode}):\n{completed.stderr[-2000:]}")
    print(f"{name:<32} {seconds:6.1f} s")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pip-cache", action="store_true", help="Let pip use its cache.")
    args = parser.parse_args()
    print(environment())
    with tempfile.TemporaryDirectory() as folder:
        venv = Path(folder) / "venv"
        bin_dir = venv / ("Scripts" if sys.platform == "win32" else "bin")
        cache = [] if args.pip_cache else ["--no-cache-dir"]
        total = timed("python -m venv", [sys.executable, "-m", "venv", str(venv)])
        total += timed(
            "pip install .",
            [str(bin_dir / "python"), "-m", "pip", "install", "-q", *cache, str(ROOT)],
        )
        total += timed("ragguard --help", [str(bin_dir / "ragguard"), "--help"])
    print(f"fresh venv to a working `ragguard --help`: {total:.1f} s")


if __name__ == "__main__":
    main()
