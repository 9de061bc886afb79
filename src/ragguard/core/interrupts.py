"""Ctrl-C and SIGTERM: one way to stop, the children killed, an exit code that says which.

CI runners cancel a job with SIGTERM (then SIGKILL a few seconds later). Python only turns
SIGINT into :class:`KeyboardInterrupt`; :func:`install` makes SIGTERM raise
:class:`Terminated`, a KeyboardInterrupt, so every path that keeps the finished work on
Ctrl-C does the same on a cancel. Child processes the system runs are started in their own
process group and registered here, so that an interrupted run can kill them (and theirs).
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from types import FrameType

from ragguard.core.exits import EXIT_SIGINT, EXIT_SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (a CI runner cancelling the job)."""


_received: list[int] = []
_children: set[subprocess.Popen[str]] = set()
_children_lock = threading.Lock()


def _on_sigterm(signum: int, _frame: FrameType | None) -> None:
    _received.append(signum)
    raise Terminated


def install() -> None:
    """Make SIGTERM raise :class:`Terminated` in the main thread (call from the main thread)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)


def exit_code() -> int:
    """143 once SIGTERM has arrived, else 130 (Ctrl-C)."""
    return EXIT_SIGTERM if signal.SIGTERM in _received else EXIT_SIGINT


def signal_name() -> str:
    return "SIGTERM" if signal.SIGTERM in _received else "Ctrl-C"


@contextmanager
def child(process: subprocess.Popen[str]) -> Iterator[subprocess.Popen[str]]:
    """Register a running child process (started with ``start_new_session=True``)."""
    with _children_lock:
        _children.add(process)
    try:
        yield process
    finally:
        with _children_lock:
            _children.discard(process)


def kill(process: subprocess.Popen[str]) -> None:
    """Kill a child and its process group (the programs a shell script started)."""
    with suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)
    with suppress(OSError):
        process.kill()


def kill_children() -> None:
    """Kill every registered child process: the run was interrupted."""
    with _children_lock:
        running = list(_children)
    for process in running:
        kill(process)
