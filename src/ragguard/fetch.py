"""``ragguard baseline fetch``: the baseline CI stored, fetched with git into a local file.

The action stores baselines on a data branch (default ``ragguard-data``) as
``<branch>/<suite>.json`` (the newest) and ``<branch>/<suite>/<commit>.json`` (one per
evaluated commit). A clone that can fetch from the remote reads them with plain git: no token,
no API. ``ragguard compare`` reads the stored document (``ragguard.baseline/1``) as it is, with
its commit and branch, so the comparison on a laptop is the one CI made.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from ragguard.errors import InputError
from ragguard.github.databranch import DATA_BRANCH, latest_path

GIT_TIMEOUT = 300


@dataclass(frozen=True)
class Fetched:
    path: str  # the file on the data branch
    document: bytes


def fetch_baseline(
    repo: Path,
    suite: str,
    *,
    branch: str = "main",
    commit: str | None = None,
    remote: str = "origin",
    data_branch: str = DATA_BRANCH,
) -> Fetched:
    """The stored baseline of ``suite`` on ``branch`` (the newest, or that of ``commit``,
    a full sha or a unique prefix)."""
    ref = f"refs/remotes/{remote}/{data_branch}"
    fetched = _git(repo, "fetch", "--quiet", remote, f"+refs/heads/{data_branch}:{ref}")
    if fetched.returncode != 0:
        raise InputError(
            f"{remote}/{data_branch}",
            f"cannot fetch the data branch ({_last_line(fetched.stderr)}); has the action's "
            "baseline job run on the target branch, and is --remote right?",
        )
    path = _snapshot(repo, ref, branch, suite, commit) if commit else latest_path(branch, suite)
    shown = _git(repo, "show", f"{ref}:{path}", text=False)
    if shown.returncode != 0:
        raise InputError(
            f"{remote}/{data_branch}:{path}",
            f"no stored baseline there; check --suite ({suite}) and --branch ({branch})",
        )
    return Fetched(path, shown.stdout)


def _snapshot(repo: Path, ref: str, branch: str, suite: str, commit: str) -> str:
    folder = f"{branch}/{suite}/"
    listed = _git(repo, "ls-tree", "--name-only", ref, folder).stdout
    matches = [name for name in listed.split() if Path(name).name.startswith(commit.lower())]
    if len(matches) != 1:
        found = "none" if not matches else f"{len(matches)}, give more of the sha"
        raise InputError(
            f"{ref.removeprefix('refs/remotes/')}:{folder}",
            f"stored baselines of commit {commit}: {found}",
            key="--commit",
        )
    return matches[0]


def _git(repo: Path, *args: str, text: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        capture_output=True,
        text=text,
        timeout=GIT_TIMEOUT,
        check=False,
    )


def _last_line(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1] if lines else "git failed"
