"""A pull request run overtaken by a newer push must not overwrite the newer run's report.

Two runs of one pull request can overlap: a push moves the head while the first run is still
evaluating, and the second run may finish first. The commit status is per commit, so the old
run's status on the old sha is right and harmless; the sticky comment is per pull request, so
the old run posting last would replace the newer head's report with a stale one. Before the
comment, the run reads the pull request's head again (one request) and, if it moved, leaves
the comment to the newer run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ragguard.github import GitHubError, PullInfo


class PullReader(Protocol):
    def pull(self, number: int) -> PullInfo: ...


def head_moved(github: PullReader, number: int, sha: str, log: Callable[[str], None]) -> bool:
    """True when pull request ``number``'s head is no longer ``sha`` (the evaluated commit).

    When GitHub cannot say, the run is treated as current: a lost comment is worse than a
    rare stale one.
    """
    try:
        head = github.pull(number).head_sha
    except GitHubError as exc:
        log(f"ragguard: could not re-read #{number}'s head ({exc}); posting the comment anyway")
        return False
    if head == sha:
        return False
    log(
        f"ragguard: #{number}'s head moved from {sha[:12]} to {head[:12]} during this run: "
        f"the comment is left to the newer run; the status goes on {sha[:12]} only"
    )
    return True
