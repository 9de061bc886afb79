"""What `ragguard ci` is handed: the collaborators that do I/O, the target commit, the outcome."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ragguard.ci.evaluate import evaluate_config
from ragguard.ci.rechecking import EvaluateOnly
from ragguard.ci.rerun import rerun_in_worktree
from ragguard.compare import (
    Comparison,
)
from ragguard.config.model import Config
from ragguard.core.git import git_head, git_repo_path
from ragguard.github import (
    CommentOutcome,
    GitHubClient,
    StoredBaseline,
)
from ragguard.results.model import Results

Evaluate = Callable[[Config, Mapping[str, str | None], Path], Results]


class BaselineStore(Protocol):
    def fetch(
        self, target_branch: str, suite: str, prefer_commit: str | None = None
    ) -> StoredBaseline | None: ...


@dataclass
class Collaborators:
    """The edges `ragguard ci` talks to; tests hand in their own."""

    github: GitHubClient
    evaluate: Evaluate
    commit_time: Callable[[str], str | None]
    head_commit: Callable[[], str | None] = field(default=lambda: git_head())
    rerun: Callable[[Config, str, Path, Callable[[str], None]], Results | None] = field(
        default=lambda *args: rerun_in_worktree(*args)
    )
    log: Callable[[str], None] = field(default=lambda line: print(line, file=sys.stderr))
    evaluate_only: EvaluateOnly = field(
        default=lambda config, git, out, ids: evaluate_config(config, git, out, only=ids)
    )
    repo_path: Callable[[Path], str] = field(default=lambda path: git_repo_path(path))


@dataclass(frozen=True)
class Target:
    """The commit being evaluated and where its report goes."""

    sha: str
    base_branch: str | None
    pr: int | None
    base_sha: str | None = None  # the merge base when the event names it (a merge group)


@dataclass(frozen=True)
class CiOutcome:
    """What a run ended with (for tests and the CLI); no comparison when publishing."""

    comparison: Comparison | None
    state: str
    exit_code: int
    comment: CommentOutcome | None
    results_path: Path | None
    read_only: bool
