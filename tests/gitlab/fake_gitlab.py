"""A local, stateful fake of the GitLab REST endpoints the GitLab recipe calls, on 127.0.0.1.

Written from GitLab's REST API documentation (docs.gitlab.com/api/notes and
/api/job_artifacts):

- ``GET /api/v4/projects/:id/jobs/artifacts/:ref_name/raw/*artifact_path?job=NAME``: a file
  of the latest successful job NAME on ref_name; ``JOB-TOKEN`` or ``PRIVATE-TOKEN``.
- ``GET /api/v4/projects/:id/merge_requests/:merge_request_iid/notes``: the notes, a page at
  a time (``per_page`` default 20, at most 100; ``page``; ``sort`` asc or desc by creation,
  desc by default), with ``X-Page``, ``X-Per-Page``, ``X-Next-Page`` (empty on the last page),
  ``X-Total`` and ``X-Total-Pages``.
- ``POST`` the same path with ``body``: 201 and the note. ``PUT .../notes/:note_id`` with
  ``body``: 200 and the note. Both need ``PRIVATE-TOKEN`` (or ``Authorization: Bearer``); the
  job token gets 401 as on GitLab.

Errors are GitLab's shapes: ``{"message": "401 Unauthorized"}``, ``{"message": "404 Not
found"}``, ``{"error": "body is missing"}`` (400). Every request is recorded; one the fake
does not know is answered 404 and kept in ``violations`` so tests can fail on it.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

ACCESS_TOKEN = "glpat-fakeProjectAccessToken01"
JOB_TOKEN = "glcbt-fakeJobToken0001"
PROJECT_ID = "1217"
BOT = {"id": 42, "username": "project_1217_bot", "name": "ragguard bot"}
HUMAN = {"id": 7, "username": "reviewer", "name": "A Reviewer"}

_NOTES = re.compile(r"^/api/v4/projects/([^/]+)/merge_requests/(\d+)/notes(?:/(\d+))?$")
_ARTIFACT = re.compile(r"^/api/v4/projects/([^/]+)/jobs/artifacts/([^/]+)/raw/(.+)$")


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    status: int


@dataclass
class FakeGitLab:
    """The state tests seed and inspect: notes per merge request, artifacts per (ref, job)."""

    notes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    artifacts: dict[tuple[str, str, str], bytes] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    _next_id: int = 1000
    _clock: int = 0

    def add_note(
        self, iid: str, body: str, *, author: dict[str, Any] | None = None, system: bool = False
    ) -> dict[str, Any]:
        """A note as GitLab returns it (the fields the notes API documents)."""
        self._next_id += 1
        self._clock += 1
        stamp = f"2026-01-05T12:{self._clock // 60:02d}:{self._clock % 60:02d}.000Z"
        note = {
            "id": self._next_id,
            "type": None,
            "body": body,
            "author": author or HUMAN,
            "created_at": stamp,
            "updated_at": stamp,
            "system": system,
            "noteable_id": 500 + int(iid),
            "noteable_type": "MergeRequest",
            "noteable_iid": int(iid),
            "resolvable": False,
            "confidential": False,
            "internal": False,
            "project_id": int(PROJECT_ID),
        }
        self.notes.setdefault(iid, []).append(note)
        return note

    def assert_clean(self) -> None:
        assert not self.violations, self.violations


class _Handler(BaseHTTPRequestHandler):
    fake: FakeGitLab

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read ``fake.requests``."""

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def _serve(self, method: str) -> None:
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        body = self._read_body()
        status, payload, headers = self._answer(method, url.path, query, body)
        self.fake.requests.append(
            Recorded(method, url.path, query, dict(self.headers), body, status)
        )
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        kind = "application/octet-stream" if isinstance(payload, bytes) else "application/json"
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return {}
        if (self.headers.get("Content-Type") or "").startswith("application/json"):
            return json.loads(raw)
        return {key: values[0] for key, values in parse_qs(raw.decode()).items()}

    def _answer(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> Any:
        artifact = _ARTIFACT.match(path)
        if artifact and method == "GET":
            return self._artifact(artifact, query)
        notes = _NOTES.match(path)
        if notes:
            return self._notes(method, notes, query, body)
        self.fake.violations.append(f"{method} {path}: not an endpoint the fake knows")
        return 404, {"message": "404 Not Found"}, {}

    def _token(self) -> str | None:
        bearer = self.headers.get("Authorization", "")
        return self.headers.get("PRIVATE-TOKEN") or (
            bearer.removeprefix("Bearer ") if bearer.startswith("Bearer ") else None
        )

    def _artifact(self, match: re.Match[str], query: dict[str, list[str]]) -> Any:
        if self._token() != ACCESS_TOKEN and self.headers.get("JOB-TOKEN") != JOB_TOKEN:
            return 401, {"message": "401 Unauthorized"}, {}
        project, ref, artifact_path = (unquote(part) for part in match.groups())
        if project != PROJECT_ID or "job" not in query:
            return 404, {"message": "404 Not found"}, {}
        content = self.fake.artifacts.get((ref, query["job"][0], artifact_path))
        if content is None:
            return 404, {"message": "404 Not found"}, {}
        return 200, content, {}

    def _notes(self, method: str, match: re.Match[str], query: Any, body: Any) -> Any:
        if self._token() != ACCESS_TOKEN:
            return 401, {"message": "401 Unauthorized"}, {}
        project, iid, note_id = match.groups()
        if unquote(project) != PROJECT_ID or iid not in self.fake.notes:
            return 404, {"message": "404 Not found"}, {}
        if method == "GET" and note_id is None:
            return self._list(self.fake.notes[iid], query)
        if method in ("POST", "PUT") and not (isinstance(body, dict) and body.get("body")):
            return 400, {"error": "body is missing"}, {}
        if method == "POST" and note_id is None:
            return 201, self.fake.add_note(iid, body["body"], author=BOT), {}
        if method == "PUT" and note_id is not None:
            return self._update(self.fake.notes[iid], int(note_id), body["body"])
        self.fake.violations.append(f"{method} {match.group(0)}: not a documented notes call")
        return 405, {"message": "405 Method Not Allowed"}, {}

    def _update(self, notes: list[dict[str, Any]], note_id: int, text: str) -> Any:
        for note in notes:
            if note["id"] == note_id:
                if note["author"] != BOT:
                    return 403, {"message": "403 Forbidden"}, {}
                note["body"] = text
                note["updated_at"] = note["created_at"].replace("12:", "13:", 1)
                return 200, note, {}
        return 404, {"message": "404 Not found"}, {}

    @staticmethod
    def _list(notes: list[dict[str, Any]], query: dict[str, list[str]]) -> Any:
        per_page = min(int(query.get("per_page", ["20"])[0]), 100)
        page = int(query.get("page", ["1"])[0])
        ordered = notes if query.get("sort", ["desc"])[0] == "asc" else notes[::-1]
        pages = max(1, -(-len(ordered) // per_page))
        headers = {
            "X-Page": str(page),
            "X-Per-Page": str(per_page),
            "X-Total": str(len(ordered)),
            "X-Total-Pages": str(pages),
            "X-Next-Page": str(page + 1) if page < pages else "",
            "X-Prev-Page": str(page - 1) if page > 1 else "",
        }
        return 200, ordered[(page - 1) * per_page : page * per_page], headers


class FakeGitLabServer:
    """Serves a FakeGitLab on 127.0.0.1 (a free port) until ``stop``."""

    def __init__(self, fake: FakeGitLab) -> None:
        handler = type("Handler", (_Handler,), {"fake": fake})
        self.fake = fake
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def api_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/api/v4"

    def start(self) -> FakeGitLabServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
