"""The peak memory a process tree holds at once, sampled from /proc while it runs (Linux).

``os.wait4``'s ``ru_maxrss`` for a process that forks is the largest of its own peak and its
waited children's, not what the parent and its children hold together: a tool that splits its
work across processes would look smaller than it is. ``TreePeak`` samples, from a background
thread of the benchmark, the resident set size (``/proc/<pid>/statm``) of the process and all
its descendants every ``INTERVAL`` seconds, and keeps the largest sum. (The benchmark
samples the processes under its small launcher process, not the launcher itself.)

Summing RSS counts twice the copy-on-write pages a forked child still shares with its parent
(and shared libraries mapped by both): conservative, against the tool that forks. A peak that
lasts less than one interval can be missed; the caller takes the larger of this and
``ru_maxrss``, which sees every single process's exact peak.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from types import TracebackType

PROC = Path("/proc")
INTERVAL = 0.02
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def available() -> bool:
    """Whether this system has a Linux-style /proc to sample (macOS has none)."""
    return (PROC / "self" / "statm").is_file() and (PROC / "self" / "stat").is_file()


def read_proc(pid: int, name: str) -> bytes | None:
    """``/proc/<pid>/<name>``, or None when the process is gone."""
    try:
        return (PROC / str(pid) / name).read_bytes()
    except OSError:
        return None


def parent_of(pid: int) -> int | None:
    """The parent pid from ``/proc/<pid>/stat`` (after the command name, which may hold
    spaces and parentheses: the fields start after its last ')'); None when gone."""
    stat = read_proc(pid, "stat")
    if stat is None:
        return None
    return int(stat[stat.rindex(b")") + 1 :].split()[1])


def resident_bytes(pid: int) -> int:
    """Resident set size of one process (all its threads); 0 when gone or a zombie."""
    statm = read_proc(pid, "statm")
    return int(statm.split()[1]) * PAGE_BYTES if statm else 0


class ProcessTree:
    """The descendants of a root process, found by scanning /proc for parent pids.

    A process's parent is read once, when its pid first appears, so that a sample costs a
    directory listing rather than reading every process's stat (about 1 ms for 70
    processes, 5 % of a core at 50 samples a second). Sampling a one-process tree every
    20 ms took 0.10 s of the benchmark's CPU while a 3 s tool ran on the development VM,
    about 3 % of one core. A pid that disappears from /proc is forgotten at the next sample,
    so a stale parent would need its pid reused within one interval: Linux hands pids out in
    increasing order up to ``pid_max`` (32,768 on the development VM) before reusing any. A
    descendant left running after its parent exited (reparented) drops out of the tree, as
    it does from ``ru_maxrss``, which counts waited children only."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.parents: dict[int, int] = {}

    def descendants(self) -> list[int]:
        running = {int(name) for name in os.listdir(PROC) if name.isdigit()}
        for gone in self.parents.keys() - running:
            del self.parents[gone]
        for pid in running - self.parents.keys():
            parent = parent_of(pid)
            if parent is not None:
                self.parents[pid] = parent
        children: dict[int, list[int]] = {}
        for pid, parent in self.parents.items():
            children.setdefault(parent, []).append(pid)
        found, waiting = [], list(children.get(self.root, []))
        while waiting:
            pid = waiting.pop()
            found.append(pid)
            waiting += children.get(pid, [])
        return found


class TreePeak:
    """While in its ``with`` block, a thread samples the summed RSS of ``root``'s
    descendants (``root`` itself not counted: the benchmark's launcher).

    ``peak_bytes`` is the largest sum seen, ``most_processes`` the most processes with
    memory (zombies have none) seen in one sample. Leave the block before the root is reaped
    (``os.waitid(..., WEXITED | WNOWAIT)`` waits without reaping), so the sampler never reads
    a pid the system has given to another process."""

    def __init__(self, root: int, interval: float = INTERVAL) -> None:
        self.tree = ProcessTree(root)
        self.interval = interval
        self.peak_bytes = 0
        self.most_processes = 0
        self._failure: Exception | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample_until_stopped, daemon=True)

    def __enter__(self) -> TreePeak:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        if self._failure is not None and error is None:
            raise RuntimeError("sampling the process tree's memory failed") from self._failure

    def sample(self) -> None:
        sizes = [size for size in map(resident_bytes, self.tree.descendants()) if size]
        self.peak_bytes = max(self.peak_bytes, sum(sizes))
        self.most_processes = max(self.most_processes, len(sizes))

    def _sample_until_stopped(self) -> None:
        """Samples until stopped; a failure is kept and raised by ``__exit__``, so that a
        sampler that died cannot pass for a small peak."""
        try:
            self.sample()
            while not self._stop.wait(self.interval):
                self.sample()
        except Exception as failure:  # handed to the caller in __exit__
            self._failure = failure
