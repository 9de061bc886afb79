"""Runs that overlap: two pushes saving baselines at once, and a pull request run overtaken by a
newer push to the pull request. Races are forced with barriers, not sleeps."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from fake_github import FakeGitHub, Repo
from faults_fixtures import (
    SUITE,
    ci_collaborators,
    ci_settings,
    comments_on,
    left_behind,
    open_pull,
    pull_event,
    push_commit,
    push_event,
    statuses_of,
)

from ragguard.ci.evaluate import evaluate_config
from ragguard.ci.glue import run_ci
from ragguard.config.model import Config
from ragguard.github.databranch import parse_history
from ragguard.results.model import Results


def save_at_once(fake: FakeGitHub, repo: Repo, suite: Path, commits: dict[str, str]) -> None:
    """Run `ragguard ci` for a push of each commit, in parallel threads; the two baseline saves
    start together and read the data branch's files before either writes."""

    def race() -> None:
        fake.hold_together(rf"/contents/main/{SUITE}\.json$", parties=2, method="GET")
        fake.hold_together(rf"/contents/main/{SUITE}\.history\.jsonl$", parties=2, method="GET")
        fake.hold_together(r"/git/refs$", parties=2, method="POST")

    start_saving = threading.Barrier(len(commits), action=race, timeout=20)
    errors: list[BaseException] = []

    def commit_time(sha: str) -> str:
        start_saving.wait()  # called by run_ci right before the save
        return commits[sha]

    def push(sha: str, folder: Path) -> None:
        try:
            settings = ci_settings(fake, folder, "push", push_event(repo, sha))
            run_ci(settings, ci_collaborators(settings, [], commit_time=commit_time))
        except BaseException as exc:  # shown by the main thread
            errors.append(exc)

    threads = []
    for index, sha in enumerate(commits):
        folder = suite.parent / f"checkout-{index}"
        folder.mkdir()
        for name in ("ragguard.yml", "eval"):
            (folder / name).symlink_to(suite / name)
        threads.append(threading.Thread(target=push, args=(sha, folder)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []


@pytest.mark.parametrize("branch_exists", [True, False], ids=["data-branch", "first-save"])
def test_two_pushes_saving_at_once_both_land_and_the_newest_is_current(
    fake: FakeGitHub, repo: Repo, suite: Path, branch_exists: bool
) -> None:
    if branch_exists:
        settings = ci_settings(fake, suite, "push", push_event(repo))
        run_ci(
            settings, ci_collaborators(settings, [], commit_time=lambda s: "2026-01-05T11:00:00Z")
        )
    older = fake.commit(repo, "main", {"a": b"1"}).sha
    newer = fake.commit(repo, "main", {"b": b"2"}).sha

    save_at_once(fake, repo, suite, {newer: "2026-01-05T13:00:00Z", older: "2026-01-05T12:00:00Z"})

    history = parse_history(
        fake.file_at(repo, "ragguard-data", f"main/{SUITE}.history.jsonl") or b""
    )
    assert {older, newer} <= {line["commit"] for line in history}
    latest = json.loads(fake.file_at(repo, "ragguard-data", f"main/{SUITE}.json") or b"{}")
    assert latest["commit"] == newer
    for sha in (older, newer):
        assert fake.file_at(repo, "ragguard-data", f"main/{SUITE}/{sha}.json") is not None
        assert statuses_of(repo, sha) == ["pending", "success"]
    lost_races = [r for r in fake.api_requests("PUT", r"/contents/") if r.status in (409, 422)]
    if branch_exists:
        # Both read the same branch head before either wrote: the second write of the first
        # file is refused and redone. Whether the loser also loses on a later file depends on
        # scheduling (on a busy machine the winner may finish first): one lost write is certain.
        assert lost_races
    else:
        # The race is on creating the branch; after that the winner may have written every
        # file before the loser starts, so no content write need be refused.
        refused = [r for r in fake.api_requests("POST", r"/git/refs$") if r.status == 422]
        assert len(refused) == 1  # both tried to create the branch; the loser went on


def test_a_run_whose_pull_request_moved_on_leaves_the_comment_alone(
    fake: FakeGitHub, repo: Repo, suite: Path
) -> None:
    number = open_pull(fake, repo)
    old_head = repo.pulls[number].head_sha
    settings = ci_settings(fake, suite, "pull_request", pull_event(repo, number))

    def evaluate_while_a_push_lands(config: Config, git: object, out: Path) -> Results:
        push_commit(fake, repo, number)
        return evaluate_config(config, git, out)  # type: ignore[arg-type]

    lines: list[str] = []
    outcome = run_ci(
        settings, ci_collaborators(settings, lines, evaluate=evaluate_while_a_push_lands)
    )

    new_head = repo.pulls[number].head_sha
    assert (outcome.state, outcome.comment) == ("success", None)
    assert statuses_of(repo, old_head) == ["pending", "success"]
    assert statuses_of(repo, new_head) == []
    assert comments_on(repo, number) == []
    assert any(f"head moved from {old_head[:12]} to {new_head[:12]}" in line for line in lines)
    left = left_behind(suite)
    assert left.comment is not None and left.outputs["comment-url"] == ""


def test_an_older_run_finishing_last_does_not_overwrite_the_newer_report(
    fake: FakeGitHub, repo: Repo, suite: Path
) -> None:
    number = open_pull(fake, repo)
    old_head = repo.pulls[number].head_sha
    new_head = push_commit(fake, repo, number)
    newer = ci_settings(fake, suite, "pull_request", pull_event(repo, number, new_head))
    run_ci(newer, ci_collaborators(newer, []))
    [report] = comments_on(repo, number)

    failed = "".join(
        json.dumps({"id": q, "error": "timeout"}) + "\n" for q in ("retry-429", "auth")
    )
    (suite / "eval" / "run.jsonl").write_text(failed, encoding="utf-8")  # the old code failed
    older = ci_settings(fake, suite, "pull_request", pull_event(repo, number, old_head))
    outcome = run_ci(older, ci_collaborators(older, []))

    assert outcome.state == "error"  # its own verdict, on its own commit
    assert comments_on(repo, number) == [report]
    assert statuses_of(repo, old_head) == ["pending", "error"]
    assert fake.latest_statuses(repo, new_head)[f"ragguard/{SUITE}"].state == "success"


def test_when_the_head_cannot_be_re_read_the_comment_is_posted(
    fake: FakeGitHub, repo: Repo, suite: Path
) -> None:
    number = open_pull(fake, repo)
    fake.inject(rf"/pulls/{number}$", times=100, status=503, message="Service Unavailable")
    settings = ci_settings(fake, suite, "pull_request", pull_event(repo, number))
    lines: list[str] = []

    outcome = run_ci(settings, ci_collaborators(settings, lines))

    assert outcome.comment is not None and outcome.comment.action == "created"
    assert len(comments_on(repo, number)) == 1
    assert any(line.startswith(f"ragguard: could not re-read #{number}'s head") for line in lines)
