"""A local, stateful fake of the GitHub REST endpoints ragguard uses, served on 127.0.0.1.

Every request is recorded (method, path, query, headers, body, status) and checked against
GitHub's OpenAPI description (see openapi_contract.py): a request that does not conform gets a
4xx with a message saying why, and is recorded in ``violations`` so that tests fail on it
(``assert_clean``). Requests must carry an ``Authorization`` header with a known token.

State is plain Python (repos, a small git object store per repo, pull requests, issue comments,
commit statuses, workflow runs and artifacts) that tests seed and inspect directly. Faults can be
injected per path pattern: error statuses, rate limits, a connection reset, a stall past the
client's timeout.

Artifact zips are served by a second server on another loopback host (127.0.0.2), like GitHub
redirecting to its storage host; any Authorization header arriving there is a violation.

GraphQL (``POST /graphql``, or ``/api/graphql`` beside a GHES ``/api/v3`` prefix) answers the one
mutation ragguard sends, ``minimizeComment`` (variables ``id`` and ``classifier``), the way
GitHub does: status 200 with ``data``, or with an ``errors`` list (NOT_FOUND, FORBIDDEN). Any
other document is a violation.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from openapi_contract import ContractError, Match, OpenAPIContract, check_answer

APP_TOKEN = "ghs_fakeInstallationToken0001"
BOT_LOGIN = "github-actions[bot]"
SECONDARY_RATE_LIMIT = "You have exceeded a secondary rate limit. Please wait a few minutes."
PRIMARY_RATE_LIMIT = "API rate limit exceeded for installation ID 1."
NOT_ACCESSIBLE = "Resource not accessible by integration"
EPOCH = datetime(2026, 1, 5, 12, 0, tzinfo=timezone.utc)


MINIMIZE_CLASSIFIERS = ("SPAM", "ABUSE", "OFF_TOPIC", "OUTDATED", "DUPLICATE", "RESOLVED")


def _graphql_error(kind: str, message: str) -> dict[str, Any]:
    """GitHub's GraphQL failure: status 200, ``data`` null, the reason in ``errors``."""
    return {"data": {"minimizeComment": None}, "errors": [{"type": kind, "message": message}]}


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def sha1_hex(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def blob_sha(content: bytes) -> str:
    """The git blob id of ``content``, as GitHub reports it in the contents API."""
    return sha1_hex(b"blob %d\0" % len(content) + content)


def without(document: dict[str, Any], *keys: str) -> dict[str, Any]:
    """``document`` minus ``keys``: the "simple" shapes GitHub uses in lists and write answers."""
    return {key: value for key, value in document.items() if key not in keys}


def wrap_base64(content: bytes) -> str:
    """Base64 in 60-character lines, the way GitHub returns file content."""
    encoded = base64.b64encode(content).decode()
    return "\n".join(encoded[i : i + 60] for i in range(0, len(encoded), 60)) + "\n"


class HttpError(Exception):
    """An answer other than success from a handler: status, GitHub-style message, headers."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


@dataclass
class Token:
    login: str
    user_type: str = "Bot"
    installation: bool = True
    read_only: bool = False
    user_id: int = 41898282


@dataclass
class RecordedRequest:
    host: str
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    operation: str | None = None
    status: int | None = None

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass
class Fault:
    """Answer the next ``times`` matching requests with a failure instead of the real handler."""

    pattern: re.Pattern[str]
    method: str | None
    times: int
    status: int = 500
    message: str = "Server Error"
    headers: dict[str, str] = field(default_factory=dict)
    # "status" (answer with it), "reset" (TCP RST, no answer), "stall" (sleep ``delay``, then
    # answer normally: the write happens late), "hang" (sleep ``delay``, then reset: the server
    # never acted) or "barrier" (wait until ``times`` requests arrived, then answer normally).
    kind: str = "status"
    delay: float = 0.0
    hits: int = 0
    barrier: threading.Barrier | None = None
    # Let this many matching requests through untouched first (to fail a later call only).
    after: int = 0


@dataclass
class GitCommit:
    sha: str
    tree: dict[str, str]  # path -> blob sha
    parents: list[str]
    message: str
    date: datetime


@dataclass
class Pull:
    number: int
    head_sha: str
    head_ref: str
    base_ref: str
    head_repo: str
    user: str
    state: str = "open"
    title: str = "A change"


@dataclass
class Comment:
    id: int
    issue_number: int
    body: str
    user: str
    user_type: str
    created_at: datetime
    updated_at: datetime
    minimized_reason: str | None = None

    @property
    def node_id(self) -> str:
        return "IC_kwDO" + base64.b64encode(str(self.id).encode()).decode().rstrip("=")


@dataclass
class Status:
    id: int
    sha: str
    state: str
    context: str
    description: str | None
    target_url: str | None
    creator: str
    created_at: datetime


@dataclass
class WorkflowRun:
    id: int
    name: str
    workflow_id: int
    head_branch: str
    head_sha: str
    event: str
    status: str
    conclusion: str | None
    created_at: datetime
    head_repo: str
    pull_requests: list[int] = field(default_factory=list)


@dataclass
class Artifact:
    id: int
    run_id: int
    name: str
    zip_bytes: bytes
    expired: bool = False


@dataclass
class Repo:
    owner: str
    name: str
    default_branch: str
    id: int
    private: bool = False
    blobs: dict[str, bytes] = field(default_factory=dict)
    trees: dict[str, dict[str, str]] = field(default_factory=dict)
    commits: dict[str, GitCommit] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)  # "heads/main" -> commit sha
    pulls: dict[int, Pull] = field(default_factory=dict)
    comments: dict[int, Comment] = field(default_factory=dict)
    statuses: list[Status] = field(default_factory=list)
    runs: dict[int, WorkflowRun] = field(default_factory=dict)
    artifacts: dict[int, Artifact] = field(default_factory=dict)
    # login -> role: admin, maintain, write, triage or read (anyone else: none)
    roles: dict[str, str] = field(default_factory=dict)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


@dataclass
class Ctx:
    """What a handler gets: the matched operation, repo, caller, parsed query and body."""

    match: Match
    repo: Repo | None
    token: Token
    query: dict[str, list[str]]
    body: Any
    path: str

    def param(self, name: str) -> str:
        return unquote(self.match.path_params[name])

    def q(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[-1] if values else default


Response = tuple[int, Any, dict[str, str]]


class FakeGitHub:
    """The fake: state, request log, contract checks, fault injection, and the HTTP servers."""

    def __init__(self, prefix: str = "", contract: OpenAPIContract | None = None) -> None:
        self.prefix = prefix.rstrip("/")
        self.contract = contract or OpenAPIContract.load()
        self.lock = threading.RLock()
        self.repos: dict[str, Repo] = {}
        self.tokens: dict[str, Token] = {APP_TOKEN: Token(login=BOT_LOGIN)}
        self.requests: list[RecordedRequest] = []
        self.violations: list[str] = []
        self.faults: list[Fault] = []
        self.clock = EPOCH
        # The contents API inlines files up to 1 MB; bigger ones come back with encoding "none".
        self.inline_limit = 1024 * 1024
        self._next_id = 1000
        self._api: ThreadingHTTPServer | None = None
        self._storage: ThreadingHTTPServer | None = None
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()
        self._blob_keys: dict[str, tuple[str, int]] = {}
        self._handlers = self._handler_table()

    # ----- lifecycle -----------------------------------------------------------------------

    def start(self) -> FakeGitHub:
        self._api = self._serve("127.0.0.1", self._handle_api)
        self._storage = self._serve("127.0.0.2", self._handle_storage)
        return self

    def stop(self) -> None:
        self._stopping.set()
        for server in (self._api, self._storage):
            if server is not None:
                server.shutdown()
                server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def root(self) -> str:
        assert self._api is not None, "start() the fake first"
        return f"http://127.0.0.1:{self._api.server_address[1]}"

    @property
    def url(self) -> str:
        """The API base URL, what GITHUB_API_URL would hold."""
        return self.root + self.prefix

    @property
    def storage_root(self) -> str:
        assert self._storage is not None
        return f"http://127.0.0.2:{self._storage.server_address[1]}"

    def _serve(self, host: str, handle: Callable[[BaseHTTPRequestHandler, str], None]):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                # Answers go out as headers then body; without this, Nagle's algorithm and
                # delayed ACKs add ~40 ms to every request.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                handle(self, "GET")

            def do_POST(self) -> None:
                handle(self, "POST")

            def do_PUT(self) -> None:
                handle(self, "PUT")

            def do_PATCH(self) -> None:
                handle(self, "PATCH")

            def do_DELETE(self) -> None:
                handle(self, "DELETE")

        server = ThreadingHTTPServer((host, 0), Handler)
        server.daemon_threads = True
        server.fake = fake  # type: ignore[attr-defined]
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, name=f"fake-github-{host}"
        )
        thread.daemon = True
        thread.start()
        self._threads.append(thread)
        return server

    # ----- seeding helpers -----------------------------------------------------------------

    def new_id(self) -> int:
        with self.lock:
            self._next_id += 1
            return self._next_id

    def tick(self, seconds: int = 60) -> datetime:
        with self.lock:
            self.clock += timedelta(seconds=seconds)
            return self.clock

    def add_token(self, token: str, login: str, **kw: Any) -> Token:
        self.tokens[token] = Token(login=login, **kw)
        return self.tokens[token]

    def add_repo(self, full_name: str = "octo-org/octo-repo", default_branch: str = "main") -> Repo:
        owner, name = full_name.split("/")
        repo = Repo(owner=owner, name=name, default_branch=default_branch, id=self.new_id())
        self.repos[full_name] = repo
        self.commit(repo, default_branch, {"README.md": b"# octo-repo\n"}, "Initial commit")
        return repo

    def store_tree(self, repo: Repo, files: dict[str, str]) -> str:
        tree_sha = sha1_hex(json.dumps(sorted(files.items())).encode())
        repo.trees[tree_sha] = dict(files)
        return tree_sha

    def make_commit(
        self, repo: Repo, files: dict[str, str], parents: list[str], message: str
    ) -> GitCommit:
        tree_sha = self.store_tree(repo, files)
        when = self.tick()
        sha = sha1_hex(json.dumps([tree_sha, parents, message, iso(when), self.new_id()]).encode())
        commit = GitCommit(
            sha=sha, tree=dict(files), parents=list(parents), message=message, date=when
        )
        repo.commits[sha] = commit
        return commit

    def commit(
        self, repo: Repo, branch: str, changes: dict[str, bytes], message: str = "Change"
    ) -> GitCommit:
        """Commit file changes on top of ``branch`` (created if missing) and move the branch."""
        with self.lock:
            parent = repo.refs.get(f"heads/{branch}")
            files = dict(repo.commits[parent].tree) if parent else {}
            for path, content in changes.items():
                sha = blob_sha(content)
                repo.blobs[sha] = content
                files[path] = sha
            new = self.make_commit(repo, files, [parent] if parent else [], message)
            repo.refs[f"heads/{branch}"] = new.sha
            return new

    def branch_from(self, repo: Repo, branch: str, base: str) -> str:
        with self.lock:
            repo.refs[f"heads/{branch}"] = repo.refs[f"heads/{base}"]
            return repo.refs[f"heads/{branch}"]

    def add_pull(
        self, repo: Repo, head_ref: str, base_ref: str | None = None, head_repo: str | None = None
    ) -> Pull:
        number = max([*repo.pulls, 0]) + 1
        pull = Pull(
            number=number,
            head_sha=repo.refs[f"heads/{head_ref}"],
            head_ref=head_ref,
            base_ref=base_ref or repo.default_branch,
            head_repo=head_repo or repo.full_name,
            user="octocat",
        )
        repo.pulls[number] = pull
        return pull

    def add_comment(
        self, repo: Repo, issue_number: int, body: str, user: str, user_type: str = "User"
    ) -> Comment:
        with self.lock:
            when = self.tick(1)
            comment = Comment(self.new_id(), issue_number, body, user, user_type, when, when)
            repo.comments[comment.id] = comment
            return comment

    def add_run(self, repo: Repo, **kw: Any) -> WorkflowRun:
        defaults: dict[str, Any] = {
            "name": "ragguard",
            "workflow_id": 161335,
            "head_branch": repo.default_branch,
            "head_sha": repo.refs[f"heads/{repo.default_branch}"],
            "event": "push",
            "status": "completed",
            "conclusion": "success",
            "head_repo": repo.full_name,
        }
        defaults.update(kw)
        run = WorkflowRun(id=self.new_id(), created_at=self.tick(), **defaults)
        repo.runs[run.id] = run
        return run

    def workflow_run_payload(self, repo: Repo, run: WorkflowRun) -> dict[str, Any]:
        """The ``workflow_run`` ``completed`` event GitHub sends for ``run``: its
        ``workflow_run`` object is the REST API's run object."""
        return {
            "action": "completed",
            "workflow_run": self._run_json(repo, run),
            "repository": self._repo_json(repo),
        }

    def add_artifact(self, repo: Repo, run: WorkflowRun, name: str, zip_bytes: bytes) -> Artifact:
        artifact = Artifact(self.new_id(), run.id, name, zip_bytes)
        repo.artifacts[artifact.id] = artifact
        return artifact

    def file_at(self, repo: Repo, branch: str, path: str) -> bytes | None:
        """The content of ``path`` on ``branch`` now, for assertions."""
        head = repo.refs.get(f"heads/{branch}")
        if head is None:
            return None
        sha = repo.commits[head].tree.get(path)
        return None if sha is None else repo.blobs[sha]

    # ----- faults and assertions -----------------------------------------------------------

    def inject(
        self,
        pattern: str,
        *,
        method: str | None = None,
        times: int = 1,
        status: int = 500,
        message: str = "Server Error",
        headers: dict[str, str] | None = None,
        kind: str = "status",
        delay: float = 0.0,
        after: int = 0,
    ) -> Fault:
        """Make the next ``times`` requests whose path matches ``pattern`` (re.search) fail,
        once ``after`` matching requests have been answered normally."""
        fault = Fault(
            re.compile(pattern), method, times, status, message, headers or {}, kind, delay
        )
        fault.after = after
        if kind == "barrier":
            fault.barrier = threading.Barrier(times)
        with self.lock:
            self.faults.append(fault)
        return fault

    def hold_together(self, pattern: str, parties: int = 2, method: str | None = None) -> Fault:
        """Hold the next ``parties`` matching requests until all have arrived (a race, on demand)."""
        return self.inject(pattern, method=method, times=parties, kind="barrier")

    def inject_secondary_rate_limit(self, pattern: str, retry_after: int = 0, **kw: Any) -> Fault:
        return self.inject(
            pattern,
            status=403,
            message=SECONDARY_RATE_LIMIT,
            headers={"Retry-After": str(retry_after)},
            **kw,
        )

    def inject_primary_rate_limit(self, pattern: str, reset_in: int = 0, **kw: Any) -> Fault:
        reset = int(time.time()) + reset_in
        return self.inject(
            pattern,
            status=403,
            message=PRIMARY_RATE_LIMIT,
            headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)},
            **kw,
        )

    def api_requests(
        self, method: str | None = None, pattern: str | None = None
    ) -> list[RecordedRequest]:
        """Requests that reached the API server, optionally filtered by method and path regex."""
        with self.lock:
            found = [r for r in self.requests if r.host == "api"]
        if method:
            found = [r for r in found if r.method == method]
        if pattern:
            found = [r for r in found if re.search(pattern, r.path)]
        return found

    def assert_clean(self) -> None:
        """Fail when any request broke GitHub's description or leaked the token elsewhere."""
        assert not self.violations, "fake GitHub saw bad requests:\n" + "\n".join(self.violations)

    # ----- HTTP plumbing -------------------------------------------------------------------

    def _read(self, handler: BaseHTTPRequestHandler) -> tuple[str, dict[str, list[str]], bytes]:
        split = urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        return split.path, parse_qs(split.query, keep_blank_values=True), body

    def _record(self, host: str, handler: BaseHTTPRequestHandler, method: str) -> RecordedRequest:
        path, query, body = self._read(handler)
        record = RecordedRequest(host, method, path, query, dict(handler.headers.items()), body)
        with self.lock:
            self.requests.append(record)
        return record

    def _violation(self, record: RecordedRequest, message: str) -> None:
        with self.lock:
            self.violations.append(f"{record.method} {record.path}: {message}")

    def _send(
        self, handler: BaseHTTPRequestHandler, status: int, payload: Any, headers: dict[str, str]
    ) -> None:
        if isinstance(payload, bytes):
            data = payload
            content_type = "application/zip"
        elif payload is None:
            data = b""
            content_type = "application/json; charset=utf-8"
        else:
            data = json.dumps(payload).encode()
            content_type = "application/json; charset=utf-8"
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        rate = {
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Remaining": "4999",
            "X-RateLimit-Reset": str(int(time.time()) + 3600),
        }
        for name, value in {**rate, **headers}.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def _error_body(self, message: str) -> dict[str, str]:
        return {
            "message": message,
            "documentation_url": "https://docs.github.com/rest",
            "status": "",
        }

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if (
                    fault.times > 0
                    and fault.pattern.search(path)
                    and fault.method in (None, method)
                ):
                    if fault.after > 0:
                        fault.after -= 1
                        continue
                    fault.times -= 1
                    fault.hits += 1
                    return fault
        return None

    def _reset(self, handler: BaseHTTPRequestHandler) -> None:
        """Close the connection with a TCP RST and no answer."""
        handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        handler.close_connection = True
        handler.connection.close()

    def _handle_api(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        record = self._record("api", handler, method)
        status, payload, headers = self._answer(record, handler)
        record.status = status
        if status == -1:
            self._reset(handler)
            return
        self._send(handler, status, payload, headers)

    @property
    def graphql_path(self) -> str:
        """Where GraphQL is: ``/graphql``, or ``/api/graphql`` for a GHES ``/api/v3`` prefix."""
        return self.prefix.removesuffix("/v3") + "/graphql"

    def _answer(self, record: RecordedRequest, handler: BaseHTTPRequestHandler) -> Response:
        path = record.path
        if path == self.graphql_path:
            return self._graphql(record)
        if self.prefix:
            if not path.startswith(self.prefix + "/"):
                self._violation(record, f"outside the API prefix {self.prefix}")
                return 404, self._error_body("Not Found"), {}
            path = path[len(self.prefix) :]
        try:
            match = self.contract.match(record.method, path)
            record.operation = match.operation.key
            body = self.contract.check(
                match, record.query, record.body, record.headers.get("Content-Type", "")
            )
        except ContractError as exc:
            self._violation(record, exc.message)
            return exc.status, self._error_body(exc.message), {}
        token = self._authenticate(record)
        if isinstance(token, tuple):
            return token
        fault = self._take_fault(record.method, path)
        if fault is not None:
            if fault.kind == "reset":
                return -1, None, {}
            if fault.kind == "hang":
                self._stopping.wait(fault.delay)
                return -1, None, {}
            if fault.kind == "stall":
                self._stopping.wait(fault.delay)
            elif fault.kind == "barrier":
                assert fault.barrier is not None
                fault.barrier.wait(timeout=10)
            else:
                return fault.status, self._error_body(fault.message), dict(fault.headers)
        return self._dispatch(match, token, record, path, body)

    def _graphql(self, record: RecordedRequest) -> Response:
        record.operation = "POST /graphql"
        token = self._authenticate(record)
        if isinstance(token, tuple):
            return token
        fault = self._take_fault(record.method, record.path)
        if fault is not None and fault.kind == "status":
            return fault.status, self._error_body(fault.message), dict(fault.headers)
        if record.method != "POST":
            self._violation(record, "GraphQL takes POST only")
            return 404, self._error_body("Not Found"), {}
        try:
            document = json.loads(record.body)
            query, variables = document["query"], document.get("variables") or {}
        except (ValueError, KeyError, TypeError):
            self._violation(record, "GraphQL body is not {query, variables}")
            return 400, {"message": "Problems parsing JSON"}, {}
        if "minimizeComment(" not in query or set(variables) != {"id", "classifier"}:
            self._violation(record, f"unexpected GraphQL document: {query[:200]!r}")
            return 200, _graphql_error("UNKNOWN", "the fake answers minimizeComment only"), {}
        with self.lock:
            return 200, self._minimize(token, variables["id"], variables["classifier"]), {}

    def _minimize(self, token: Token, node_id: str, classifier: str) -> dict[str, Any]:
        if classifier not in MINIMIZE_CLASSIFIERS:
            return _graphql_error("INVALID", f"classifier {classifier!r} is not valid")
        found = [
            c for r in self.repos.values() for c in r.comments.values() if c.node_id == node_id
        ]
        if not found:
            return _graphql_error(
                "NOT_FOUND", f"Could not resolve to a node with the global id of '{node_id}'"
            )
        comment = found[0]
        if token.read_only or comment.user != token.login:
            return _graphql_error("FORBIDDEN", NOT_ACCESSIBLE)
        comment.minimized_reason = classifier.lower()
        minimized = {"isMinimized": True, "minimizedReason": comment.minimized_reason}
        return {"data": {"minimizeComment": {"minimizedComment": minimized}}}

    def _authenticate(self, record: RecordedRequest) -> Token | Response:
        header = record.headers.get("Authorization", "")
        if not header:
            self._violation(record, "no Authorization header")
            return 401, self._error_body("Requires authentication"), {}
        scheme, _, value = header.partition(" ")
        token = self.tokens.get(value) if scheme.lower() in {"token", "bearer"} else None
        if token is None:
            self._violation(record, "unknown token in Authorization header")
            return 401, self._error_body("Bad credentials"), {}
        return token

    def _dispatch(
        self, match: Match, token: Token, record: RecordedRequest, path: str, body: Any
    ) -> Response:
        op = match.operation
        repo = None
        if "owner" in match.path_params:
            repo = self.repos.get(f"{match.path_params['owner']}/{match.path_params['repo']}")
            if repo is None:
                return 404, self._error_body("Not Found"), {}
        if token.read_only and op.method != "GET":
            return 403, self._error_body(NOT_ACCESSIBLE), {}
        ctx = Ctx(match, repo, token, record.query, body, path)
        try:
            with self.lock:
                status, payload, headers = self._handlers[op.operation_id](ctx)
        except HttpError as exc:
            return exc.status, self._error_body(exc.message), exc.headers
        if status < 400 and status not in op.responses:
            self._violation(record, f"fake answered {status}, not documented for {op.key}")
        problem = check_answer(op, status, payload)
        if problem:
            self._violation(record, problem)
        return status, payload, headers

    def _handle_storage(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        record = self._record("storage", handler, method)
        if "Authorization" in record.headers:
            self._violation(record, "Authorization header sent to the artifact storage host")
        key = record.path.rsplit("/", 1)[-1]
        with self.lock:
            found = self._blob_keys.get(key)
            artifact = None
            if found is not None:
                artifact = self.repos[found[0]].artifacts.get(found[1])
        if method != "GET" or artifact is None:
            record.status = 404
            self._send(handler, 404, b"", {})
            return
        record.status = 200
        self._send(handler, 200, artifact.zip_bytes, {})

    # ----- JSON shapes ---------------------------------------------------------------------

    def _repo_url(self, repo: Repo) -> str:
        return f"{self.url}/repos/{repo.full_name}"

    def _user_json(self, login: str, user_type: str = "User") -> dict[str, Any]:
        return {
            "login": login,
            "id": 41898282 if login == BOT_LOGIN else abs(hash(login)) % 10_000_000,
            "type": user_type,
            "url": f"{self.url}/users/{quote(login)}",
            "html_url": f"https://github.com/{quote(login)}",
            "site_admin": False,
        }

    def repo_id(self, full_name: str) -> int:
        """The id of a repository of the fake, or a stable one for a fork it does not hold."""
        known = self.repos.get(full_name)
        return known.id if known else int(sha1_hex(full_name.encode())[:7], 16)

    def _repo_json(self, repo: Repo) -> dict[str, Any]:
        return {
            "id": repo.id,
            "name": repo.name,
            "full_name": repo.full_name,
            "owner": self._user_json(repo.owner, "Organization"),
            "private": repo.private,
            "default_branch": repo.default_branch,
            "url": self._repo_url(repo),
            "html_url": f"https://github.com/{repo.full_name}",
            "fork": False,
        }

    def _pull_json(self, repo: Repo, pull: Pull) -> dict[str, Any]:
        base_sha = repo.refs.get(f"heads/{pull.base_ref}")
        head_repo = self.repos.get(pull.head_repo)
        head_repo_json = (
            self._repo_json(head_repo) if head_repo else {"full_name": pull.head_repo, "fork": True}
        )
        return {
            "id": pull.number + 900000,
            "number": pull.number,
            "state": pull.state,
            "title": pull.title,
            "user": self._user_json(pull.user),
            "url": f"{self._repo_url(repo)}/pulls/{pull.number}",
            "html_url": f"https://github.com/{repo.full_name}/pull/{pull.number}",
            "issue_url": f"{self._repo_url(repo)}/issues/{pull.number}",
            "head": {
                "ref": pull.head_ref,
                "sha": pull.head_sha,
                "label": f"{pull.head_repo.split('/')[0]}:{pull.head_ref}",
                "repo": head_repo_json,
            },
            "base": {
                "ref": pull.base_ref,
                "sha": base_sha,
                "label": f"{repo.owner}:{pull.base_ref}",
                "repo": self._repo_json(repo),
            },
            "draft": False,
            "merged": False,
        }

    def _comment_json(self, repo: Repo, comment: Comment) -> dict[str, Any]:
        return {
            "id": comment.id,
            "node_id": comment.node_id,
            "body": comment.body,
            "user": self._user_json(comment.user, comment.user_type),
            "url": f"{self._repo_url(repo)}/issues/comments/{comment.id}",
            "html_url": f"https://github.com/{repo.full_name}/pull/{comment.issue_number}#issuecomment-{comment.id}",
            "issue_url": f"{self._repo_url(repo)}/issues/{comment.issue_number}",
            "created_at": iso(comment.created_at),
            "updated_at": iso(comment.updated_at),
        }

    def _status_json(self, repo: Repo, status: Status) -> dict[str, Any]:
        return {
            "id": status.id,
            "url": f"{self._repo_url(repo)}/statuses/{status.sha}",
            "state": status.state,
            "context": status.context,
            "description": status.description,
            "target_url": status.target_url,
            "creator": self._user_json(status.creator, "Bot"),
            "created_at": iso(status.created_at),
            "updated_at": iso(status.created_at),
        }

    def _commit_json(self, repo: Repo, commit: GitCommit) -> dict[str, Any]:
        person = {"name": "Octo Cat", "email": "octocat@example.com", "date": iso(commit.date)}
        return {
            "sha": commit.sha,
            "url": f"{self._repo_url(repo)}/commits/{commit.sha}",
            "html_url": f"https://github.com/{repo.full_name}/commit/{commit.sha}",
            "commit": {
                "message": commit.message,
                "author": person,
                "committer": person,
                "tree": {"sha": self.store_tree(repo, commit.tree)},
                "url": f"{self._repo_url(repo)}/git/commits/{commit.sha}",
            },
            "parents": [
                {"sha": p, "url": f"{self._repo_url(repo)}/commits/{p}"} for p in commit.parents
            ],
        }

    def _git_commit_json(self, repo: Repo, commit: GitCommit) -> dict[str, Any]:
        person = {"name": "Octo Cat", "email": "octocat@example.com", "date": iso(commit.date)}
        return {
            "sha": commit.sha,
            "url": f"{self._repo_url(repo)}/git/commits/{commit.sha}",
            "message": commit.message,
            "author": person,
            "committer": person,
            "tree": {"sha": self.store_tree(repo, commit.tree), "url": ""},
            "parents": [{"sha": p} for p in commit.parents],
        }

    def _ref_json(self, repo: Repo, name: str) -> dict[str, Any]:
        sha = repo.refs[name]
        return {
            "ref": f"refs/{name}",
            "url": f"{self._repo_url(repo)}/git/refs/{name}",
            "object": {
                "sha": sha,
                "type": "commit",
                "url": f"{self._repo_url(repo)}/git/commits/{sha}",
            },
        }

    def _content_json(self, repo: Repo, path: str, sha: str, ref: str) -> dict[str, Any]:
        content = repo.blobs[sha]
        encoding, wrapped = "base64", wrap_base64(content)
        if len(content) > self.inline_limit:
            encoding, wrapped = "none", ""
        url = f"{self._repo_url(repo)}/contents/{quote(path)}?ref={quote(ref, safe='')}"
        return {
            "type": "file",
            "encoding": encoding,
            "size": len(content),
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "content": wrapped,
            "sha": sha,
            "url": url,
            "git_url": f"{self._repo_url(repo)}/git/blobs/{sha}",
            "html_url": f"https://github.com/{repo.full_name}/blob/{ref}/{path}",
            "download_url": f"https://raw.githubusercontent.com/{repo.full_name}/{ref}/{path}",
            "_links": {
                "self": url,
                "git": f"{self._repo_url(repo)}/git/blobs/{sha}",
                "html": f"https://github.com/{repo.full_name}/blob/{ref}/{path}",
            },
        }

    def _run_json(self, repo: Repo, run: WorkflowRun) -> dict[str, Any]:
        head_repo = self.repos.get(run.head_repo)
        return {
            "id": run.id,
            "name": run.name,
            "workflow_id": run.workflow_id,
            "head_branch": run.head_branch,
            "head_sha": run.head_sha,
            "event": run.event,
            "status": run.status,
            "conclusion": run.conclusion,
            "run_number": run.id % 1000,
            "created_at": iso(run.created_at),
            "updated_at": iso(run.created_at),
            "url": f"{self._repo_url(repo)}/actions/runs/{run.id}",
            "html_url": f"https://github.com/{repo.full_name}/actions/runs/{run.id}",
            "artifacts_url": f"{self._repo_url(repo)}/actions/runs/{run.id}/artifacts",
            "pull_requests": [
                {"number": n, "head": {"sha": run.head_sha}} for n in run.pull_requests
            ],
            "repository": self._repo_json(repo),
            "head_repository": self._repo_json(head_repo)
            if head_repo
            else {"full_name": run.head_repo},
        }

    def _artifact_json(self, repo: Repo, artifact: Artifact) -> dict[str, Any]:
        run = repo.runs[artifact.run_id]
        url = f"{self._repo_url(repo)}/actions/artifacts/{artifact.id}"
        return {
            "id": artifact.id,
            "name": artifact.name,
            "size_in_bytes": len(artifact.zip_bytes),
            "url": url,
            "archive_download_url": f"{url}/zip",
            "expired": artifact.expired,
            "created_at": iso(run.created_at),
            "expires_at": iso(run.created_at + timedelta(days=90)),
            "updated_at": iso(run.created_at),
            "workflow_run": {
                "id": run.id,
                "repository_id": repo.id,
                "head_repository_id": self.repo_id(run.head_repo),
                "head_branch": run.head_branch,
                "head_sha": run.head_sha,
            },
        }

    # ----- pagination ----------------------------------------------------------------------

    def _page(self, ctx: Ctx, items: list[Any]) -> tuple[list[Any], dict[str, str]]:
        """Slice ``items`` by page/per_page (max 100) and build GitHub's Link header."""
        per_page = min(int(ctx.q("per_page", "30") or 30), 100)
        page = max(int(ctx.q("page", "1") or 1), 1)
        last = max((len(items) + per_page - 1) // per_page, 1)
        chunk = items[(page - 1) * per_page : page * per_page]
        links = []

        def link(n: int, rel: str) -> str:
            query = {k: v[-1] for k, v in ctx.query.items()}
            query.update(page=str(n), per_page=str(per_page))
            return f'<{self.url}{ctx.path}?{urlencode(query)}>; rel="{rel}"'

        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links += [link(1, "first"), link(page - 1, "prev")]
        return chunk, ({"Link": ", ".join(links)} if links else {})

    # ----- handlers (by operationId) -------------------------------------------------------

    def _handler_table(self) -> dict[str, Callable[[Ctx], Response]]:
        return {
            "users/get-authenticated": self._get_user,
            "repos/get": self._get_repo,
            "pulls/get": self._get_pull,
            "repos/list-pull-requests-associated-with-commit": self._pulls_for_commit,
            "repos/get-commit": self._get_commit,
            "issues/list-comments": self._list_comments,
            "issues/create-comment": self._create_comment,
            "issues/get-comment": self._get_comment,
            "issues/update-comment": self._update_comment,
            "issues/delete-comment": self._delete_comment,
            "repos/create-commit-status": self._create_status,
            "repos/get-combined-status-for-ref": self._combined_status,
            "repos/list-commit-statuses-for-ref": self._list_statuses,
            "repos/compare-commits-with-basehead": self._compare,
            "repos/get-collaborator-permission-level": self._permission,
            "repos/get-content": self._get_content,
            "repos/create-or-update-file-contents": self._put_content,
            "git/get-ref": self._get_ref,
            "git/create-ref": self._create_ref,
            "git/update-ref": self._update_ref,
            "git/get-blob": self._get_blob,
            "git/create-tree": self._create_tree,
            "git/create-commit": self._create_git_commit,
            "actions/list-workflow-runs-for-repo": self._list_runs,
            "actions/get-workflow-run": self._get_run,
            "actions/list-workflow-runs": self._list_runs,
            "actions/list-workflow-run-artifacts": self._list_run_artifacts,
            "actions/list-artifacts-for-repo": self._list_artifacts,
            "actions/get-artifact": self._get_artifact,
            "actions/download-artifact": self._download_artifact,
        }

    def _resolve(self, repo: Repo, ref: str) -> GitCommit:
        """A branch name, ``refs/heads/x``, ``heads/x`` or a (possibly short) commit sha."""
        for name in (f"heads/{ref}", ref.removeprefix("refs/")):
            if name in repo.refs:
                return repo.commits[repo.refs[name]]
        if ref in repo.commits:
            return repo.commits[ref]
        if len(ref) >= 7:
            found = [c for sha, c in repo.commits.items() if sha.startswith(ref)]
            if len(found) == 1:
                return found[0]
        raise HttpError(404, f"No commit found for the ref {ref}")

    def _get_user(self, ctx: Ctx) -> Response:
        if ctx.token.installation:
            raise HttpError(403, NOT_ACCESSIBLE)
        return 200, self._user_json(ctx.token.login, ctx.token.user_type), {}

    def _get_repo(self, ctx: Ctx) -> Response:
        assert ctx.repo is not None
        return 200, self._repo_json(ctx.repo), {}

    def _pull(self, ctx: Ctx) -> Pull:
        assert ctx.repo is not None
        pull = ctx.repo.pulls.get(int(ctx.param("pull_number")))
        if pull is None:
            raise HttpError(404, "Not Found")
        return pull

    def _get_pull(self, ctx: Ctx) -> Response:
        assert ctx.repo is not None
        return 200, self._pull_json(ctx.repo, self._pull(ctx)), {}

    def _pulls_for_commit(self, ctx: Ctx) -> Response:
        repo = ctx.repo
        assert repo is not None
        sha = self._resolve(repo, ctx.param("commit_sha")).sha
        pulls = [p for p in repo.pulls.values() if sha in self._ancestors(repo, p.head_sha)]
        pulls = [p for p in pulls if p.head_sha == sha] or pulls
        simple = [without(self._pull_json(repo, p), "merged") for p in pulls]
        items, headers = self._page(ctx, simple)
        return 200, items, headers

    def _get_commit(self, ctx: Ctx) -> Response:
        assert ctx.repo is not None
        return 200, self._commit_json(ctx.repo, self._resolve(ctx.repo, ctx.param("ref"))), {}

    def _issue_comments(self, ctx: Ctx) -> tuple[Repo, int]:
        repo = ctx.repo
        assert repo is not None
        number = int(ctx.param("issue_number"))
        if number not in repo.pulls:
            raise HttpError(404, "Not Found")
        return repo, number

    def _list_comments(self, ctx: Ctx) -> Response:
        repo, number = self._issue_comments(ctx)
        found = sorted(
            (c for c in repo.comments.values() if c.issue_number == number), key=lambda c: c.id
        )
        items, headers = self._page(ctx, [self._comment_json(repo, c) for c in found])
        return 200, items, headers

    def _create_comment(self, ctx: Ctx) -> Response:
        repo, number = self._issue_comments(ctx)
        body = ctx.body["body"]
        if len(body) > 65536:
            raise HttpError(
                422, "Validation Failed: body is too long (maximum is 65536 characters)"
            )
        comment = self.add_comment(repo, number, body, ctx.token.login, ctx.token.user_type)
        return 201, self._comment_json(repo, comment), {}

    def _comment(self, ctx: Ctx) -> Comment:
        assert ctx.repo is not None
        comment = ctx.repo.comments.get(int(ctx.param("comment_id")))
        if comment is None:
            raise HttpError(404, "Not Found")
        return comment

    def _get_comment(self, ctx: Ctx) -> Response:
        assert ctx.repo is not None
        return 200, self._comment_json(ctx.repo, self._comment(ctx)), {}

    def _update_comment(self, ctx: Ctx) -> Response:
        assert ctx.repo is not None
        comment = self._comment(ctx)
        if comment.user != ctx.token.login:
            raise HttpError(403, "You must be the author of the comment to edit it")
        if len(ctx.body["body"]) > 65536:
            raise HttpError(
                422, "Validation Failed: body is too long (maximum is 65536 characters)"
            )
        comment.body = ctx.body["body"]
        comment.updated_at = self.tick(1)
        return 200, self._comment_json(ctx.repo, comment), {}

    def _delete_comment(self, ctx: Ctx) -> Response:
        assert ctx.repo is not None
        comment = self._comment(ctx)
        del ctx.repo.comments[comment.id]
        return 204, None, {}

    def _create_status(self, ctx: Ctx) -> Response:
        repo = ctx.repo
        assert repo is not None
        sha = ctx.param("sha")
        if sha not in repo.commits:
            raise HttpError(422, f"No commit found for SHA: {sha}")
        description = ctx.body.get("description")
        if description is not None and len(description) > 140:
            raise HttpError(
                422, "Validation Failed: description is too long (maximum is 140 characters)"
            )
        status = Status(
            id=self.new_id(),
            sha=sha,
            state=ctx.body["state"],
            context=ctx.body.get("context", "default"),
            description=description,
            target_url=ctx.body.get("target_url"),
            creator=ctx.token.login,
            created_at=self.tick(1),
        )
        repo.statuses.append(status)
        return 201, self._status_json(repo, status), {}

    def latest_statuses(self, repo: Repo, sha: str) -> dict[str, Status]:
        """The newest status per context on ``sha``, as GitHub's combined status shows."""
        latest: dict[str, Status] = {}
        for status in repo.statuses:
            if status.sha == sha:
                latest[status.context] = status
        return latest

    def _combined_status(self, ctx: Ctx) -> Response:
        repo = ctx.repo
        assert repo is not None
        commit = self._resolve(repo, ctx.param("ref"))
        latest = list(self.latest_statuses(repo, commit.sha).values())
        states = {s.state for s in latest}
        state = (
            "failure"
            if states & {"failure", "error"}
            else "pending"
            if "pending" in states or not states
            else "success"
        )
        simple = [without(self._status_json(repo, s), "creator") for s in latest]
        items, headers = self._page(ctx, simple)
        return (
            200,
            {
                "state": state,
                "sha": commit.sha,
                "total_count": len(latest),
                "statuses": items,
                "repository": self._repo_json(repo),
                "commit_url": f"{self._repo_url(repo)}/commits/{commit.sha}",
                "url": f"{self._repo_url(repo)}/commits/{commit.sha}/status",
            },
            headers,
        )

    def _list_statuses(self, ctx: Ctx) -> Response:
        repo = ctx.repo
        assert repo is not None
        sha = self._resolve(repo, ctx.param("ref")).sha
        found = [s for s in reversed(repo.statuses) if s.sha == sha]
        items, headers = self._page(ctx, [self._status_json(repo, s) for s in found])
        return 200, items, headers

    def _ancestors(self, repo: Repo, sha: str) -> list[str]:
        """``sha`` and its ancestors, nearest first (breadth first)."""
        seen: list[str] = []
        queue = [sha]
        while queue:
            current = queue.pop(0)
            if current in seen:
                continue
            seen.append(current)
            queue.extend(repo.commits[current].parents)
        return seen

    def _compare(self, ctx: Ctx) -> Response:
        repo = ctx.repo
        assert repo is not None
        base_name, sep, head_name = ctx.param("basehead").partition("...")
        if not sep:
            raise HttpError(404, "Not Found")
        base = self._resolve(repo, base_name)
        head = self._resolve(repo, head_name)
        head_line = self._ancestors(repo, head.sha)
        base_line = set(self._ancestors(repo, base.sha))
        merge_base = next((sha for sha in head_line if sha in base_line), None)
        if merge_base is None:
            raise HttpError(404, f"No common ancestor between {base_name} and {head_name}.")
        ahead = [sha for sha in head_line if sha not in base_line]
        behind = [sha for sha in self._ancestors(repo, base.sha) if sha not in set(head_line)]
        status = (
            "identical"
            if not ahead and not behind
            else "ahead"
            if not behind
            else "behind"
            if not ahead
            else "diverged"
        )
        return (
            200,
            {
                "url": f"{self._repo_url(repo)}/compare/{base_name}...{head_name}",
                "html_url": f"https://github.com/{repo.full_name}/compare/{base_name}...{head_name}",
                "status": status,
                "ahead_by": len(ahead),
                "behind_by": len(behind),
                "total_commits": len(ahead),
                "base_commit": self._commit_json(repo, base),
                "merge_base_commit": self._commit_json(repo, repo.commits[merge_base]),
                "commits": [self._commit_json(repo, repo.commits[sha]) for sha in reversed(ahead)],
                "files": [],
            },
            {},
        )

    def _permission(self, ctx: Ctx) -> Response:
        """GitHub folds the role into admin/write/read/none: maintain is write, triage read."""
        assert ctx.repo is not None
        login = ctx.param("username")
        role = ctx.repo.roles.get(login, "none")
        permission = {"maintain": "write", "triage": "read"}.get(role, role)
        user = {
            **self._user_json(login),
            "node_id": f"U_{login}",
            "avatar_url": f"https://avatars.example/{quote(login)}",
            "gravatar_id": "",
            "role_name": role,
            **{
                f"{name}_url": f"{self.url}/users/{quote(login)}/{name}"
                for name in (
                    "events",
                    "followers",
                    "following",
                    "gists",
                    "organizations",
                    "received_events",
                    "repos",
                    "starred",
                    "subscriptions",
                )
            },
        }
        return 200, {"permission": permission, "role_name": role, "user": user}, {}

    def _get_content(self, ctx: Ctx) -> Response:
        repo = ctx.repo
        assert repo is not None
        ref = ctx.q("ref") or repo.default_branch
        commit = self._resolve(repo, ref)
        path = ctx.param("path")
        sha = commit.tree.get(path)
        if sha is None:
            raise HttpError(404, "Not Found")
        return 200, self._content_json(repo, path, sha, ref), {}

    def _put_content(self, ctx: Ctx) -> Response:
        repo = ctx.repo
        assert repo is not None
        path = ctx.param("path")
        branch = ctx.body.get("branch") or repo.default_branch
        head = repo.refs.get(f"heads/{branch}")
        if head is None:
            raise HttpError(404, f"Branch {branch} not found")
        try:
            content = base64.b64decode(ctx.body["content"], validate=True)
        except ValueError:
            raise HttpError(422, "content is not valid Base64") from None
        current = repo.commits[head].tree.get(path)
        given = ctx.body.get("sha")
        if current is not None and given is None:
            raise HttpError(422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
        if given is not None and given != current:
            raise HttpError(409, f"{path} does not match {given}")
        new = self.commit(repo, branch, {path: content}, ctx.body["message"])
        return (
            (201 if current is None else 200),
            {
                "content": without(
                    self._content_json(repo, path, new.tree[path], branch), "content", "encoding"
                ),
                "commit": self._git_commit_json(repo, new),
            },
            {},
        )

    def _ref_name(self, ctx: Ctx) -> str:
        return ctx.param("ref").removeprefix("refs/")

    def _get_ref(self, ctx: Ctx) -> Response:
        assert ctx.repo is not None
        name = self._ref_name(ctx)
        if name not in ctx.repo.refs:
            raise HttpError(404, "Not Found")
        return 200, self._ref_json(ctx.repo, name), {}

    def _create_ref(self, ctx: Ctx) -> Response:
        repo = ctx.repo
        assert repo is not None
        ref, sha = ctx.body["ref"], ctx.body["sha"]
        if not ref.startswith("refs/") or ref.count("/") < 2:
            raise HttpError(422, f"{ref} is not a valid ref name.")
        name = ref.removeprefix("refs/")
        if name in repo.refs:
            raise HttpError(422, "Reference already exists")
        if sha not in repo.commits:
            raise HttpError(422, "Object does not exist")
        repo.refs[name] = sha
        return 201, self._ref_json(repo, name), {}

    def _update_ref(self, ctx: Ctx) -> Response:
        repo = ctx.repo
        assert repo is not None
        name = self._ref_name(ctx)
        if name not in repo.refs:
            raise HttpError(422, "Reference does not exist")
        sha = ctx.body["sha"]
        if sha not in repo.commits:
            raise HttpError(422, "Object does not exist")
        if not ctx.body.get("force") and repo.refs[name] not in self._ancestors(repo, sha):
            raise HttpError(422, "Update is not a fast forward")
        repo.refs[name] = sha
        return 200, self._ref_json(repo, name), {}

    def _get_blob(self, ctx: Ctx) -> Response:
        repo = ctx.repo
        assert repo is not None
        sha = ctx.param("file_sha")
        content = repo.blobs.get(sha)
        if content is None:
            raise HttpError(404, "Not Found")
        return (
            200,
            {
                "sha": sha,
                "size": len(content),
                "encoding": "base64",
                "content": wrap_base64(content),
                "url": f"{self._repo_url(repo)}/git/blobs/{sha}",
            },
            {},
        )

    def _create_tree(self, ctx: Ctx) -> Response:
        repo = ctx.repo
        assert repo is not None
        files: dict[str, str] = {}
        base = ctx.body.get("base_tree")
        if base:
            if base not in repo.trees:
                raise HttpError(422, "base_tree is not a valid tree")
            files.update(repo.trees[base])
        for entry in ctx.body["tree"]:
            if entry.get("content") is not None:
                data = entry["content"].encode()
                repo.blobs[blob_sha(data)] = data
                files[entry["path"]] = blob_sha(data)
            elif entry.get("sha") is None:
                files.pop(entry["path"], None)
            elif entry["sha"] in repo.blobs:
                files[entry["path"]] = entry["sha"]
            else:
                raise HttpError(422, f"tree.sha {entry['sha']} is not a valid blob")
        sha = self.store_tree(repo, files)
        return (
            201,
            {
                "sha": sha,
                "url": f"{self._repo_url(repo)}/git/trees/{sha}",
                "tree": [
                    {"path": p, "mode": "100644", "type": "blob", "sha": s, "url": ""}
                    for p, s in sorted(files.items())
                ],
                "truncated": False,
            },
            {},
        )

    def _create_git_commit(self, ctx: Ctx) -> Response:
        repo = ctx.repo
        assert repo is not None
        tree = repo.trees.get(ctx.body["tree"])
        if tree is None:
            raise HttpError(422, "Tree SHA does not exist")
        parents = ctx.body.get("parents", [])
        if any(p not in repo.commits for p in parents):
            raise HttpError(422, "Parent SHA does not exist or is not a commit object")
        commit = self.make_commit(repo, tree, parents, ctx.body["message"])
        return 201, self._git_commit_json(repo, commit), {}

    def _runs(self, ctx: Ctx) -> Iterator[WorkflowRun]:
        repo = ctx.repo
        assert repo is not None
        workflow = ctx.match.path_params.get("workflow_id")
        completed_conclusions = {
            "success",
            "failure",
            "neutral",
            "cancelled",
            "skipped",
            "timed_out",
            "action_required",
            "stale",
        }
        status_filter = ctx.q("status")
        for run in sorted(repo.runs.values(), key=lambda r: r.created_at, reverse=True):
            if workflow is not None and str(run.workflow_id) != workflow and run.name != workflow:
                continue
            if ctx.q("branch") not in (None, run.head_branch):
                continue
            if ctx.q("event") not in (None, run.event):
                continue
            if ctx.q("head_sha") not in (None, run.head_sha):
                continue
            if status_filter is not None:
                if status_filter in completed_conclusions and run.conclusion != status_filter:
                    continue
                if status_filter not in completed_conclusions and run.status != status_filter:
                    continue
            yield run

    def _list_runs(self, ctx: Ctx) -> Response:
        repo = ctx.repo
        assert repo is not None
        runs = list(self._runs(ctx))
        items, headers = self._page(ctx, [self._run_json(repo, r) for r in runs])
        return 200, {"total_count": len(runs), "workflow_runs": items}, headers

    def _get_run(self, ctx: Ctx) -> Response:
        assert ctx.repo is not None
        run = ctx.repo.runs.get(int(ctx.param("run_id")))
        if run is None:
            raise HttpError(404, "Not Found")
        return 200, self._run_json(ctx.repo, run), {}

    def _artifact_list(self, ctx: Ctx, artifacts: list[Artifact]) -> Response:
        repo = ctx.repo
        assert repo is not None
        name = ctx.q("name")
        found = [a for a in artifacts if name in (None, a.name)]
        found.sort(key=lambda a: a.id, reverse=ctx.q("direction", "desc") != "asc")
        items, headers = self._page(ctx, [self._artifact_json(repo, a) for a in found])
        return 200, {"total_count": len(found), "artifacts": items}, headers

    def _list_run_artifacts(self, ctx: Ctx) -> Response:
        assert ctx.repo is not None
        run_id = int(ctx.param("run_id"))
        if run_id not in ctx.repo.runs:
            raise HttpError(404, "Not Found")
        return self._artifact_list(
            ctx, [a for a in ctx.repo.artifacts.values() if a.run_id == run_id]
        )

    def _list_artifacts(self, ctx: Ctx) -> Response:
        assert ctx.repo is not None
        return self._artifact_list(ctx, list(ctx.repo.artifacts.values()))

    def _artifact(self, ctx: Ctx) -> Artifact:
        assert ctx.repo is not None
        artifact = ctx.repo.artifacts.get(int(ctx.param("artifact_id")))
        if artifact is None:
            raise HttpError(404, "Not Found")
        return artifact

    def _get_artifact(self, ctx: Ctx) -> Response:
        assert ctx.repo is not None
        return 200, self._artifact_json(ctx.repo, self._artifact(ctx)), {}

    def _download_artifact(self, ctx: Ctx) -> Response:
        assert ctx.repo is not None
        artifact = self._artifact(ctx)
        if ctx.param("archive_format") != "zip":
            raise HttpError(404, "Not Found")
        if artifact.expired:
            raise HttpError(410, "Artifact has expired")
        key = hashlib.sha256(f"{artifact.id}:{self.new_id()}".encode()).hexdigest()[:32]
        self._blob_keys[key] = (ctx.repo.full_name, artifact.id)
        location = f"{self.storage_root}/artifacts/{key}"
        return 302, None, {"Location": location}
