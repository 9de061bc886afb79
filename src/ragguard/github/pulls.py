"""Pull requests and commits: the head to put the status on, the base to compare against."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PullInfo:
    """What ragguard needs of a pull request (from the API, never from an artifact)."""

    number: int
    head_sha: str
    head_ref: str
    head_repo: str | None
    base_ref: str
    base_sha: str
    base_repo: str
    html_url: str
    state: str

    @property
    def is_fork(self) -> bool:
        """A pull request from another repository: its runs get a read-only token."""
        return self.head_repo != self.base_repo


def pull_info(raw: dict[str, Any]) -> PullInfo:
    """Build PullInfo from the REST API's pull request JSON (PyGithub's ``raw_data``)."""
    head, base = raw["head"], raw["base"]
    head_repo = (head.get("repo") or {}).get("full_name")
    return PullInfo(
        number=int(raw["number"]),
        head_sha=head["sha"],
        head_ref=head["ref"],
        head_repo=head_repo,
        base_ref=base["ref"],
        base_sha=base["sha"],
        base_repo=base["repo"]["full_name"],
        html_url=raw.get("html_url", ""),
        state=raw.get("state", ""),
    )
