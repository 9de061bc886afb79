"""``baseline: {rerun: true}``: no stored baseline yet, so evaluate the merge base itself.

For the first pull requests after adopting ragguard, before any push to the target branch has
saved a baseline. The merge-base commit is checked out in a temporary ``git worktree`` and
`ragguard run` evaluates it there in a separate process, so the python adapter imports the
merge base's code, not the pull request's (already imported in this process). A shallow
checkout (actions/checkout's default) lacks the commit: it is fetched first, one commit deep.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from ragguard.config.model import Config
from ragguard.core.exits import EXIT_ERROR, EXIT_OK
from ragguard.core.git import (
    failure_text,
    fetch_missing_commit,
    git_output,
    run_git,
    succeeded,
)
from ragguard.results.io import load_results
from ragguard.results.model import Results

RUN_TIMEOUT = 3600
GIT_TIMEOUT = 600


def rerun_in_worktree(
    config: Config, commit: str, out: Path, log: Callable[[str], None]
) -> Results | None:
    """Results of ``config``'s suite at ``commit``, or None (said in the log) if not possible."""
    top_text = git_output("rev-parse", "--show-toplevel", cwd=config.root)
    if top_text is None:
        log(f"ragguard: no baseline rerun: {config.root} is not in a git checkout")
        return None
    top = Path(top_text)
    missing = fetch_missing_commit(commit, top, timeout=GIT_TIMEOUT)
    if missing is not None:
        log(f"ragguard: no baseline rerun: cannot fetch {commit[:12]}: {missing}")
        return None
    relative = config.path.resolve().relative_to(top.resolve())
    with tempfile.TemporaryDirectory(prefix="ragguard-rerun-") as folder:
        tree = Path(folder) / "tree"
        added = run_git(
            "worktree", "add", "--detach", "--", str(tree), commit, cwd=top, timeout=GIT_TIMEOUT
        )
        if not succeeded(added):
            log(f"ragguard: no baseline rerun: git worktree failed: {failure_text(added)}")
            return None
        try:
            return _run_there(tree / relative, commit, out, log, config.system.run.repeat)
        finally:
            run_git("worktree", "remove", "--force", "--", str(tree), cwd=top, timeout=GIT_TIMEOUT)


def _run_there(
    config_path: Path, commit: str, out: Path, log: Callable[[str], None], repeat: int = 1
) -> Results | None:
    """`ragguard run` at the merge base; with ``repeat`` over 1 (the head's), the merge base
    is asked as many times, so both sides of the comparison are per-question rates."""
    if not config_path.exists():
        log(f"ragguard: no baseline rerun: {commit[:12]} has no {config_path.name} there")
        return None
    # absolute: the rerun runs in the worktree, and a relative results-dir (the action's
    # default) would otherwise name a folder there, not the one this process reads
    results_path = (out / "baseline-rerun.json").resolve()
    log(f"ragguard: no stored baseline; evaluating the merge base {commit[:12]} in a worktree")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragguard",
            "run",
            "-c",
            str(config_path),
            "--out",
            str(results_path),
            *(["--repeat", str(repeat)] if repeat > 1 else []),
        ],
        cwd=config_path.parent,
        env={k: v for k, v in os.environ.items() if k not in ("GITHUB_SHA", "GITHUB_REF")},
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    if done.returncode not in (EXIT_OK, EXIT_ERROR) or not results_path.exists():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        log(f"ragguard: the baseline rerun failed (exit {done.returncode}): {last}")
        return None
    return load_results(results_path)
