"""The triggering event, read once from GITHUB_EVENT_NAME and the payload at GITHUB_EVENT_PATH.

Only identifiers are taken from the payload (numbers, shas, refs). For ``workflow_run`` the
payload describes another run, which may have been a fork's: its pull request list is not
trusted for where to post; the publisher resolves the pull request from the head sha through
the API instead, and checks it against the run's head repository and branch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragguard.core.sources import parse_json_value
from ragguard.core.surrogates import LoneSurrogate


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
    run_head_repo: str | None = None
    run_head_branch: str | None = None
    run_event: str | None = None
    run_conclusion: str | None = None
    merge_group_head_sha: str | None = None
    merge_group_base_sha: str | None = None
    merge_group_base_ref: str | None = None
    action: str | None = None
    comment_body: str | None = None
    comment_user: str | None = None
    comment_id: int | None = None
    comment_created_at: str | None = None
    issue_number: int | None = None
    issue_is_pull: bool = False

    @property
    def branch(self) -> str | None:
        """The branch of ``ref`` (``refs/heads/x`` → ``x``), None for tags and PR refs."""
        if self.ref and self.ref.startswith("refs/heads/"):
            return self.ref.removeprefix("refs/heads/")
        return None

    @property
    def merge_group_base_branch(self) -> str | None:
        """The branch a merge group merges into (``refs/heads/main`` → ``main``)."""
        ref = self.merge_group_base_ref
        return ref.removeprefix("refs/heads/") if ref else None

    @property
    def on_default_branch(self) -> bool:
        return self.branch is not None and self.branch == self.default_branch

    @property
    def commented_pull(self) -> int | None:
        """The pull request an ``issue_comment`` was written on (its payload names no head
        commit: the pull request has to be fetched), None for an issue's comment."""
        return self.issue_number if self.issue_is_pull else None

    @property
    def is_fork_pull(self) -> bool:
        return self.pull_head_repo is not None and self.pull_head_repo != self.repository


_JSON_TYPE = {
    str: "a string",
    int: "a number",
    float: "a fractional number",
    dict: "an object",
    list: "a list",
}


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    return next((name for kind, name in _JSON_TYPE.items() if isinstance(value, kind)), "null")


def _get(payload: Mapping[str, Any], *keys: str) -> Any:
    """The value at ``keys``, None when a key is absent; ValueError when a step is not an object."""
    value: Any = payload
    for depth, key in enumerate(keys):
        if value is None:
            return None
        if not isinstance(value, Mapping):
            where = ".".join(keys[:depth]) or "the payload"
            raise ValueError(f"{where}: expected an object, found {_describe(value)}")
        value = value.get(key)
    return value


def _text(payload: Mapping[str, Any], *keys: str) -> str | None:
    value = _get(payload, *keys)
    if value is None or isinstance(value, str):
        return value
    raise ValueError(f"{'.'.join(keys)}: expected a string, found {_describe(value)}")


def _number(payload: Mapping[str, Any], *keys: str) -> int | None:
    value = _get(payload, *keys)
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    found = repr(value) if isinstance(value, float) else _describe(value)
    raise ValueError(f"{'.'.join(keys)}: expected a whole number, found {found}")


def _positive(payload: Mapping[str, Any], *keys: str) -> int | None:
    """A number GitHub counts from 1 (a pull request, an issue, a run): a payload holding 0 or
    a negative one is refused here, before any request is made for it."""
    value = _number(payload, *keys)
    if value is not None and value < 1:
        raise ValueError(f"{'.'.join(keys)}: expected a number from 1, found {value}")
    return value


def _object(payload: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = _get(payload, key)
    if value is None or isinstance(value, Mapping):
        return value or {}
    raise ValueError(f"{key}: expected an object, found {_describe(value)}")


def read_event(
    name: str, payload: Mapping[str, Any], ref: str | None = None, sha: str | None = None
) -> EventContext:
    """Build the context from the event name and payload; GITHUB_REF/SHA fill what it lacks.

    A value of the wrong JSON type is a ValueError naming its key (a hand-written or
    truncated payload must not become a traceback, or a silently wrong pull request).
    """
    pull = _object(payload, "pull_request")
    run = _object(payload, "workflow_run")
    inputs = _object(payload, "inputs")
    group = _object(payload, "merge_group")
    issue = _object(payload, "issue")
    comment = _object(payload, "comment")
    payload_ref = _get(payload, "ref")
    return EventContext(
        name=name,
        repository=_text(payload, "repository", "full_name"),
        default_branch=_text(payload, "repository", "default_branch"),
        ref=payload_ref if isinstance(payload_ref, str) else ref,
        sha=_text(payload, "after") or sha,
        pull_number=(
            (_positive(payload, "number") or _positive(payload, "pull_request", "number"))
            if pull
            else None
        ),
        pull_head_sha=_text(pull, "head", "sha"),
        pull_head_ref=_text(pull, "head", "ref"),
        pull_head_repo=_text(pull, "head", "repo", "full_name"),
        pull_base_ref=_text(pull, "base", "ref"),
        dispatch_inputs={str(k): "" if v is None else str(v) for k, v in inputs.items()},
        run_id=_positive(payload, "workflow_run", "id"),
        run_head_sha=_text(run, "head_sha"),
        run_head_repo=_text(run, "head_repository", "full_name"),
        run_head_branch=_text(run, "head_branch"),
        run_event=_text(run, "event"),
        run_conclusion=_text(run, "conclusion"),
        merge_group_head_sha=_text(group, "head_sha"),
        merge_group_base_sha=_text(group, "base_sha"),
        merge_group_base_ref=_text(group, "base_ref"),
        action=_text(payload, "action"),
        comment_body=_text(comment, "body"),
        comment_user=_text(comment, "user", "login"),
        comment_id=_number(comment, "id"),
        comment_created_at=_text(comment, "created_at"),
        issue_number=_positive(payload, "issue", "number"),
        issue_is_pull=_get(issue, "pull_request") is not None,
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
            payload = parse_json_value(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            place = f"{path}:{exc.lineno}" if isinstance(exc, LoneSurrogate) else path
            raise ValueError(
                f"{place}: cannot read the event payload (GITHUB_EVENT_PATH): {exc}"
            ) from None
        if not isinstance(payload, dict):
            raise ValueError(f"{path}: the event payload is not a JSON object")
    try:
        return read_event(name, payload, ref=env.get("GITHUB_REF"), sha=env.get("GITHUB_SHA"))
    except ValueError as exc:
        raise ValueError(f"{path}: {exc} (GITHUB_EVENT_PATH, the {name} payload)") from None
