"""The one exception type for bad user input, rendered as a single line."""

from __future__ import annotations

from os import PathLike

from ragguard.core.surrogates import escape_surrogates


class InputError(Exception):
    """Input the user can fix: reported as one line naming the place, exit code 2.

    The rendered form is ``FILE:LINE: KEY: message`` with the parts that are known, always
    on one line (line breaks, e.g. in a key taken from the input, become spaces), and one
    any UTF-8 writer can write: a lone surrogate (a file name's byte that is not UTF-8, as
    Python decodes it; git's output, core/git.py) is shown as its escape, ``\\udcff``.
    """

    def __init__(
        self,
        source: str | PathLike[str],
        message: str,
        *,
        line: int | None = None,
        key: str | None = None,
    ) -> None:
        self.source = str(source)
        self.message = message
        self.line = line
        self.key = key
        super().__init__(str(self))

    def __str__(self) -> str:
        place = self.source if self.line is None else f"{self.source}:{self.line}"
        key = f" {self.key}:" if self.key else ""
        return escape_surrogates(" ".join(f"{place}:{key} {self.message}".splitlines()))


class Where:
    """A place in an input file (file, line and the line of each key) that makes errors."""

    def __init__(
        self,
        source: str | PathLike[str],
        line: int | None = None,
        key_lines: dict[str, int] | None = None,
    ) -> None:
        self.source = str(source)
        self.line = line
        self.key_lines = key_lines or {}

    @property
    def place(self) -> str:
        """``FILE:LINE`` (or ``FILE`` when the line is not known), for lists of places."""
        return self.source if self.line is None else f"{self.source}:{self.line}"

    def error(self, message: str, key: str | None = None) -> InputError:
        top_key = key.split(".")[0].split("[")[0] if key else None
        line = self.key_lines.get(top_key, self.line) if top_key else self.line
        return InputError(self.source, message, line=line, key=key)
