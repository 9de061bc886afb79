"""The system under test failing, seen from `ragguard ci`: each adapter's failure (an http
service's 5xx, timeout or reset; a command that crashes; a python function that raises) is
recorded on its question in results.json, scored 0 (never NaN, never dropped), listed in the
comment, and beyond ``max_error_rate`` makes the commit status ``error`` — never green."""

from __future__ import annotations

import json
import math
import socket
import struct
import sys
import textwrap
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from fake_github import FakeGitHub, Repo
from faults_fixtures import (
    AUTH,
    RATE,
    ci_collaborators,
    ci_settings,
    comments_on,
    left_behind,
    open_pull,
    pull_event,
    statuses_of,
    write_suite,
)

from ragguard.ci.glue import run_ci
from ragguard.core.exits import EXIT_ERROR, EXIT_OK
from ragguard.results.model import Results

ANSWERS = {"retry-429": ("rate-limits", RATE), "auth": ("auth", AUTH)}


class RagService(ThreadingHTTPServer):
    """A RAG service on loopback; ``script[question id]`` lists its next behaviours (the last
    one repeats): ``ok``, ``500``, ``429`` (Retry-After: 0), ``slow`` (past the timeout),
    ``reset`` (TCP reset, no answer)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), RagHandler)
        self.script: dict[str, list[str]] = {}
        self.asked: list[str] = []
        self.lock = threading.Lock()
        self.release = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/ask"

    def next_behaviour(self, qid: str) -> str:
        with self.lock:
            self.asked.append(qid)
            steps = self.script.get(qid) or ["ok"]
            return steps.pop(0) if len(steps) > 1 else steps[0]


class RagHandler(BaseHTTPRequestHandler):
    server: RagService
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        qid = str(body.get("id"))
        behaviour = self.server.next_behaviour(qid)
        if behaviour == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return
        if behaviour == "slow":
            self.server.release.wait(5)
        if behaviour == "500":
            self._send(500, {"detail": "index unavailable"})
        elif behaviour == "429":
            self._send(429, {"detail": "slow down"}, {"Retry-After": "0"})
        else:
            chunk, text = ANSWERS[qid]
            self._send(200, {"retrieved": [{"id": chunk, "text": text}], "answer": text})

    def _send(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def service() -> Iterator[RagService]:
    server = RagService()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.release.set()
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def run_pull_request(fake: FakeGitHub, repo: Repo, suite: Path) -> tuple[int, int]:
    """`ragguard ci` on a new pull request; its exit code and number."""
    number = open_pull(fake, repo)
    settings = ci_settings(fake, suite, "pull_request", pull_event(repo, number))
    return run_ci(settings, ci_collaborators(settings, [])).exit_code, number


def assert_failure_kept_and_shown(
    fake: FakeGitHub, repo: Repo, suite: Path, failed: str, error: str
) -> None:
    """``failed`` errored with ``error`` (a prefix); the other question was answered."""
    code, number = run_pull_request(fake, repo, suite)

    assert code == EXIT_ERROR
    assert statuses_of(repo, repo.pulls[number].head_sha) == ["pending", "error"]
    left = left_behind(suite)
    assert left.results is not None
    by_id = {q["id"]: q for q in left.results["questions"]}
    assert sorted(by_id) == sorted(ANSWERS)  # none dropped
    assert by_id[failed]["status"] == "error" and by_id[failed]["error"].startswith(error)
    assert set(by_id[failed]["metrics"].values()) == {0.0}
    # The failure exceeds max_error_rate (5% of 2 questions allows none), so the run stops
    # early: the other question is answered when a worker had taken it already, else it is
    # recorded as not run. Which one depends on scheduling; both are correct, neither a pass.
    others = [q for qid, q in by_id.items() if qid != failed]
    answered = [q for q in others if q["status"] == "ok"]
    not_run = [q for q in others if q["status"] == "error" and q["error"].startswith("not run")]
    assert len(answered) + len(not_run) == len(others)
    for summary in left.results["summary"].values():
        assert math.isfinite(summary["value"])
    hit_rate = left.results["summary"]["hit_rate@1"]["value"]
    assert hit_rate == len(answered) / len(by_id)  # a failure, or not run, counts as 0
    assert left.outputs["verdict"] == "error" and left.outputs["status"] == "error"
    [posted] = comments_on(repo, number)
    failures = 1 + len(not_run)
    assert "**error**" in posted
    assert f"Questions that could not be evaluated ({failures})" in posted
    assert left.comment is not None and failed.replace("-", "\\-") in left.comment


HTTP_FAULTS = {
    "5xx": (["500"], "HTTP 500 Internal Server Error"),
    "timeout": (["slow"], "timed out after 0.3s"),
    "reset": (["reset"], "connection failed: "),
}


@pytest.mark.parametrize("fault", HTTP_FAULTS)
def test_an_http_service_that_keeps_failing_is_an_error_on_that_question(
    fake: FakeGitHub, repo: Repo, tmp_path: Path, service: RagService, fault: str
) -> None:
    script, error = HTTP_FAULTS[fault]
    service.script = {"auth": list(script)}
    suite = write_suite(tmp_path / "repo", f"http: {service.url}\ntimeout: 300ms\nretries: 0")
    assert_failure_kept_and_shown(fake, repo, suite, "auth", error)


@pytest.mark.parametrize("fault", ["500", "429", "reset"])
def test_an_http_service_that_recovers_is_retried_and_passes(
    fake: FakeGitHub, repo: Repo, tmp_path: Path, service: RagService, fault: str
) -> None:
    service.script = {"auth": [fault, "ok"]}
    suite = write_suite(tmp_path / "repo", f"http: {service.url}\nretries: 1")

    code, number = run_pull_request(fake, repo, suite)

    assert code == EXIT_OK
    assert service.asked.count("auth") == 2
    assert statuses_of(repo, repo.pulls[number].head_sha) == ["pending", "success"]
    results = left_behind(suite).results
    assert results is not None and {q["status"] for q in results["questions"]} == {"ok"}


def test_a_command_that_crashes_fails_the_questions_it_did_not_answer(
    fake: FakeGitHub, repo: Repo, tmp_path: Path
) -> None:
    suite = write_suite(tmp_path / "repo")
    first = json.dumps(
        {"id": "retry-429", "retrieved": [{"id": "rate-limits", "text": RATE}], "answer": RATE}
    )
    (suite / "crash.py").write_text(
        textwrap.dedent(
            f"""\
            import sys
            sys.stdin.readline()
            print({first!r}, flush=True)
            raise RuntimeError("index file missing")
            """
        ),
        encoding="utf-8",
    )
    config = suite / "ragguard.yml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "recorded: eval/run.jsonl", f"command: [{json.dumps(sys.executable)}, crash.py]"
        ),
        encoding="utf-8",
    )
    assert_failure_kept_and_shown(
        fake, repo, suite, "auth", "command exited with status 1: RuntimeError: index file missing"
    )


def test_a_python_function_that_raises_fails_that_question(
    fake: FakeGitHub, repo: Repo, tmp_path: Path
) -> None:
    suite = write_suite(tmp_path / "repo")
    module = f"rag_{uuid.uuid4().hex[:10]}"
    (suite / f"{module}.py").write_text(
        textwrap.dedent(
            f"""\
            def answer(question, id):
                if id == "retry-429":
                    raise ConnectionAbortedError("vector store went away")
                return {{"retrieved": [{{"id": "auth", "text": {AUTH!r}}}], "answer": {AUTH!r}}}
            """
        ),
        encoding="utf-8",
    )
    config = suite / "ragguard.yml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "recorded: eval/run.jsonl", f"python: {module}:answer\n  retries: 0"
        ),
        encoding="utf-8",
    )
    try:
        assert_failure_kept_and_shown(
            fake, repo, suite, "retry-429", "ConnectionAbortedError: vector store went away"
        )
    finally:
        sys.modules.pop(module, None)


def test_an_evaluation_that_crashes_reports_no_stale_files_of_an_earlier_run(
    fake: FakeGitHub, repo: Repo, suite: Path
) -> None:
    run_pull_request(fake, repo, suite)  # an earlier run left results.json and comment.md
    (suite / "github-output").unlink()
    number = open_pull(fake, repo, branch="second")
    settings = ci_settings(fake, suite, "pull_request", pull_event(repo, number))

    def crash(*args: object) -> Results:
        raise MemoryError("the index did not fit")

    with pytest.raises(MemoryError):
        run_ci(settings, ci_collaborators(settings, [], evaluate=crash))

    assert statuses_of(repo, repo.pulls[number].head_sha) == ["pending", "error"]
    left = left_behind(suite)
    assert left.outputs["results-path"] == ""  # the results.json there is the earlier run's
    assert left.comment is not None and "the index did not fit" in left.comment
    assert "no `results.json` was written" in left.comment
    assert (left.outputs["verdict"], left.outputs["status"]) == ("error", "error")
