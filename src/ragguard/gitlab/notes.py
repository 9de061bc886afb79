"""One ragguard note per merge request, through GitLab's notes REST API.

GitLab documents the merge request notes endpoints under ``/projects/:id/merge_requests/
:merge_request_iid/notes``: ``GET`` lists them a page at a time (``per_page`` up to 100, the
next page in the ``X-Next-Page`` header, empty on the last), ``POST`` with ``body`` creates
one (201), ``PUT .../notes/:note_id`` with ``body`` replaces its text (200). A personal,
project or group access token with the ``api`` scope goes in the ``PRIVATE-TOKEN`` header;
the CI job token is not accepted by these endpoints.

The note is found again by its first line, the hidden marker every ragguard comment starts
with (``<!-- ragguard:comment suite=NAME -->``), so each suite keeps one note that later
pipelines update instead of adding another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import requests

MARKER_START = "<!-- ragguard:"
PAGE_SIZE = 100
MAX_PAGES = 100
TIMEOUT_SECONDS = 30.0


class GitLabError(Exception):
    """A GitLab call failed; the message is one line naming the call and GitLab's reason."""

    def __init__(self, action: str, status: int | None, message: str) -> None:
        self.action = action
        self.status = status
        self.message = message
        code = f" ({status})" if status is not None else ""
        super().__init__(f"GitLab: {action} failed{code}: {message}")


@dataclass(frozen=True)
class MergeRequest:
    """Where the note goes: the API root (``CI_API_V4_URL``), project id or path, MR iid."""

    api_url: str
    project: str
    iid: str
    token: str

    def notes_url(self) -> str:
        project = quote(self.project, safe="")
        return f"{self.api_url.rstrip('/')}/projects/{project}/merge_requests/{self.iid}/notes"


@dataclass(frozen=True)
class NoteResult:
    """What happened: ``created`` or ``updated``, and the note's id."""

    action: str
    note_id: int


def marker_of(body: str) -> str:
    """The comment's first line, its hidden marker; ValueError when it has none."""
    first = body.split("\n", 1)[0].strip()
    if not first.startswith(MARKER_START):
        raise ValueError(
            "does not start with ragguard's marker line (<!-- ragguard:comment ... -->); "
            "pass the file `ragguard compare --markdown` wrote"
        )
    return first


def post_or_update_note(
    merge_request: MergeRequest, body: str, session: requests.Session | None = None
) -> NoteResult:
    """Update the note whose first line is ``body``'s marker, or create it when there is none."""
    marker = marker_of(body)
    http = session or requests.Session()
    http.headers["PRIVATE-TOKEN"] = merge_request.token
    existing = _find_note(http, merge_request, marker)
    if existing is None:
        created = _call(http, "POST", merge_request.notes_url(), "create the note", body)
        return NoteResult("created", int(created["id"]))
    url = f"{merge_request.notes_url()}/{existing}"
    updated = _call(http, "PUT", url, "update the note", body)
    return NoteResult("updated", int(updated["id"]))


def _find_note(http: requests.Session, merge_request: MergeRequest, marker: str) -> int | None:
    """The id of the oldest non-system note starting with ``marker``, over every page."""
    page = "1"
    for _ in range(MAX_PAGES):
        params = {"per_page": str(PAGE_SIZE), "page": page, "sort": "asc"}
        response = _request(http, "GET", merge_request.notes_url(), "list the notes", params=params)
        notes = _json(response, "list the notes")
        if not isinstance(notes, list):
            raise GitLabError("list the notes", response.status_code, "the answer is not a list")
        for note in notes:
            if _is_ours(note, marker):
                return int(note["id"])
        page = response.headers.get("X-Next-Page", "").strip()
        if not page:
            return None
    raise GitLabError("list the notes", None, f"more than {MAX_PAGES * PAGE_SIZE} notes")


def _is_ours(note: Any, marker: str) -> bool:
    if not isinstance(note, dict) or note.get("system"):
        return False
    text = note.get("body")
    return isinstance(text, str) and text.split("\n", 1)[0].strip() == marker


def _call(http: requests.Session, method: str, url: str, action: str, body: str) -> Any:
    answer = _json(_request(http, method, url, action, json={"body": body}), action)
    if not isinstance(answer, dict) or "id" not in answer:
        raise GitLabError(action, None, "the answer has no note id; check CI_API_V4_URL")
    return answer


def _request(
    http: requests.Session, method: str, url: str, action: str, **kwargs: Any
) -> requests.Response:
    try:
        response = http.request(method, url, timeout=TIMEOUT_SECONDS, **kwargs)
    except requests.RequestException as exc:
        raise GitLabError(action, None, f"{type(exc).__name__}: {exc}") from exc
    if response.status_code >= 400:
        raise GitLabError(action, response.status_code, _reason(response))
    return response


def _json(response: requests.Response, action: str) -> Any:
    try:
        return response.json()
    except ValueError as exc:
        raise GitLabError(
            action, response.status_code, "the answer is not JSON; check CI_API_V4_URL"
        ) from exc


def _reason(response: requests.Response) -> str:
    """GitLab's ``message`` (or ``error``) from a failed call, on one line."""
    try:
        data = response.json()
    except ValueError:
        data = None
    if isinstance(data, dict):
        text = data.get("message") or data.get("error") or data
    else:
        text = response.text or response.reason
    hint = (
        " (the token needs the api scope and at least Reporter access)"
        if (response.status_code in (401, 403))
        else ""
    )
    return " ".join(str(text).split())[:300] + hint
