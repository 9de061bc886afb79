"""The triggering event, read once from GITHUB_EVENT_NAME and the payload at GITHUB_EVENT_PATH.

Only identifiers are taken from the payload (numbers, shas, refs). For ``workflow_run`` the
payload describes another run, which may have been a fork's: its pull request list is not
trusted for where to post; the publisher resolves the pull request from the head sha through
the API instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class EventContext:
    """What ragguard uses of the event that started the workflow."""

    name: str
    repository: str | None = None
    default_branch: str | None = None
    ref: str | None = None
    sha: str | None = None
    pull_number: int | None = None
    pull_head_sha: str | None = None
    pull_head_ref: str | None = None
    pull_head_repo: str | None = None
    pull_base_ref: str | None = None
    dispatch_inputs: Mapping[str, str] = field(default_factory=dict)
    run_id: int | None = None
    run_head_sha: str | None = None
    run_event: str | None = None
    run_conclusion: str | None = None

    @property
    def branch(self) -> str | None:
        """The branch of ``ref`` (``refs/heads/x`` → ``x``), None for tags and PR refs."""
        if self.ref and self.ref.startswith("refs/heads/"):
            return self.ref.removeprefix("refs/heads/")
        return None

    @property
    def on_default_branch(self) -> bool:
        return self.branch is not None and self.branch == self.default_branch

    @property
    def is_fork_pull(self) -> bool:
        return self.pull_head_repo is not None and self.pull_head_repo != self.repository


def _get(payload: Mapping[str, Any], *keys: str) -> Any:
    value: Any = payload
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def read_event(
    name: str, payload: Mapping[str, Any], ref: str | None = None, sha: str | None = None
) -> EventContext:
    """Build the context from the event name and payload; GITHUB_REF/SHA fill what it lacks."""
    pull = _get(payload, "pull_request") or {}
    run = _get(payload, "workflow_run") or {}
    inputs = _get(payload, "inputs") or {}
    number = payload.get("number") if pull else None
    return EventContext(
        name=name,
        repository=_get(payload, "repository", "full_name"),
        default_branch=_get(payload, "repository", "default_branch"),
        ref=payload.get("ref") if isinstance(payload.get("ref"), str) else ref,
        sha=payload.get("after") or sha,
        pull_number=int(number) if number is not None else _get(pull, "number"),
        pull_head_sha=_get(pull, "head", "sha"),
        pull_head_ref=_get(pull, "head", "ref"),
        pull_head_repo=_get(pull, "head", "repo", "full_name"),
        pull_base_ref=_get(pull, "base", "ref"),
        dispatch_inputs={str(k): "" if v is None else str(v) for k, v in dict(inputs).items()},
        run_id=run.get("id"),
        run_head_sha=run.get("head_sha"),
        run_event=run.get("event"),
        run_conclusion=run.get("conclusion"),
    )


def load_event(env: Mapping[str, str]) -> EventContext:
    """Read the event GitHub Actions describes in ``env``; ValueError names what is wrong."""
    name = env.get("GITHUB_EVENT_NAME", "")
    if not name:
        raise ValueError("GITHUB_EVENT_NAME: not set; `ragguard ci` runs inside GitHub Actions")
    path = env.get("GITHUB_EVENT_PATH", "")
    payload: Any = {}
    if path:
        try:
            payload = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path}: cannot read the event payload: {exc}") from None
        if not isinstance(payload, dict):
            raise ValueError(f"{path}: the event payload is not a JSON object")
    return read_event(name, payload, ref=env.get("GITHUB_REF"), sha=env.get("GITHUB_SHA"))
