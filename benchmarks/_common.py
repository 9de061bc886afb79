"""Small helpers shared by the benchmark scripts: timing and the report lines."""

from __future__ import annotations

import gc
import os
import platform
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Timing:
    """Seconds taken by each repetition of one measured step: wall clock, and CPU time of
    this process (which other processes on a busy machine do not inflate)."""

    wall: tuple[float, ...]
    cpu: tuple[float, ...]

    @property
    def best(self) -> float:
        return min(self.wall)

    @property
    def median(self) -> float:
        return statistics.median(self.wall)

    @property
    def best_cpu(self) -> float:
        return min(self.cpu)

    def describe(self) -> str:
        return (
            f"best {self.best:.3f} s, median {self.median:.3f} s, best CPU {self.best_cpu:.3f} s"
            f" over {len(self.wall)} runs"
        )


def ratio_line(slow: Timing, fast: Timing) -> str:
    """``slow / fast`` for the best runs, the medians and the best CPU times."""
    return (
        f"{slow.best / fast.best:.2f}x (best), {slow.median / fast.median:.2f}x (median), "
        f"{slow.best_cpu / fast.best_cpu:.2f}x (best CPU)"
    )


def measure(
    steps: Mapping[str, Callable[[], Any]], repeat: int
) -> tuple[dict[str, Timing], dict[str, Any]]:
    """Time each step ``repeat`` times, interleaved (a, b, a, b, ...) so that a change in
    the machine's load affects both alike. The garbage collector stays on, as a user has it.
    Returns the timings and each step's last result."""
    wall: dict[str, list[float]] = {name: [] for name in steps}
    cpu: dict[str, list[float]] = {name: [] for name in steps}
    results: dict[str, Any] = {}
    for _ in range(repeat):
        for name, step in steps.items():
            results.pop(name, None)  # free the previous result before timing the next run
            gc.collect()
            start, start_cpu = time.perf_counter(), time.process_time()
            results[name] = step()
            cpu[name].append(time.process_time() - start_cpu)
            wall[name].append(time.perf_counter() - start)
    return {name: Timing(tuple(wall[name]), tuple(cpu[name])) for name in steps}, results


def environment() -> str:
    """One line naming the interpreter and machine the figures come from."""
    return (
        f"Python {platform.python_version()} ({platform.python_implementation()}), "
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs"
    )


def use_installed_bytecode(cache: Path) -> None:
    """Let this process's children find compiled bytecode as an installed package has it
    (pip compiles a wheel's modules at install time).

    A ``PYTHONDONTWRITEBYTECODE`` inherited from the shell would make every child compile
    ragguard's modules again (an editable install has no bytecode of its own), a cost no
    installed user pays: the children write their bytecode under ``cache`` instead, and the
    caller's untimed warm-up run fills it before anything is timed.
    """
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(cache)
