"""``ragguard baseline fetch``: the baseline CI stored, fetched with git into a local file.

The action stores baselines on a data branch (default ``ragguard-data``) as
``<branch>/<suite>.json`` (the newest) and ``<branch>/<suite>/<commit>.json`` (one per
evaluated commit). A clone that can fetch from the remote reads them with plain git: no token,
no API. ``ragguard compare`` reads the stored document (``ragguard.baseline/1``) as it is, with
its commit and branch, so the comparison on a laptop is the one CI made. The fetched bytes are
checked whole (UTF-8, JSON, a stored baseline) before the caller writes anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragguard.compare.baseline import BaselineFile, parse_baseline
from ragguard.core.errors import InputError
from ragguard.core.git import (
    END_OF_OPTIONS,
    NETWORK_TIMEOUT,
    check_branch,
    check_remote,
    failure_text,
    run_git,
    succeeded,
)
from ragguard.github.databranch import DATA_BRANCH, latest_path


@dataclass(frozen=True)
class Fetched:
    path: str  # the file on the data branch
    text: str  # the stored document as it is, to write
    baseline: BaselineFile  # the same, checked and read


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
    a full sha or a unique prefix), checked: a damaged one is an error naming
    ``remote/data_branch:path``.

    The remote and both branch names are checked before git sees them, and reach git only
    after ``--end-of-options``: none of them can become an option of git's."""
    check_remote(remote)
    check_branch(data_branch, "--data-branch")
    check_branch(branch, "--branch")
    # a URL cannot be part of a ref's name: its fetch goes to a ref of ragguard's own
    ref = f"refs/remotes/{remote if _is_remote_name(remote) else 'ragguard-url'}/{data_branch}"
    fetched = run_git(
        "fetch",
        "--quiet",
        END_OF_OPTIONS,
        remote,
        f"+refs/heads/{data_branch}:{ref}",
        cwd=repo,
        timeout=NETWORK_TIMEOUT,
    )
    if not succeeded(fetched):
        raise _not_fetched(repo, remote, data_branch, failure_text(fetched))
    path = _snapshot(repo, ref, branch, suite, commit) if commit else latest_path(branch, suite)
    shown = run_git(
        "show", END_OF_OPTIONS, f"{ref}:{path}", cwd=repo, text=False, timeout=NETWORK_TIMEOUT
    )
    where = f"{remote}/{data_branch}:{path}"
    if not succeeded(shown):
        raise InputError(
            where, f"no stored baseline there; check --suite ({suite}) and --branch ({branch})"
        )
    baseline = parse_baseline(shown.stdout, where)
    return Fetched(path, shown.stdout.decode("utf-8"), baseline)


AUTH_SIGNS = (
    "could not read username",
    "authentication failed",
    "permission denied",
    "terminal prompts disabled",
    "returned error: 401",
    "returned error: 403",
)


def _not_fetched(repo: Path, remote: str, data_branch: str, said: str) -> InputError:
    """Why the data branch could not be fetched, named: no such remote, not a repository,
    no credentials, no baseline stored yet; else what git said."""
    lowered = said.lower()
    place = f"{remote}/{data_branch}"
    if lowered.startswith("not a git repository"):
        return InputError(
            repo,
            "not in a git checkout: run `ragguard baseline fetch` in a clone of the repository",
        )
    if "does not appear to be a git repository" in lowered:
        if _is_remote_name(remote) and not _has_remote(repo, remote):
            return InputError(
                "--remote",
                f"this checkout has no git remote {remote!r}: add it (git remote add {remote} "
                "URL) or pass --remote with the repository's URL",
            )
        return InputError("--remote", f"{remote} is not a git repository git can read ({said})")
    if any(sign in lowered for sign in AUTH_SIGNS):
        return InputError(
            place,
            f"git has no credentials for {remote} ({said}): give git a token for the "
            "repository (a credential helper, e.g. `gh auth setup-git`), then fetch again",
        )
    if "couldn't find remote ref" in lowered:
        return InputError(
            place,
            f"no baseline stored yet: {remote} has no branch {data_branch}; the action's "
            "baseline job creates it when it runs on a push to the target branch "
            "(docs/github.md), or check --data-branch",
        )
    return InputError(
        place, f"cannot fetch the data branch ({said}); is --remote right, and can git reach it?"
    )


def _is_remote_name(remote: str) -> bool:
    """A remote's name (origin), not a URL or a path."""
    return "/" not in remote and ":" not in remote and "\\" not in remote


def _has_remote(repo: Path, remote: str) -> bool:
    return succeeded(run_git("remote", "get-url", END_OF_OPTIONS, remote, cwd=repo))


def _snapshot(repo: Path, ref: str, branch: str, suite: str, commit: str) -> str:
    folder = f"{branch}/{suite}/"
    done = run_git(
        "ls-tree",
        "--name-only",
        END_OF_OPTIONS,
        ref,
        "--",
        folder,
        cwd=repo,
        timeout=NETWORK_TIMEOUT,
    )
    listed = done.stdout if succeeded(done) else ""
    matches = [name for name in listed.split() if Path(name).name.startswith(commit.lower())]
    if len(matches) != 1:
        found = "none" if not matches else f"{len(matches)}, give more of the sha"
        raise InputError(
            f"{ref.removeprefix('refs/remotes/')}:{folder}",
            f"stored baselines of commit {commit}: {found}",
            key="--commit",
        )
    return matches[0]
