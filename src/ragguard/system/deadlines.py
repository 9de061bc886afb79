"""Deadlines of the calls the run's own worker threads make to a Python function.

A Python function cannot be stopped from outside. The python adapter's ``ask`` hands each
call to a helper thread so that the caller can stop waiting at the timeout; that hand-off
costs a thread round trip a question (about 90 us on a 2-vCPU VM, where a trivial system
function takes 0.3 us). The runner instead lets its worker make the call itself
(``ask_in_place``) and the thread that collects the records enforces the timeout: once a
call runs past it, the question is recorded as timed out, the worker is given up on (its
late answer is dropped and it takes no further question) and a new worker takes its place.

The trade-off, the same as with the helper thread: a call that overruns is not stopped. Its
thread (a daemon) runs on until the function returns, holding what the function holds; a
function that never returns keeps its thread until the process exits, and each such call
costs one more thread. Async functions are still cancelled at the timeout by their event
loop. The timeout is noticed within a tenth of it after it passes (at most half a second,
at least 10 ms).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol, TypeVar, runtime_checkable

from ragguard.system.base import Answer, format_seconds
from ragguard.testset.model import Question

T = TypeVar("T")
MIN_CHECK_SECONDS = 0.01


@runtime_checkable
class InPlaceAdapter(Protocol):
    """An adapter whose call can run on the caller's thread, the caller keeping the time."""

    def ask_in_place(self, question: Question, timeout: float) -> Answer: ...


class GivenUp(BaseException):
    """The call ran past its deadline and its question was recorded as timed out: the worker
    drops the late answer and stops (a BaseException, so no ``except Exception`` keeps it)."""


class Deadlines:
    """The calls in progress on worker threads, each with the time it started."""

    def __init__(self, timeout: float, clock: Callable[[], float]) -> None:
        self.timeout = timeout
        self.clock = clock
        self._started: dict[int, tuple[Question, float]] = {}
        self._lock = threading.Lock()

    @property
    def message(self) -> str:
        return f"timed out after {format_seconds(self.timeout)}"

    def call(self, question: Question, function: Callable[[], T]) -> T:
        """``function()`` on this thread, for ``question``; :class:`GivenUp` instead of its
        outcome when :meth:`overdue` took the question meanwhile."""
        thread = threading.get_ident()
        with self._lock:
            self._started[thread] = (question, self.clock())
        try:
            value = function()
        except Exception:
            self._finish(thread)
            raise
        self._finish(thread)
        return value

    def _finish(self, thread: int) -> None:
        with self._lock:
            if self._started.pop(thread, None) is None:
                raise GivenUp

    def overdue(self) -> list[tuple[Question, float]]:
        """The calls past the deadline, each with its seconds so far; each is returned once,
        and its worker is given up on."""
        now = self.clock()
        with self._lock:
            late = [
                (thread, question, now - started)
                for thread, (question, started) in self._started.items()
                if now - started >= self.timeout
            ]
            for thread, _, _ in late:
                del self._started[thread]
        return [(question, seconds) for _, question, seconds in late]

    def check_every(self, tick: float) -> float:
        """Seconds between checks: a tenth of the timeout, at most ``tick``, at least 10 ms
        (a 1 ms timeout must not make the collecting thread spin)."""
        return max(MIN_CHECK_SECONDS, min(tick, self.timeout / 10))
