"""How a run shows its progress: a bar on a terminal, periodic plain lines in a CI log.

The runner calls :meth:`Progress.update` after every record and :meth:`Progress.close` at
the end of a pass; the clock is a parameter, so tests run without waiting.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO, Protocol

import click

from ragguard.render.text import duration

LOG_EVERY_SECONDS = 10.0

Clock = Callable[[], float]


class Progress(Protocol):
    def update(self, done: int, errors: int) -> None: ...

    def close(self) -> None: ...


class NoProgress:
    """No display: a run nobody watches (the demo, a test)."""

    def update(self, done: int, errors: int) -> None:
        pass

    def close(self) -> None:
        pass


class BarProgress:
    """click's progress bar, for a terminal: n/N, the share, the failures so far and an ETA."""

    def __init__(self, total: int, stream: IO[str]) -> None:
        self._errors = 0
        self._bar = click.progressbar(
            length=total,
            label="questions",
            file=stream,
            show_pos=True,
            show_eta=True,
            item_show_func=self._failures,
        )
        self._bar.__enter__()
        self._shown = 0

    def _failures(self, _item: object) -> str | None:
        return f"{self._errors} failed" if self._errors else None

    def update(self, done: int, errors: int) -> None:
        if done > self._shown:
            self._errors = errors
            self._bar.update(done - self._shown, current_item=errors)
            self._shown = done
        elif errors != self._errors:  # click draws only on a step: draw the new count now
            self._errors = errors
            self._bar.render_progress()

    def close(self) -> None:
        self._bar.__exit__(None, None, None)


class LogProgress:
    """Plain lines for CI logs (no carriage returns): one at the start, then one each time
    ``every`` seconds have passed since the last, and one at the end; each with n/N, the
    failures and an estimate of the time left. Throttled by time alone, so a run that takes
    a second writes two lines however many questions it has."""

    def __init__(
        self,
        total: int,
        stream: IO[str],
        *,
        concurrency: int = 1,
        every: float = LOG_EVERY_SECONDS,
        clock: Clock = time.monotonic,
    ) -> None:
        self.total = total
        self.stream = stream
        self.every = every
        self.clock = clock
        self.started = clock()
        self.last = self.started
        self.done = 0
        self.errors = 0
        self.shown: tuple[int, int] | None = None  # (done, errors) of the last progress line
        self._write(f"ragguard: running {total} questions with concurrency {concurrency}")

    def update(self, done: int, errors: int) -> None:
        self.done, self.errors = done, errors
        if self.clock() - self.last >= self.every:
            self._line()

    def close(self) -> None:
        if self.shown != (self.done, self.errors):  # not the line just written again
            self._line(final=True)

    def _line(self, final: bool = False) -> None:
        self.last = self.clock()
        self.shown = (self.done, self.errors)
        elapsed = self.last - self.started
        line = f"ragguard: {self.done}/{self.total} questions done, {self.errors} failed, "
        line += f"{elapsed:.1f}s"
        if not final and 0 < self.done < self.total:
            line += f", about {duration(elapsed / self.done * (self.total - self.done))} left"
        self._write(line)

    def _write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()


def make_progress(total: int, stream: IO[str] | None = None, concurrency: int = 1) -> Progress:
    """A bar on a terminal, periodic lines otherwise."""
    stream = stream or sys.stderr
    if stream.isatty():
        return BarProgress(total, stream)
    return LogProgress(total, stream, concurrency=concurrency)
