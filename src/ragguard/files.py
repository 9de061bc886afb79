"""Writing the report files a user asked for, with a one-line error when the path is wrong."""

from __future__ import annotations

from pathlib import Path

from ragguard.errors import InputError


def write_report(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` (creating its folder); an unwritable path is an InputError."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(path, f"cannot write it: {exc.strerror or exc}; check the path") from None
    return path
