"""Writing the files a user asked for: atomically, together, with a one-line error.

Every output goes to a temporary file beside its target (``.NAME.PID.tmp``) that is renamed
over the target once complete, so an interrupted or failed write never leaves half a file
or a stray temporary. :func:`write_all` writes several outputs all together or not at all:
every temporary is complete before the first rename.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Sequence
from contextlib import suppress
from pathlib import Path

from ragguard.core.errors import InputError
from ragguard.core.sources import bad_path

Content = str | Iterable[str]


def write_report(path: Path, text: Content) -> Path:
    """Write ``text`` to ``path`` atomically (creating its folder); a bad path is an InputError."""
    write_all([(path, text)])
    return path


def write_all(outputs: Sequence[tuple[Path, Content]]) -> None:
    """Write every output, or none: a failure removes the temporaries and replaces nothing."""
    written: list[tuple[Path, Path]] = []
    try:
        for path, content in outputs:
            written.append((_temporary(path), path))
            _write_temporary(written[-1][0], path, content)
        for temporary, path in written:
            _rename(temporary, path)
    except BaseException:
        for temporary, _path in written:
            with suppress(OSError):
                temporary.unlink(missing_ok=True)
        raise


def check_writable(path: Path) -> None:
    """Refuse an output path that cannot be written, before any work is done for it."""
    try:
        if path.is_dir():
            raise InputError(path, "is a directory; give a file name")
        folder = _existing_parent(path)
        if not folder.is_dir():
            raise InputError(path, f"{folder} is a file, not a folder; check the path")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise InputError(path, f"cannot write in {folder} (permission denied)")
        os.stat(folder / (path.name + ".tmp"))  # a name too long fails here, not after a run
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as exc:
        raise bad_path(path, exc) from None


def _existing_parent(path: Path) -> Path:
    folder = path.absolute().parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _write_temporary(temporary: Path, path: Path, content: Content) -> None:
    try:
        if path.is_dir():
            raise InputError(path, "is a directory; give a file name")
        path.parent.mkdir(parents=True, exist_ok=True)
        with temporary.open("w", encoding="utf-8") as file:
            if isinstance(content, str):
                file.write(content)
            else:
                file.writelines(content)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    except ValueError as exc:  # a NUL byte in the name
        raise bad_path(path, exc) from None


def _rename(temporary: Path, path: Path) -> None:
    try:
        temporary.replace(path)
    except OSError as exc:
        raise _cannot_write(path, exc) from None


def _cannot_write(path: Path, exc: OSError) -> InputError:
    if exc.errno == errno.ENAMETOOLONG:
        return bad_path(path, exc)
    return InputError(path, f"cannot write it: {exc.strerror or exc}; check the path")
