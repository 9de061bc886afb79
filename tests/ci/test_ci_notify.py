"""`ragguard ci` against the fake GitHub: a pull request whose verdict turns from pass to fail
gets a new comment (a notification) and its old one minimised; fail -> fail edits in place."""

from __future__ import annotations

from pathlib import Path

from fake_github import BOT_LOGIN, FakeGitHub, Repo
from test_ci_glue import (
    BAD_RUN,
    GOOD_RUN,
    collaborators,
    open_pull,
    pull_event,
    save_main_baseline,
    settings_for,
)

from ragguard.ci.glue import run_ci
from ragguard.github import Outcome
from ragguard.github.comments import outcome_of


def run_pull(fake: FakeGitHub, repo: Repo, suite: Path, number: int, run: str) -> list[str]:
    """Push a commit to the pull request and evaluate ``run`` for it; the log lines."""
    fake.commit(repo, "feature", {"step.txt": run.encode()}, "Another change")
    repo.pulls[number].head_sha = repo.refs["heads/feature"]
    (suite / "eval" / "run.jsonl").write_text(run)
    settings = settings_for(fake, suite, "pull_request", pull_event(repo, number))
    lines: list[str] = []
    run_ci(settings, collaborators(settings, lines))
    return lines


def comments(repo: Repo, number: int) -> list:
    found = [c for c in repo.comments.values() if c.issue_number == number]
    return sorted(found, key=lambda c: c.id)


def test_pass_to_fail_notifies_and_fail_to_fail_edits_in_place(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    run_pull(fake, fake_repo, suite, number, GOOD_RUN)
    [passed] = comments(fake_repo, number)
    assert outcome_of(passed.body) == Outcome("pass", "success")

    flipped = run_pull(fake, fake_repo, suite, number, BAD_RUN)

    old, new = comments(fake_repo, number)
    assert old.id == passed.id and old.minimized_reason == "outdated"
    assert new.user == BOT_LOGIN and new.minimized_reason is None
    assert outcome_of(new.body) == Outcome("fail", "failure")
    assert "retry\\-429" in new.body
    assert f"comment {old.id} minimised as outdated" in "\n".join(flipped)

    run_pull(fake, fake_repo, suite, number, BAD_RUN.replace("ten times", "twice"))

    assert [c.id for c in comments(fake_repo, number)] == [old.id, new.id]
    assert "twice" in fake_repo.comments[new.id].body
    assert len(fake.api_requests("POST", "graphql")) == 1
    fake.assert_clean()


def test_comment_mode_update_keeps_one_comment_through_a_flip(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    with (suite / "ragguard.yml").open("a") as config:
        config.write("comment: {mode: update}\n")
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    run_pull(fake, fake_repo, suite, number, GOOD_RUN)

    run_pull(fake, fake_repo, suite, number, BAD_RUN)

    [comment] = comments(fake_repo, number)
    assert outcome_of(comment.body) == Outcome("fail", "failure")
    assert not fake.api_requests("POST", "graphql")
