"""A merge queue's ``merge_group`` run against the fake GitHub: the queued head is evaluated,
gated with the same status context as the pull request, and nothing is commented."""

from __future__ import annotations

from pathlib import Path

from ci_fixtures import event_payload
from fake_github import FakeGitHub, Repo
from test_ci_glue import (
    BAD_RUN,
    CONFIG,
    SUITE,
    collaborators,
    save_main_baseline,
    settings_for,
)

from ragguard.ci.glue import run_ci

QUEUE_BRANCH = "gh-readonly-queue/main/pr-7-929f8209d40f77f4abc622a499c93a83babdbe64"


def queue_head(fake: FakeGitHub, repo: Repo) -> tuple[str, str]:
    """The queue's temporary branch: main plus the queued pull request. (head, base) shas."""
    base = repo.refs["heads/main"]
    fake.branch_from(repo, QUEUE_BRANCH, "main")
    head = fake.commit(repo, QUEUE_BRANCH, {"prompt.txt": b"be creative"}, "Merge #7").sha
    return head, base


def merge_group_event(head: str, base: str) -> dict:
    payload = event_payload("merge_group.checks_requested")
    payload["merge_group"].update(
        head_sha=head, base_sha=base, head_ref=f"refs/heads/{QUEUE_BRANCH}"
    )
    payload["repository"]["default_branch"] = "main"
    return payload


def test_merge_group_sets_the_status_on_the_queued_head_and_posts_no_comment(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    head, base = queue_head(fake, fake_repo)
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)
    settings = settings_for(fake, suite, "merge_group", merge_group_event(head, base))
    lines: list[str] = []

    outcome = run_ci(settings, collaborators(settings, lines))

    assert (outcome.comparison.verdict, outcome.state, outcome.exit_code) == ("fail", "failure", 1)
    statuses = [s for s in fake_repo.statuses if s.sha == head]
    assert [(s.context, s.state) for s in statuses] == [
        (f"ragguard/{SUITE}", "pending"),
        (f"ragguard/{SUITE}", "failure"),
    ]
    assert outcome.comment is None and not fake_repo.comments
    assert not fake.api_requests("POST", r"/comments$")
    # Compared with the baseline of the group's base, named by the event: no compare request.
    assert f"commit {base[:12]} on main" in "\n".join(lines)
    assert not fake.api_requests("GET", r"/compare/")
    assert fake.file_at(fake_repo, "ragguard-data", f"main/{SUITE}/{head}.json") is None
    fake.assert_clean()


def test_merge_group_of_an_unchanged_change_passes(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    head, base = queue_head(fake, fake_repo)
    settings = settings_for(fake, suite, "merge_group", merge_group_event(head, base))

    outcome = run_ci(settings, collaborators(settings, []))

    assert (outcome.state, outcome.exit_code) == ("success", 0)
    assert fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"].state == "success"


def test_a_merge_group_is_judged_by_its_bases_gate_not_the_queued_ragguard_yml(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    """The queued head holds the pull request's ragguard.yml; a loosened gate in it must not
    let the queue merge what the pull request's own run was refused for."""
    loosened = CONFIG + "gate:\n  critical: false\n  metrics:\n    faithfulness: {max_drop: 1.0}\n"
    fake.commit(fake_repo, "main", {"ragguard.yml": CONFIG.encode()}, "Add ragguard")
    save_main_baseline(fake, fake_repo, suite)
    base = fake_repo.refs["heads/main"]
    fake.branch_from(fake_repo, QUEUE_BRANCH, "main")
    head = fake.commit(fake_repo, QUEUE_BRANCH, {"ragguard.yml": loosened.encode()}, "#7").sha
    (suite / "ragguard.yml").write_text(loosened)  # the checkout is the queued head
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)
    settings = settings_for(fake, suite, "merge_group", merge_group_event(head, base))
    lines: list[str] = []

    outcome = run_ci(settings, collaborators(settings, lines))

    assert (outcome.state, outcome.exit_code) == ("failure", 1)
    assert f"ragguard.yml on main at {base[:12]}" in "\n".join(lines)
    summary = (suite / "step-summary.md").read_text()
    assert "**This pull request changes the gate:** critical true → false" in summary
    assert not fake_repo.comments
