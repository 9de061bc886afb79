"""Writing the files a user asked for: atomically, together, with a one-line error.

Every output goes to a temporary file beside its target (``.NAME.PID.tmp``) that is renamed
over the target once complete, so an interrupted or failed write never leaves half a file
or a stray temporary. :func:`write_all` writes several outputs all together or not at all:
every temporary is complete before the first rename.

Rewriting a file keeps what the user set on it: the new file takes the old one's permission
bits (and its owner and group, where this process may set them), and a target that is a
symbolic link is written through the link, to the file it names, so the link stays. A
dangling link is written through too, creating the file it names (as a shell's ``>`` does),
but the folder that file would go in is not created: a link into a share that is not
mounted is an error, not a new local folder. A device or a pipe (``/dev/null``, a FIFO) is
written in place: replacing it would put a regular file where the device was (as root,
``--out /dev/null`` replaced the system's /dev/null).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import IO

from ragguard.core.errors import InputError
from ragguard.core.sources import bad_path

Content = str | Iterable[str]


def write_report(path: Path, text: Content, what: str = "it") -> Path:
    """Write ``text`` to ``path`` atomically (creating its folder); a bad path is an
    InputError saying it cannot write ``what`` ("the results file")."""
    write_all([(path, text)], what)
    return path


def write_all(outputs: Sequence[tuple[Path, Content]], what: str = "it") -> None:
    """Write every output, or none: a failure removes the temporaries and replaces nothing.
    A device or a pipe (``--out /dev/null``, a FIFO) is written in place, after the files:
    it cannot be replaced by a file, nor unwritten."""
    written: list[tuple[Path, Path, Path]] = []
    streams: list[tuple[Path, Path, Content]] = []
    try:
        for path, content in outputs:
            target = _written_file(path)
            if _is_stream(target):
                streams.append((target, path, content))
                continue
            written.append((_temporary(target), target, path))
            try:
                _write_temporary(written[-1][0], path, content)
                _keep_attributes(written[-1][0], target)
            except OSError as exc:
                raise _cannot_write(path, exc, what) from None
        for temporary, target, path in written:
            _rename(temporary, target, path, what)
    except BaseException:
        for temporary, _target, _path in written:
            with suppress(OSError):
                temporary.unlink(missing_ok=True)
        raise
    for target, path, content in streams:
        _write_in_place(target, path, content, what)


def _is_stream(target: Path) -> bool:
    """True for an existing device, pipe or socket (``/dev/null``, ``/dev/stdout``, a FIFO):
    written in place, never replaced by a regular file."""
    try:
        mode = target.stat().st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _write_in_place(target: Path, path: Path, content: Content, what: str) -> None:
    try:
        with target.open("w", encoding="utf-8") as file:
            if isinstance(content, str):
                file.write(content)
            else:
                file.writelines(content)
    except OSError as exc:
        raise _cannot_write(path, exc, what) from None


def _written_file(path: Path) -> Path:
    """The file a write to ``path`` replaces: ``path`` itself, or for a symbolic link the
    file it names (followed to the end of a chain of links, made absolute)."""
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    if target.is_symlink():
        raise InputError(path, "is a symbolic link that loops back on itself; fix or remove it")
    if not target.parent.is_dir():
        raise InputError(
            path,
            f"is a symbolic link to {target}, whose folder does not exist; "
            "create (or mount) it, or remove the link",
        )
    return target


def check_writable(path: Path) -> None:
    """Refuse an output path that cannot be written, before any work is done for it (for
    a symbolic link, the file it names: its folder is where the temporary goes)."""
    try:
        target = _written_file(path)
        if target.is_dir():
            raise InputError(path, "is a directory; give a file name")
        folder = _existing_parent(target)
        if not folder.is_dir():
            raise InputError(path, f"{folder} is a file, not a folder; check the path")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise InputError(path, f"cannot write in {folder} (permission denied)")
        os.stat(folder / (target.name + ".tmp"))  # a name too long fails here, not after a run
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
    with _opened(temporary, path) as file:
        if isinstance(content, str):
            file.write(content)
        else:
            file.writelines(content)  # a ValueError here (a NaN) is the content's own


def _opened(temporary: Path, path: Path) -> IO[str]:
    """The temporary for ``path``, open for writing (its folder made)."""
    if path.is_dir():
        raise InputError(path, "is a directory; give a file name")
    try:
        temporary.parent.mkdir(parents=True, exist_ok=True)
        return temporary.open("w", encoding="utf-8")
    except ValueError as exc:  # a NUL byte in the name
        raise bad_path(path, exc) from None


def _keep_attributes(temporary: Path, target: Path) -> None:
    """Give the new file the permission bits, owner and group of the file it replaces (a
    new file keeps the defaults). The owner and group are kept where this process may set
    them (root; a member of the group); the bits are set after, as chown may clear some."""
    try:
        old = target.stat()
    except OSError:
        return
    for owner in (old.st_uid, -1):
        with suppress(OSError):
            os.chown(temporary, owner, old.st_gid)
            break
    os.chmod(temporary, stat.S_IMODE(old.st_mode))


def _rename(temporary: Path, target: Path, path: Path, what: str) -> None:
    try:
        temporary.replace(target)
    except OSError as exc:
        raise _cannot_write(path, exc, what) from None


def _cannot_write(path: Path, exc: OSError, what: str) -> InputError:
    if exc.errno == errno.ENAMETOOLONG:
        return bad_path(path, exc)
    return InputError(path, f"cannot write {what}: {exc.strerror or exc}; check the path")
