"""Streams whose reader may go away: `ragguard run … | head -1` closes the pipe, and what is
only shown (progress, notes, warnings) must not end the work or leave it half written."""

from __future__ import annotations

from typing import IO, Any


class ShownOnly:
    """``stream`` for text that is only shown: once its reader is gone (a broken pipe, a
    closed file), writes are dropped instead of raising."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._stream.write(text)
            except (BrokenPipeError, ValueError):  # ValueError: the stream was closed
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except (BrokenPipeError, ValueError):
                self.gone = True

    def isatty(self) -> bool:
        try:
            return not self.gone and self._stream.isatty()
        except ValueError:
            return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def shown_only(stream: IO[str]) -> IO[str]:
    """``stream`` wrapped as :class:`ShownOnly` (once)."""
    return stream if isinstance(stream, ShownOnly) else ShownOnly(stream)  # type: ignore[return-value]
