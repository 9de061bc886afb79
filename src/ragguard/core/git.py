"""The one place ragguard runs git.

Every call goes through :func:`run_git`. Text that comes from a user, a payload or the API
(a remote, a branch, a commit, a path) goes after ``--end-of-options`` (or ``--`` where git
reads paths), so a value that starts with ``-`` is never taken for an option: ``--remote
--upload-pack=…`` names a repository that does not exist, it does not run a command.

git's output is bytes in no promised encoding (a path, a branch name or a commit message may
hold any byte). It is decoded as UTF-8 with ``surrogateescape``, which cannot fail and gives a
path back to the file system byte for byte (as Python's own file names do); text that is
shown or stored (an error, a branch name in results.json) has those bytes escaped
(``\\udce9``), so no writer fails on it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ragguard.core.errors import InputError
from ragguard.core.surrogates import escape_surrogates

END_OF_OPTIONS = "--end-of-options"
QUICK_TIMEOUT = 10
NETWORK_TIMEOUT = 300


def run_git(
    *args: str, cwd: str | Path | None = None, text: bool = True, timeout: float = QUICK_TIMEOUT
) -> subprocess.CompletedProcess | None:
    """``git ARGS`` in ``cwd``, its output captured (as text: UTF-8, any other byte kept by
    ``surrogateescape``; else bytes); None when git cannot be run at all."""
    decoding = {"encoding": "utf-8", "errors": "surrogateescape"} if text else {}
    try:
        return subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, timeout=timeout, check=False, **decoding
        )
    except (OSError, subprocess.SubprocessError):
        return None


def git_output(*args: str, cwd: str | Path | None = None) -> str | None:
    """The stripped output of a git command that succeeded with some output, else None."""
    done = run_git(*args, cwd=cwd)
    value = done.stdout.strip() if done is not None else ""
    return value if done is not None and done.returncode == 0 and value else None


def failure_text(done: subprocess.CompletedProcess | None) -> str:
    """What git said went wrong, for a one-line error: its first ``fatal:`` (or ``error:``)
    line without the prefix (the lines after it are advice, "and the repository exists."),
    else the last line it wrote to stderr."""
    if done is None:
        return "git could not be run"
    stderr = done.stderr
    if isinstance(stderr, bytes):
        stderr = stderr.decode("utf-8", "surrogateescape")
    lines = [line.strip() for line in escape_surrogates(stderr).splitlines() if line.strip()]
    for line in lines:
        for prefix in ("fatal: ", "error: "):
            if line.startswith(prefix):
                return line.removeprefix(prefix)
    return lines[-1] if lines else "git failed"


def succeeded(done: subprocess.CompletedProcess | None) -> bool:
    return done is not None and done.returncode == 0


def current_commit(cwd: str | None = None) -> dict[str, str | None]:
    """Which commit a run evaluated: from GitHub's environment, else from git itself."""
    sha = os.environ.get("GITHUB_SHA") or git_output("rev-parse", "HEAD", cwd=cwd)
    ref = os.environ.get("GITHUB_REF") or git_output("symbolic-ref", "-q", "HEAD", cwd=cwd)
    return {"sha": _stored(sha), "ref": _stored(ref)}


def _stored(name: str | None) -> str | None:
    """A commit's or branch's name as results.json stores it: bytes not UTF-8 escaped."""
    return escape_surrogates(name) if name is not None else None


def git_head() -> str | None:
    """The commit checked out in the working directory, else None (not a git checkout)."""
    return git_output("rev-parse", "HEAD")


def git_repo_path(path: Path) -> str:
    """``path`` as the API names it: relative to the top of its git checkout. Outside a
    checkout, a relative path as given (Actions runs in the checkout), else the file name."""
    done = run_git("-C", str(path.parent), "rev-parse", "--show-prefix")
    if succeeded(done):
        return done.stdout.strip() + path.name
    return path.as_posix() if not path.is_absolute() else path.name


def git_commit_time(sha: str) -> str | None:
    """The committer date of ``sha`` from the checkout (no API request), else None."""
    return git_output("show", "-s", "--format=%cI", END_OF_OPTIONS, sha)


def check_remote(remote: str, key: str = "--remote") -> str:
    """A remote name or URL that git cannot read as an option; InputError otherwise."""
    if not remote or remote.startswith("-") or not remote.isprintable() or remote != remote.strip():
        raise InputError(
            key,
            f"{_shown(remote)} is not a git remote: give a remote's name (origin) or its URL, "
            "not starting with '-', without control characters or spaces around it",
        )
    return remote


def check_branch(branch: str, key: str) -> str:
    """A branch name as ``git check-ref-format --branch`` accepts it; InputError otherwise."""
    done = run_git("check-ref-format", f"refs/heads/{branch}")
    if branch.startswith("-") or not branch.isprintable() or not succeeded(done):
        raise InputError(key, f"{_shown(branch)} is not a branch name git accepts")
    return branch


def _shown(value: str) -> str:
    return repr(value) if len(value) <= 60 else repr(value[:60]) + "…"


def fetch_missing_commit(
    commit: str, cwd: str | Path, timeout: float = NETWORK_TIMEOUT
) -> str | None:
    """Make sure the checkout at ``cwd`` has ``commit``: a shallow checkout (actions/checkout's
    default) lacks the merge base, so it is fetched from origin, one commit deep. None when
    the commit is there, else why it could not be fetched."""
    if succeeded(run_git("cat-file", "-e", END_OF_OPTIONS, f"{commit}^{{commit}}", cwd=cwd)):
        return None
    fetched = run_git(
        "fetch", "--no-tags", "--depth=1", END_OF_OPTIONS, "origin", commit,
        cwd=cwd, timeout=timeout,
    )  # fmt: skip
    return None if succeeded(fetched) else failure_text(fetched)


def changed_paths(base: str, head: str, folder: Path) -> list[str] | None:
    """The files under ``folder`` (paths relative to it, ``/``-separated) that differ between
    the commits ``base`` and ``head``; None when git cannot tell (not a checkout, or a
    commit the checkout lacks, as in a shallow clone)."""
    done = run_git(
        "-C",
        str(folder),
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        "--relative",
        END_OF_OPTIONS,
        base,
        head,
        "--",
        ".",
    )
    if not succeeded(done):
        return None
    return [name for name in done.stdout.split("\0") if name]  # type: ignore[union-attr]
