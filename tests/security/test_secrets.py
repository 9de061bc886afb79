"""Secrets are masked, stay out of every file, and go only to their own host (SECURITY.md, 2).

Known values stand in for the GitHub token and the judge's API key; `ragguard ci` runs as
the action runs it (the CLI, GitHub's environment variables) against the fake GitHub and the
fake judge, and every file written and every line printed is searched for them. The transport
tests point each client at one loopback server that redirects to another (a different port,
then a different host name) and check what the second one received.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests
from ci_fixtures import REPOSITORY
from click.testing import CliRunner
from fake_github import BOT_LOGIN, FakeGitHub, Repo
from fake_openai import FakeOpenAI

from ragguard.ci.masks import ci_secrets, mask_secrets
from ragguard.cli.app import cli
from ragguard.github import GitHubClient, GitHubError, GitHubSettings
from ragguard.judge.client import JudgeClient, JudgeItem
from ragguard.metrics.settings import JudgeSettings
from ragguard.metrics.text import segment

TOKEN = "ghs_secretTokenForTheSecurityTest0001"
READ_ONLY_TOKEN = "ghs_secretReadOnlyForkToken00000002"
KEY = "sk-secret-judge-key-for-the-security-test"
KEY_VARIABLE = "RAGGUARD_SECURITY_JUDGE_KEY"

TESTSET = """\
- id: retry-429
  question: How should a client retry after a 429 response?
  relevant: [rate-limits]
- id: auth
  question: How do I authenticate?
  relevant: [auth]
"""
RATE = "After a 429 response, wait the seconds in the Retry-After header, then retry."
AUTH = "Send the API key in the Authorization header as a bearer token."


def _suite(root: Path, judge_url: str) -> Path:
    (root / "eval").mkdir(parents=True)
    (root / "eval" / "testset.yaml").write_text(TESTSET)
    lines = [
        {"id": "retry-429", "retrieved": [{"id": "rate-limits", "text": RATE}], "answer": RATE},
        {"id": "auth", "retrieved": [{"id": "auth", "text": AUTH}], "answer": AUTH},
    ]
    (root / "eval" / "run.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (root / "ragguard.yml").write_text(
        "suite: orders\ntestset: eval/testset.yaml\nsystem:\n  recorded: eval/run.jsonl\n"
        "metrics: [hit_rate@3, faithfulness]\nfaithfulness: {method: judge}\n"
        f"judge:\n  base_url: {judge_url}\n  model: m\n  api_key_env: {KEY_VARIABLE}\n"
        "  cache: judge-cache\n"
    )
    return root


def _run_ci_as_the_action_does(
    fake: FakeGitHub, root: Path, event: str, payload: dict, token: str
) -> tuple[int, str, str]:
    """`python -m ragguard ci` with the variables the runner and action.yml set."""
    event_path = root.parent / f"{event}.json"
    event_path.write_text(json.dumps(payload))
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_API_URL": fake.url,
        "GITHUB_SHA": payload.get("after", ""),
        "GITHUB_REF": payload.get("ref", ""),
        "GITHUB_RUN_ID": "77",
        "GITHUB_OUTPUT": str(root / "github-output"),
        "GITHUB_STEP_SUMMARY": str(root / "step-summary.md"),
        "GITHUB_TOKEN": "",
        "RAGGUARD_TOKEN": token,
        "RAGGUARD_TOKEN_IS_JOB_TOKEN": "true",
        "RAGGUARD_CONFIG": str(root / "ragguard.yml"),
        "RAGGUARD_RESULTS_DIR": str(root / "ragguard-results"),
        KEY_VARIABLE: KEY,
    }
    result = CliRunner().invoke(cli, ["ci"], env=env, prog_name="ragguard")
    return result.exit_code, result.stdout, result.stderr


def _every_file(folder: Path) -> Iterator[Path]:
    return (path for path in folder.rglob("*") if path.is_file())


@pytest.mark.e2e
def test_ci_masks_the_secrets_and_writes_them_nowhere(
    fake: FakeGitHub, fake_repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.add_token(TOKEN, BOT_LOGIN)
    fake.add_token(READ_ONLY_TOKEN, BOT_LOGIN, read_only=True)
    monkeypatch.chdir(tmp_path)
    repository = {"full_name": REPOSITORY, "default_branch": "main"}
    with FakeOpenAI() as judge:
        root = _suite(tmp_path / "repo", judge.base_url)
        push = {"ref": "refs/heads/main", "after": fake_repo.refs["heads/main"]}
        code, out, err = _run_ci_as_the_action_does(
            fake, root, "push", {**push, "repository": repository}, TOKEN
        )
        assert code == 0, err
        fake.branch_from(fake_repo, "patch-1", "main")
        fake.commit(fake_repo, "patch-1", {"prompt.txt": b"fork"}, "Fork change")
        pull = fake.add_pull(fake_repo, "patch-1", head_repo="someone/octo-repo")
        fork = {"full_name": "someone/octo-repo"}
        payload = {
            "number": pull.number,
            "pull_request": {
                "number": pull.number,
                "head": {"sha": pull.head_sha, "ref": "patch-1", "repo": fork},
                "base": {"ref": "main", "repo": {"full_name": REPOSITORY}},
            },
            "repository": repository,
        }
        fork_code, fork_out, fork_err = _run_ci_as_the_action_does(
            fake, root, "pull_request", payload, READ_ONLY_TOKEN
        )
        assert judge.requests and all(
            r.headers["Authorization"] == f"Bearer {KEY}" for r in judge.requests
        )
    assert fork_code == 0, fork_err
    # the masks come first, one per secret, before any other line
    assert out.splitlines()[:2] == sorted([f"::add-mask::{KEY}", f"::add-mask::{TOKEN}"])
    assert sorted(fork_out.splitlines()[:2]) == sorted(
        [f"::add-mask::{KEY}", f"::add-mask::{READ_ONLY_TOKEN}"]
    )
    written = list(_every_file(tmp_path))
    names = {path.name for path in written}
    assert {"results.json", "comment.md", "summary.md", "publish.json", "github-output"} <= names
    assert any("judge-cache" in path.parts for path in written)
    for path in written:
        content = path.read_bytes()
        for secret in (TOKEN, READ_ONLY_TOKEN, KEY):
            assert secret.encode() not in content, f"{secret[:8]}… in {path}"
    logged = "\n".join(
        line
        for text in (out, err, fork_out, fork_err)
        for line in text.splitlines()
        if not line.startswith("::add-mask::")
    )
    assert not any(secret in logged for secret in (TOKEN, READ_ONLY_TOKEN, KEY))
    saved = fake.file_at(fake_repo, "ragguard-data", "main/orders.json") or b""
    assert saved and all(s.encode() not in saved for s in (TOKEN, KEY))


def test_no_mask_is_announced_outside_actions(
    fake: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside GitHub Actions there is no runner to read ::add-mask::; it would echo the key."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv(KEY_VARIABLE, KEY)
    root = _suite(tmp_path / "repo", "http://127.0.0.1:9/v1")
    env = {
        "GITHUB_ACTIONS": "",
        "GITHUB_EVENT_NAME": "workflow_run",
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_API_URL": fake.url,
        "RAGGUARD_TOKEN": TOKEN,
        "RAGGUARD_CONFIG": str(root / "ragguard.yml"),
    }
    result = CliRunner().invoke(cli, ["ci"], env=env, prog_name="ragguard")
    assert result.exit_code == 2 and "workflow_run event" in result.stderr
    assert "::add-mask::" not in result.stdout and KEY not in result.output


def test_the_secrets_of_a_step_are_the_token_and_the_configured_judge_key(
    tmp_path: Path,
) -> None:
    root = _suite(tmp_path / "repo", "http://127.0.0.1:9/v1")
    config = root / "ragguard.yml"
    assert ci_secrets({KEY_VARIABLE: KEY}, TOKEN, config) == [TOKEN, KEY]
    assert ci_secrets({}, TOKEN, config) == [TOKEN]  # the run itself says the key is missing
    assert ci_secrets({KEY_VARIABLE: KEY}, TOKEN, tmp_path / "missing.yml") == [TOKEN]
    lines: list[str] = []
    assert mask_secrets([TOKEN, "a", None, "multi\nline-secret"], lines.append) == 3
    assert sorted(lines) == sorted(
        ["::add-mask::line-secret", "::add-mask::multi", f"::add-mask::{TOKEN}"]
    )


# ----- where the credentials go ------------------------------------------------------------


@dataclass
class Seen:
    path: str
    headers: dict[str, str]


@dataclass
class Loopback:
    """A loopback HTTP server that records each request and answers with ``answer``."""

    host: str
    answer: Callable[[BaseHTTPRequestHandler], tuple[int, dict[str, str], bytes]]
    seen: list[Seen] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    def __enter__(self) -> Loopback:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                owner.seen.append(Seen(self.path, dict(self.headers.items())))
                status, headers, body = owner.answer(self)
                self.send_response(status)
                for name, value in {**headers, "Content-Length": str(len(body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PATCH = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://{self.host}:{self.server.server_address[1]}"


def _failure_of(call: Callable[[], object]) -> BaseException | None:
    try:
        call()
    except Exception as exc:  # PyGithub's answer to a redirect is not one exception type
        return exc
    return None


def _ok(handler: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
    return 200, {"Content-Type": "application/json"}, b"{}"


def _redirect_to(target: Loopback, status: int) -> Callable:
    def answer(handler: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        return status, {"Location": target.url + handler.path}, b""

    return answer


def _credentials(seen: list[Seen]) -> list[str]:
    names = {"authorization", "api-key"}
    return [f"{s.path}: {k}" for s in seen for k in s.headers if k.lower() in names]


# The second server: the same host on another port, then another host name (both loopback).
ELSEWHERE = ("127.0.0.1", "localhost")


@pytest.mark.parametrize("host", ELSEWHERE)
def test_requests_itself_drops_authorization_but_not_other_headers_on_a_redirect(
    host: str,
) -> None:
    """Why the judge does not follow redirects: requests strips Authorization when the port
    or the host changes, but forwards any other header (Azure's api-key) unchanged."""
    with Loopback(host, _ok) as other, Loopback("127.0.0.1", _redirect_to(other, 307)) as first:
        headers = {"Authorization": f"Bearer {KEY}", "api-key": KEY}
        assert requests.get(first.url + "/x", headers=headers, timeout=5).status_code == 200
    assert [s.headers.get("Authorization") for s in other.seen] == [None]
    assert [s.headers.get("api-key") for s in other.seen] == [KEY]


def _judge_item() -> JudgeItem:
    segments = segment(AUTH)
    return JudgeItem("auth", "How do I authenticate?", segments, (("auth", AUTH),))


@pytest.mark.parametrize("host", ELSEWHERE)
@pytest.mark.parametrize("api_version", [None, "2024-06-01"])
@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_the_judge_key_never_leaves_the_judges_host(
    host: str, api_version: str | None, status: int
) -> None:
    with Loopback(host, _ok) as other, Loopback("127.0.0.1", _redirect_to(other, status)) as first:
        settings = JudgeSettings(
            first.url + "/v1", "m", cache_dir=None, max_retries=0, api_version=api_version
        )
        outcome = JudgeClient(settings, api_key=KEY).judge(_judge_item())
    assert other.seen == [] and len(first.seen) == 1
    assert outcome.verdict is None and f"HTTP {status} redirect" in (outcome.error or "")


def test_a_judge_error_page_that_echoes_the_key_is_redacted() -> None:
    def echo(handler: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        return 401, {}, f"invalid key: {handler.headers.get('Authorization')}".encode()

    with Loopback("127.0.0.1", echo) as judge:
        settings = JudgeSettings(judge.url + "/v1", "m", cache_dir=None, max_retries=0)
        outcome = JudgeClient(settings, api_key=KEY).judge(_judge_item())
    assert outcome.error and "invalid key: Bearer ***" in outcome.error
    assert KEY not in outcome.error


@pytest.mark.parametrize("host", ELSEWHERE)
@pytest.mark.parametrize("status", [301, 302, 307])
def test_the_github_token_never_leaves_the_api_host(host: str, status: int) -> None:
    """PyGithub does not let requests follow redirects, and refuses a 301 to another host or
    port; so a redirecting API answers with an error, and the other server sees no token.

    A 301 raises in PyGithub's requester; a 302 or 307 reaches ragguard as an empty object,
    which is reported as a one-line GitHubError naming the call."""
    with Loopback(host, _ok) as other, Loopback("127.0.0.1", _redirect_to(other, status)) as api:
        settings = GitHubSettings(
            token=TOKEN,
            repository=REPOSITORY,
            api_url=api.url,
            retries=0,
            seconds_between_requests=None,
            seconds_between_writes=None,
        )
        failure = _failure_of(lambda: GitHubClient(settings).pull(7))
    assert failure is not None  # the redirect was not followed to an answer
    if status != 301:
        assert isinstance(failure, GitHubError), repr(failure)
        assert "read pull request #7" in str(failure) and "\n" not in str(failure)
    assert _credentials(other.seen) == []
    assert [s.headers.get("Authorization") for s in api.seen] == [f"token {TOKEN}"]
