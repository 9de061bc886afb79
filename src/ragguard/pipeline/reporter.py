"""Where the pipeline's lines go while it works: the terminal, a CI log, or nowhere.

The pipeline returns its values (results, the run's outcome, the lines to show at the end);
what has to be seen as the work goes (the progress of a run, a note, a warning about the
input) goes to the caller's :class:`Reporter`. ``ragguard run`` and ``score`` use
:class:`TerminalReporter`, ``ragguard ci`` :class:`LogReporter`, the Python API and the demo
:class:`SilentReporter`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import IO, Protocol

import click

from ragguard.core.streams import shown_only

WARNING = "ragguard: warning: "


class Reporter(Protocol):
    """The lines of the pipeline's work, as it goes; each printed as given but a warning."""

    @property
    def progress_stream(self) -> IO[str] | None:
        """Where a run's progress goes: a bar on a terminal, periodic lines otherwise
        (:func:`ragguard.system.progress.make_progress`); ``None`` shows none."""
        ...

    def note(self, line: str) -> None:
        """A line to see as the work goes (a resumed run, a run stopped early)."""
        ...

    def detail(self, line: str) -> None:
        """A line a CI log shows as the work goes, which a terminal leaves to the report at
        the end (the failed questions, grouped by error, right after the run)."""
        ...

    def warn(self, line: str) -> None:
        """A warning about the input (``ragguard: warning: ...``)."""
        ...


class TerminalReporter:
    """``ragguard run`` and ``score``: everything on stderr, through click."""

    @property
    def progress_stream(self) -> IO[str]:
        return sys.stderr

    def note(self, line: str) -> None:
        click.echo(line, file=shown_only(sys.stderr))

    def detail(self, line: str) -> None:
        """Left out: the terminal report at the end shows the failed questions."""

    def warn(self, line: str) -> None:
        click.echo(WARNING + line, file=shown_only(sys.stderr))


class LogReporter:
    """``ragguard ci``: plain lines in the job log (stderr), the details included."""

    @property
    def progress_stream(self) -> IO[str]:
        return sys.stderr

    def note(self, line: str) -> None:
        print(line, file=shown_only(sys.stderr))

    def detail(self, line: str) -> None:
        print(line, file=shown_only(sys.stderr))

    def warn(self, line: str) -> None:
        print(WARNING + line, file=shown_only(sys.stderr))


@dataclass(frozen=True)
class SilentReporter:
    """The Python API and the demo: no notes, no details, no warnings; a run's progress only
    on ``progress_stream`` when given (the API's ``run`` shows it on stderr)."""

    progress_stream: IO[str] | None = None

    def note(self, line: str) -> None:
        """Not shown."""

    def detail(self, line: str) -> None:
        """Not shown."""

    def warn(self, line: str) -> None:
        """Not shown."""
