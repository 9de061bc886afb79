"""GitHub failing at every call `ragguard ci` makes, through PyGithub over real HTTP.

The matrix: each call of a pull request's run (pending status, merge base, baseline, trend
history, comments, final status) and of a push's baseline save, times each fault GitHub
produces (5xx, a secondary rate limit, 429, a reset, no answer). A transient fault is retried
and the report lands as if nothing happened; a call that never succeeds ends in an ``error``
status (or a log line when even that cannot be set), with results.json and comment.md on disk
and named in the step outputs.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fake_github import BOT_LOGIN, SECONDARY_RATE_LIMIT, FakeGitHub, Repo
from faults_fixtures import (
    HANG,
    SUITE,
    ci_collaborators,
    ci_settings,
    comments_on,
    left_behind,
    open_pull,
    pull_event,
    push_event,
    statuses_of,
)

from ragguard.ci.glue import run_ci
from ragguard.github import BaselineConflictError, GitHubError, comment_marker

RETRIES = 2  # ci_settings: every call gets three attempts

FAULTS: dict[str, dict[str, Any]] = {
    "500": {"status": 500, "message": "Server Error"},
    "502": {"status": 502, "message": "Bad Gateway"},
    "503": {"status": 503, "message": "Service Unavailable"},
    "403-secondary-rate-limit": {
        "status": 403,
        "message": SECONDARY_RATE_LIMIT,
        "headers": {"Retry-After": "0"},
    },
    "429-retry-after": {
        "status": 429,
        "message": "Too Many Requests",
        "headers": {"Retry-After": "0"},
    },
    "429-bare": {"status": 429, "message": "Too Many Requests"},
    "reset": {"kind": "reset"},
    "timeout": {"kind": "hang", "delay": HANG},
}
# Each timeout costs a real second (PyGithub's timeout is whole seconds): those cases are e2e,
# and a transient one times out once rather than twice.
SLOW = {"timeout"}
FAULT_PARAMS = [
    pytest.param(name, marks=pytest.mark.e2e) if name in SLOW else name for name in FAULTS
]


@dataclass(frozen=True)
class Edge:
    """One GitHub call of the pull request flow: its path, method, and the calls before it."""

    pattern: str
    method: str
    after: int = 0
    sticky_exists: bool = False


EDGES = {
    "pending-status": Edge(r"/statuses/", "POST"),
    "merge-base": Edge(r"/compare/", "GET"),
    "baseline-read": Edge(rf"/contents/main/{SUITE}/", "GET"),
    "history-read": Edge(rf"/contents/main/{SUITE}\.history\.jsonl$", "GET"),
    "list-comments": Edge(r"/issues/\d+/comments$", "GET"),
    "create-comment": Edge(r"/issues/\d+/comments$", "POST"),
    "update-comment": Edge(r"/issues/comments/\d+$", "PATCH", sticky_exists=True),
    "final-status": Edge(r"/statuses/", "POST", after=1),
}


def save_baseline(fake: FakeGitHub, repo: Repo, suite: Path) -> None:
    settings = ci_settings(fake, suite, "push", push_event(repo))
    assert run_ci(settings, ci_collaborators(settings, [])).state == "success"


def prepared_pull(fake: FakeGitHub, repo: Repo, suite: Path, sticky_exists: bool) -> int:
    """A pull request against main, whose baseline is saved; optionally with our old comment."""
    save_baseline(fake, repo, suite)
    number = open_pull(fake, repo)
    if sticky_exists:
        fake.add_comment(repo, number, f"{comment_marker(SUITE)}\nan old report", BOT_LOGIN, "Bot")
    (suite / "github-output").unlink(missing_ok=True)
    return number


def inject(fake: FakeGitHub, edge: Edge, fault: str, times: int) -> Any:
    return fake.inject(
        edge.pattern, method=edge.method, after=edge.after, times=times, **FAULTS[fault]
    )


@pytest.mark.parametrize("fault", FAULT_PARAMS)
@pytest.mark.parametrize("edge", EDGES)
def test_a_transient_fault_is_retried_and_the_report_lands(
    fake: FakeGitHub, repo: Repo, suite: Path, edge: str, fault: str
) -> None:
    number = prepared_pull(fake, repo, suite, EDGES[edge].sticky_exists)
    head = repo.pulls[number].head_sha
    times = 1 if fault in SLOW else RETRIES
    injected = inject(fake, EDGES[edge], fault, times=times)
    settings = ci_settings(fake, suite, "pull_request", pull_event(repo, number))

    outcome = run_ci(settings, ci_collaborators(settings, []))

    assert injected.hits == times
    assert (outcome.state, outcome.exit_code) == ("success", 0)
    assert statuses_of(repo, head) == ["pending", "success"]
    left = left_behind(suite)
    [posted] = comments_on(repo, number)
    assert left.comment is not None and left.comment.strip() in posted
    assert left.results is not None and left.results["git"]["sha"] == head
    assert left.outputs["status"] == "success" and left.outputs["comment-url"]


@pytest.mark.parametrize("edge", EDGES)
def test_a_call_that_never_succeeds_ends_in_error_and_leaves_the_report(
    fake: FakeGitHub, repo: Repo, suite: Path, edge: str
) -> None:
    number = prepared_pull(fake, repo, suite, EDGES[edge].sticky_exists)
    head = repo.pulls[number].head_sha
    injected = inject(fake, EDGES[edge], "503", times=RETRIES + 1)
    settings = ci_settings(fake, suite, "pull_request", pull_event(repo, number))
    lines: list[str] = []

    if edge in ("pending-status", "history-read"):
        # Courtesy calls: the pending status and the trend chart are given up, nothing else.
        outcome = run_ci(settings, ci_collaborators(settings, lines))
        assert (outcome.state, outcome.exit_code) == ("success", 0)
        assert statuses_of(repo, head)[-1] == "success"
        assert len(comments_on(repo, number)) == 1
        assert any("503" in line for line in lines)
    elif edge == "final-status":
        # Set before the comment, which then says at its top that the status is missing;
        # every output is written, and the step exits 3 (docs/action.md).
        outcome = run_ci(settings, ci_collaborators(settings, lines))
        assert (outcome.state, outcome.exit_code) == ("success", 3)
        assert statuses_of(repo, head) == ["pending"]
        [body] = comments_on(repo, number)
        # under the marker and the hidden outcome line
        assert body.splitlines()[2] == "> [!WARNING]"
        assert "could not be set" in body.splitlines()[3]
        assert left_behind(suite).outputs["status-error"].startswith("GitHub: set status")
    else:
        with pytest.raises(GitHubError, match=r"\(503\): Service Unavailable"):
            run_ci(settings, ci_collaborators(settings, lines))
        status = fake.latest_statuses(repo, head)[f"ragguard/{SUITE}"]
        assert status.state == "error"
        assert status.description.startswith("ragguard could not finish: GitHub: ")
    assert injected.hits == RETRIES + 1
    left = left_behind(suite)
    assert left.results is not None and left.comment is not None
    assert left.outputs["results-path"].endswith("results.json")
    assert left.outputs["comment-path"].endswith("comment.md")
    if edge in ("merge-base", "baseline-read"):
        # No comparison was made: comment.md says why instead.
        assert "**error**" in left.comment and "Service Unavailable" in left.comment
        assert left.outputs["verdict"] == "error"


@pytest.mark.parametrize("fault", FAULT_PARAMS)
def test_every_kind_of_fault_that_persists_ends_in_error_with_the_report_on_disk(
    fake: FakeGitHub, repo: Repo, suite: Path, fault: str
) -> None:
    number = prepared_pull(fake, repo, suite, sticky_exists=False)
    retries = 0 if fault in SLOW else RETRIES
    injected = inject(fake, EDGES["create-comment"], fault, times=retries + 1)
    settings = ci_settings(fake, suite, "pull_request", pull_event(repo, number), retries=retries)

    with pytest.raises(GitHubError, match=rf"GitHub: comment on #{number} failed"):
        run_ci(settings, ci_collaborators(settings, []))

    assert injected.hits == retries + 1
    # The final status is set before the comment; the comment's failure then makes it error.
    assert statuses_of(repo, repo.pulls[number].head_sha) == ["pending", "success", "error"]
    left = left_behind(suite)
    assert left.results is not None
    assert left.comment is not None and "**pass** · no change" in left.comment
    assert (left.outputs["verdict"], left.outputs["status"]) == ("pass", "error")


def test_github_down_for_the_whole_run_still_evaluates_and_says_so(
    fake: FakeGitHub, repo: Repo, suite: Path
) -> None:
    save_baseline(fake, repo, suite)
    number = open_pull(fake, repo)
    before = len(fake.api_requests())
    fake.inject(r".", times=10_000, status=502, message="Bad Gateway")
    settings = ci_settings(fake, suite, "pull_request", pull_event(repo, number))
    lines: list[str] = []

    with pytest.raises(GitHubError, match=r"\(502\)"):
        run_ci(settings, ci_collaborators(settings, lines))

    assert len(fake.api_requests()) - before == 3 * (RETRIES + 1)  # pending, compare, error
    assert any(line.startswith("ragguard: could not set the pending status") for line in lines)
    assert any(line.startswith("ragguard: could not set the error status") for line in lines)
    left = left_behind(suite)
    assert left.results is not None and len(left.results["questions"]) == 2
    assert left.comment is not None and "Bad Gateway" in left.comment
    assert left.outputs["status"] == "error" and left.outputs["results-path"]


def test_statuses_refused_throughout_still_posts_the_comment_and_logs_why(
    fake: FakeGitHub, repo: Repo, suite: Path
) -> None:
    number = prepared_pull(fake, repo, suite, sticky_exists=False)
    fake.inject(r"/statuses/", method="POST", times=10_000, status=503)
    settings = ci_settings(fake, suite, "pull_request", pull_event(repo, number))
    lines: list[str] = []

    outcome = run_ci(settings, ci_collaborators(settings, lines))

    assert (outcome.state, outcome.exit_code) == ("success", 3)
    assert statuses_of(repo, repo.pulls[number].head_sha) == []
    [body] = comments_on(repo, number)
    assert "The commit status `ragguard/orders` could not be set" in body.splitlines()[3]
    assert any("could not set the success status" in line for line in lines)
    outputs = left_behind(suite).outputs
    assert outputs["comment-path"].endswith("comment.md") and outputs["comment-url"]
    assert "failed (503)" in outputs["status-error"]


@pytest.mark.parametrize(
    ("retry_after", "cap", "least", "most"),
    [(1, 600.0, 1.0, 3.0), (3600, 0.3, 0.3, 3.0)],
    ids=["waited", "capped"],
)
def test_retry_after_is_waited_and_a_huge_one_is_capped(
    fake: FakeGitHub,
    repo: Repo,
    suite: Path,
    retry_after: int,
    cap: float,
    least: float,
    most: float,
) -> None:
    number = prepared_pull(fake, repo, suite, sticky_exists=False)
    fake.inject_secondary_rate_limit(r"/compare/", retry_after=retry_after, times=1)
    settings = ci_settings(
        fake, suite, "pull_request", pull_event(repo, number), max_rate_limit_wait=cap
    )
    started = time.monotonic()

    outcome = run_ci(settings, ci_collaborators(settings, []))

    assert outcome.state == "success"
    assert least <= time.monotonic() - started < most  # bounded by max_rate_limit_wait


def test_no_baseline_yet_is_a_404_and_not_an_error(
    fake: FakeGitHub, repo: Repo, suite: Path
) -> None:
    number = open_pull(fake, repo)
    settings = ci_settings(fake, suite, "pull_request", pull_event(repo, number))
    lines: list[str] = []

    outcome = run_ci(settings, ci_collaborators(settings, lines))

    assert outcome.state == "success" and outcome.comparison is not None
    assert outcome.comparison.baseline_missing
    # ragguard.yml at the merge base first (main has none yet: the PR's own rules apply),
    # then the three reads of the baseline store
    assert [r.status for r in fake.api_requests("GET", r"/contents/")] == [404, 404, 404, 404]
    assert "ragguard: no baseline for main yet; reporting the head values" in lines


@pytest.mark.parametrize(
    ("status", "message"),
    [(409, "main/orders.json does not match"), (422, 'Invalid request. "sha" wasn\'t supplied.')],
)
def test_a_baseline_write_that_loses_a_race_is_redone(
    fake: FakeGitHub, repo: Repo, suite: Path, status: int, message: str
) -> None:
    save_baseline(fake, repo, suite)
    sha = fake.commit(repo, "main", {"b": b"2"}).sha
    fake.inject(
        rf"/contents/main/{SUITE}\.json$", method="PUT", times=2, status=status, message=message
    )
    settings = ci_settings(fake, suite, "push", push_event(repo, sha))

    outcome = run_ci(
        settings, ci_collaborators(settings, [], commit_time=lambda s: "2026-01-06T00:00:00Z")
    )

    assert outcome.state == "success"
    latest = json.loads(fake.file_at(repo, "ragguard-data", f"main/{SUITE}.json") or b"{}")
    assert latest["commit"] == sha


def test_a_baseline_write_that_always_loses_ends_in_error(
    fake: FakeGitHub, repo: Repo, suite: Path
) -> None:
    save_baseline(fake, repo, suite)
    sha = fake.commit(repo, "main", {"b": b"2"}).sha
    fake.inject(rf"/contents/main/{SUITE}\.json$", method="PUT", times=100, status=409, message="x")
    settings = ci_settings(fake, suite, "push", push_event(repo, sha))

    with pytest.raises(BaselineConflictError, match="kept changing under us"):
        run_ci(settings, ci_collaborators(settings, []))

    assert statuses_of(repo, sha) == ["pending", "error"]
    assert left_behind(suite).results is not None


@pytest.mark.parametrize("fault", ["502", "reset", pytest.param("timeout", marks=pytest.mark.e2e)])
def test_a_baseline_write_through_a_flaky_github_lands_once(
    fake: FakeGitHub, repo: Repo, suite: Path, fault: str
) -> None:
    sha = repo.refs["heads/main"]
    times = 1 if fault in SLOW else RETRIES
    injected = fake.inject(r"/contents/", method="PUT", times=times, **FAULTS[fault])
    settings = ci_settings(fake, suite, "push", push_event(repo, sha))

    outcome = run_ci(settings, ci_collaborators(settings, []))

    assert injected.hits == times and outcome.state == "success"
    history = fake.file_at(repo, "ragguard-data", f"main/{SUITE}.history.jsonl") or b""
    assert [json.loads(line)["commit"] for line in history.splitlines()] == [sha]
