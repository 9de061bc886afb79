"""Governance end to end against the fake GitHub: the trusted gate, the auditable override,
and which runs may save a baseline (issue 13, items 1-3; docs/action.md, docs/compare.md).

Each test runs `ragguard ci` as the workflow would (recorded system, real scoring, PyGithub
over loopback HTTP) and reads statuses and comments back from the fake.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from ci_fixtures import REPOSITORY, event_payload
from fake_github import FakeGitHub, Repo, iso
from github_fixtures import fast_settings
from test_ci_glue import (
    BAD_RUN,
    CONFIG,
    GOOD_RUN,
    SUITE,
    collaborators,
    fork_run_with_publish_artifact,
    pull_event,
    push_event,
    run_line,
    settings_for,
    workflow_run_event,
)

from ragguard.ci.glue import run_ci
from ragguard.ci.outputs import parse_output_file
from ragguard.github import GitHubClient, comment_marker, read_event

LOOSENED = CONFIG + "gate:\n  critical: false\n  metrics:\n    faithfulness: {max_drop: 1.0}\n"
CONTEXT = f"ragguard/{SUITE}"


def main_with_config(fake: FakeGitHub, repo: Repo, config: str = CONFIG) -> None:
    """The target branch's ragguard.yml, as the API reads it at the merge base."""
    fake.commit(repo, "main", {"ragguard.yml": config.encode()}, "Add ragguard")


def save_baseline(fake: FakeGitHub, repo: Repo, suite: Path) -> None:
    settings = settings_for(fake, suite, "push", push_event(repo))
    outcome = run_ci(settings, collaborators(settings, []))
    assert outcome.comparison is not None and outcome.comparison.verdict == "pass"


def open_pull(fake: FakeGitHub, repo: Repo, changes: dict[str, bytes]) -> int:
    fake.branch_from(repo, "feature", "main")
    fake.commit(repo, "feature", changes, "The change")
    return fake.add_pull(repo, "feature").number


def run_pull(fake: FakeGitHub, repo: Repo, suite: Path, number: int) -> tuple[str, int, str]:
    """The pull request's run: (status state, exit code, sticky comment body)."""
    settings = settings_for(fake, suite, "pull_request", pull_event(repo, number))
    outcome = run_ci(settings, collaborators(settings, []))
    return outcome.state, outcome.exit_code, sticky(repo, number)


def sticky(repo: Repo, number: int) -> str:
    [body] = [
        c.body
        for c in repo.comments.values()
        if c.issue_number == number and c.body.startswith(comment_marker(SUITE))
    ]
    return body


def head_status(fake: FakeGitHub, repo: Repo, number: int) -> tuple[str, str | None]:
    status = fake.latest_statuses(repo, repo.pulls[number].head_sha)[CONTEXT]
    return status.state, status.description


# ----- item 1: the trusted gate ------------------------------------------------------------


def test_a_pull_request_that_loosens_its_own_gate_is_judged_by_the_target_branchs_rules(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    main_with_config(fake, fake_repo)
    save_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo, {"ragguard.yml": LOOSENED.encode()})
    (suite / "ragguard.yml").write_text(LOOSENED)  # the checkout is the pull request's
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)

    state, code, body = run_pull(fake, fake_repo, suite, number)

    # under its own rules (critical: false, max_drop 1) the hallucination would pass
    assert (state, code) == ("failure", 1)
    assert head_status(fake, fake_repo, number) == (
        "failure",
        "fail: retry-429 critical question newly fails",
    )
    top = body.split("\n### ", 1)[0]
    assert "Judged by main's gate rules (ragguard.yml at `" in top
    assert "not this pull request's" in top
    assert "**This pull request changes the gate:** critical true → false; " in top
    assert "faithfulness max\\_drop 0\\.05 → 1" in top
    assert "The rule changes take effect once merged." in top


def test_the_target_branch_may_let_pull_requests_bring_their_own_rules(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    main_with_config(fake, fake_repo, CONFIG + "gate:\n  rules_from: pull-request\n")
    save_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo, {"ragguard.yml": LOOSENED.encode()})
    (suite / "ragguard.yml").write_text(LOOSENED)
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)

    state, _, body = run_pull(fake, fake_repo, suite, number)

    assert state == "success"
    assert "Judged by this pull request's own gate rules" in body
    assert "sets `gate.rules_from: pull-request`" in body


def test_a_pull_request_may_not_opt_itself_out_of_the_target_rules(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    main_with_config(fake, fake_repo)
    save_baseline(fake, fake_repo, suite)
    opted_out = LOOSENED + "  rules_from: pull-request\n"
    number = open_pull(fake, fake_repo, {"ragguard.yml": opted_out.encode()})
    (suite / "ragguard.yml").write_text(opted_out)
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)

    state, _, body = run_pull(fake, fake_repo, suite, number)

    assert state == "failure"
    assert "rules\\_from target → pull\\-request" in body


def test_a_pull_request_may_not_drop_its_baseline_either(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    main_with_config(fake, fake_repo)
    save_baseline(fake, fake_repo, suite)
    no_baseline = CONFIG + "baseline: {store: none}\n"  # no baseline: only floors would apply
    number = open_pull(fake, fake_repo, {"ragguard.yml": no_baseline.encode()})
    (suite / "ragguard.yml").write_text(no_baseline)
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)

    state, _, body = run_pull(fake, fake_repo, suite, number)

    assert state == "failure"
    assert "**This pull request changes the gate:** baseline\\.store branch → none." in body


def test_removing_a_question_that_passed_fails_the_gate_and_is_listed_at_the_top(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    main_with_config(fake, fake_repo)
    save_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo, {"eval/testset.yaml": b"..."})
    testset = (suite / "eval" / "testset.yaml").read_text()
    (suite / "eval" / "testset.yaml").write_text(testset.split("- id: auth")[0])
    (suite / "eval" / "run.jsonl").write_text(GOOD_RUN.splitlines(keepends=True)[0])

    state, code, body = run_pull(fake, fake_repo, suite, number)

    assert (state, code) == ("failure", 1)
    assert (
        head_status(fake, fake_repo, number)[1] == "fail: auth removed; it passed in the baseline"
    )
    assert "**This pull request changes the gate:** removes 1 question (auth)." in body


def test_unmarking_a_critical_question_is_a_gate_change_and_the_target_marking_applies(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    """#31: a pull request that removes `critical: true` from a question it breaks is judged
    with the question critical (the target branch's marking), and the change is listed."""
    main_with_config(fake, fake_repo)
    save_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo, {"eval/testset.yaml": b"..."})
    testset = (suite / "eval" / "testset.yaml").read_text()
    (suite / "eval" / "testset.yaml").write_text(testset.replace("  critical: true\n", ""))
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)

    state, code, body = run_pull(fake, fake_repo, suite, number)

    assert (state, code) == ("failure", 1)
    assert head_status(fake, fake_repo, number)[1] == (
        "fail: retry-429 critical question newly fails"
    )
    assert (
        "**This pull request changes the gate:** unmarks 1 critical question (retry\\-429), "
        "which stays critical until merged." in body
    )
    written = json.loads((suite / "ragguard-results" / "comparison.json").read_text())
    [change] = [q for q in written["question_changes"] if q["id"] == "retry-429"]
    assert (change["critical"], change["unmarked_critical"]) == (True, True)


def test_the_comment_says_which_baseline_it_compared_with_and_how_old_it_is(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    main_with_config(fake, fake_repo)
    save_baseline(fake, fake_repo, suite)
    saved = fake_repo.refs["heads/main"]
    number = open_pull(fake, fake_repo, {"prompt.txt": b"be brief"})

    _, _, body = run_pull(fake, fake_repo, suite, number)

    top = body.split("\n### ", 1)[0]
    assert f"Compared with the merge base's baseline: commit `{saved[:12]}` on main," in top
    assert "older than this run" in top


# ----- item 2: the auditable override --------------------------------------------------------


def accept_comment(fake: FakeGitHub, number: int, login: str, body: str) -> dict:
    """The issue_comment payload GitHub sends for a new comment on pull request ``number``."""
    payload = event_payload("issue_comment.created")
    payload["issue"]["number"] = number
    payload["issue"]["pull_request"] = {"url": f"https://api.github.com/pulls/{number}"}
    payload["comment"]["body"] = body
    payload["comment"]["user"]["login"] = login
    payload["comment"]["created_at"] = iso(fake.tick())
    payload["repository"] = {"full_name": REPOSITORY, "default_branch": "main"}
    return payload


def run_accept(fake: FakeGitHub, suite: Path, payload: dict) -> tuple[str, list[str]]:
    settings = settings_for(fake, suite, "issue_comment", payload)
    lines: list[str] = []
    outcome = run_ci(settings, collaborators(settings, lines))
    assert outcome.exit_code == 0
    outputs = parse_output_file((suite / "github-output").read_text(encoding="utf-8"))
    assert outputs["accepted"] == ("true" if outcome.state == "success" else "false")
    return outcome.state, lines


def failing_pull(fake: FakeGitHub, repo: Repo, suite: Path) -> int:
    main_with_config(fake, repo)
    save_baseline(fake, repo, suite)
    number = open_pull(fake, repo, {"prompt.txt": b"be creative"})
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)
    assert run_pull(fake, repo, suite, number)[0] == "failure"
    return number


def replies(repo: Repo, number: int) -> list[str]:
    return [
        c.body
        for c in repo.comments.values()
        if c.issue_number == number and not c.body.startswith("<!-- ragguard:")
    ]


def test_an_override_by_a_user_without_write_access_is_refused_on_record(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    number = failing_pull(fake, fake_repo, suite)
    fake_repo.roles["drive-by"] = "triage"  # may label, may not accept
    payload = accept_comment(fake, number, "drive-by", "/ragguard accept looks fine to me")

    state, lines = run_accept(fake, suite, payload)

    assert state == ""
    assert head_status(fake, fake_repo, number)[0] == "failure"
    [reply] = replies(fake_repo, number)
    assert reply.startswith("@drive-by ragguard did not accept the regression")
    assert "has read access to this repository; accepting a regression needs write access" in reply
    assert any("not accepted" in line for line in lines)
    assert "Accepted by" not in sticky(fake_repo, number)


def test_an_override_with_write_access_turns_the_status_green_until_the_next_push(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    number = failing_pull(fake, fake_repo, suite)
    fake_repo.roles["maintainer"] = "maintain"
    first_head = fake_repo.pulls[number].head_sha
    reason = "the judge model changed; <b>verified</b> by hand"
    payload = accept_comment(fake, number, "maintainer", f"/ragguard accept {reason}")

    state, _ = run_accept(fake, suite, payload)

    assert state == "success"
    assert head_status(fake, fake_repo, number) == (
        "success",
        f"accepted by @maintainer: {reason}",
    )
    body = sticky(fake_repo, number)
    # the note goes under the marker and the hidden outcome line (the next run reads it)
    outcome_line = "<!-- ragguard:outcome verdict=fail state=failure -->"
    assert body.startswith(
        f"{comment_marker(SUITE)}\n{outcome_line}\n> [!NOTE]\n> **Accepted by @maintainer**"
    )
    assert f"for commit `{first_head[:12]}`" in body
    assert "&lt;b&gt;verified&lt;/b&gt;" in body and "<b>" not in body  # the reason is escaped
    assert not replies(fake_repo, number)

    # a new push is judged afresh: the acceptance stays with the commit it was given for
    new_head = fake.commit(fake_repo, "feature", {"prompt.txt": b"be wild"}, "More").sha
    fake_repo.pulls[number].head_sha = new_head
    state, _, body = run_pull(fake, fake_repo, suite, number)
    assert state == "failure"
    assert head_status(fake, fake_repo, number)[0] == "failure"
    assert "Accepted by" not in body
    assert fake.latest_statuses(fake_repo, first_head)[CONTEXT].state == "success"


def accepted_pull(fake: FakeGitHub, repo: Repo, suite: Path, reason: str) -> int:
    number = failing_pull(fake, repo, suite)
    repo.roles["maintainer"] = "maintain"
    assert run_accept(fake, suite, accept_comment(fake, number, "maintainer", reason))[0]
    return number


def dispatch_event(repo: Repo, number: int) -> dict:
    return {
        "ref": "refs/heads/main",
        "inputs": {"pr": str(number)},
        "repository": {"full_name": REPOSITORY, "default_branch": "main"},
    }


@pytest.mark.parametrize("rerun", ["the same pull_request run again", "workflow_dispatch pr"])
def test_an_acceptance_survives_a_re_run_of_the_same_commit(
    fake: FakeGitHub, fake_repo: Repo, suite: Path, rerun: str
) -> None:
    """#31: the acceptance is on record in the head commit's status history; a re-run of
    that commit (GITHUB_RUN_ATTEMPT 2, or a dispatch for the same head) sets it again."""
    number = accepted_pull(fake, fake_repo, suite, "/ragguard accept the judge changed")
    head = fake_repo.pulls[number].head_sha
    if rerun == "workflow_dispatch pr":
        event = dispatch_event(fake_repo, number)
        settings = settings_for(fake, suite, "workflow_dispatch", event, pr=number, sha=head)
    else:
        settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    lines: list[str] = []

    outcome = run_ci(settings, collaborators(settings, lines))

    assert outcome.comparison is not None and outcome.comparison.verdict == "fail"
    assert (outcome.state, outcome.exit_code) == ("success", 0)
    assert head_status(fake, fake_repo, number) == (
        "success",
        "accepted by @maintainer: the judge changed",
    )
    body = sticky(fake_repo, number)
    assert f"**Accepted by @maintainer** for commit `{head[:12]}`: the judge changed" in body
    assert "- **retry\\-429** _(critical)_" in body  # the report is there, as judged
    assert any("stays accepted by @maintainer" in line for line in lines)
    again = run_ci(settings, collaborators(settings, []))  # and a third attempt
    assert (again.state, again.exit_code) == ("success", 0)


def test_an_acceptance_survives_a_fork_run_published_again(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    """A fork's re-run of the same head is published again: its failure stays accepted."""
    number, run_id, head = fork_run_with_publish_artifact(fake, fake_repo, suite)
    publish = settings_for(fake, suite, "workflow_run", workflow_run_event(fake, fake_repo, run_id))
    assert run_ci(publish, collaborators(publish, [])).state == "failure"
    fake_repo.roles["maintainer"] = "write"
    accepted = accept_comment(fake, number, "maintainer", "/ragguard accept known judge drift")
    assert run_accept(fake, suite, accepted)[0] == "success"

    again = run_ci(publish, collaborators(publish, []))

    assert again.state == "success"
    status = fake.latest_statuses(fake_repo, head)[CONTEXT]
    assert (status.state, status.description) == (
        "success",
        "accepted by @maintainer: known judge drift",
    )
    assert f"**Accepted by @maintainer** for commit `{head[:12]}`" in sticky(fake_repo, number)


def test_an_acceptance_status_set_by_another_login_is_not_on_record(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    """Only the statuses the job's own login set count, as only its comments do."""
    number = failing_pull(fake, fake_repo, suite)
    head = fake_repo.pulls[number].head_sha
    fake.add_token("someone-elses-token", "someone-else")
    forged = replace(fast_settings(fake), token="someone-elses-token")
    GitHubClient(forged).set_status(head, SUITE, "success", "accepted by @owner: trust me")
    state, code, body = run_pull(fake, fake_repo, suite, number)
    assert (state, code) == ("failure", 1)
    assert "Accepted by" not in body


def test_an_override_written_before_the_head_was_judged_is_refused(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    number = failing_pull(fake, fake_repo, suite)
    fake_repo.roles["maintainer"] = "write"
    payload = accept_comment(fake, number, "maintainer", "/ragguard accept fine")
    new_head = fake.commit(fake_repo, "feature", {"prompt.txt": b"be wild"}, "More").sha
    fake_repo.pulls[number].head_sha = new_head
    run_pull(fake, fake_repo, suite, number)  # judged after the comment was posted

    state, _ = run_accept(fake, suite, payload)

    assert state == ""
    assert head_status(fake, fake_repo, number)[0] == "failure"
    [reply] = replies(fake_repo, number)
    assert "was judged after this comment was posted" in reply


def test_an_override_needs_a_reason(fake: FakeGitHub, fake_repo: Repo, suite: Path) -> None:
    number = failing_pull(fake, fake_repo, suite)
    fake_repo.roles["maintainer"] = "admin"

    state, _ = run_accept(
        fake, suite, accept_comment(fake, number, "maintainer", "/ragguard accept")
    )

    assert state == ""
    assert head_status(fake, fake_repo, number)[0] == "failure"
    assert "a reason is required" in replies(fake_repo, number)[0]


def test_there_is_nothing_to_accept_before_a_result_or_on_a_pass(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    main_with_config(fake, fake_repo)
    save_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo, {"prompt.txt": b"be brief"})
    fake_repo.roles["maintainer"] = "write"

    early = accept_comment(fake, number, "maintainer", "/ragguard accept fine")
    assert run_accept(fake, suite, early)[0] == ""
    run_pull(fake, fake_repo, suite, number)  # passes
    late = accept_comment(fake, number, "maintainer", "/ragguard accept fine")
    assert run_accept(fake, suite, late)[0] == ""

    first, second = replies(fake_repo, number)
    assert "has no finished result on the head" in first
    assert "already passes" in second
    assert head_status(fake, fake_repo, number)[1] != "accepted by @maintainer: fine"


# ----- item 3: which runs may save a baseline ------------------------------------------------


def saved_commit(fake: FakeGitHub, repo: Repo) -> str | None:
    data = fake.file_at(repo, "ragguard-data", f"main/{SUITE}.json")
    return json.loads(data)["commit"] if data else None


def test_an_error_run_on_the_default_branch_keeps_the_previous_baseline(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_baseline(fake, fake_repo, suite)
    kept = saved_commit(fake, fake_repo)
    fake.commit(fake_repo, "main", {"prompt.txt": b"broken"}, "Break the system")
    down = '{"id": "retry-429", "error": "HTTP 500"}\n{"id": "auth", "error": "HTTP 500"}\n'
    (suite / "eval" / "run.jsonl").write_text(down)
    settings = settings_for(fake, suite, "push", push_event(fake_repo))
    lines: list[str] = []

    outcome = run_ci(settings, collaborators(settings, lines))

    assert (outcome.state, outcome.exit_code) == ("error", 3)
    assert saved_commit(fake, fake_repo) == kept
    assert "ragguard: the run's verdict is error; the baseline is not replaced" in lines


def test_a_scheduled_run_reports_but_never_replaces_the_baseline(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_baseline(fake, fake_repo, suite)
    kept = saved_commit(fake, fake_repo)
    fake.commit(fake_repo, "main", {"docs.md": b"x"}, "Docs")
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)  # the judge drifted overnight
    sha = fake_repo.refs["heads/main"]
    schedule = read_event("schedule", {"schedule": "0 3 * * *"}, "refs/heads/main", sha)
    settings = replace(settings_for(fake, suite, "push", push_event(fake_repo)), event=schedule)

    outcome = run_ci(settings, collaborators(settings, []))

    assert outcome.state == "failure"
    assert saved_commit(fake, fake_repo) == kept
    assert fake.latest_statuses(fake_repo, sha)[CONTEXT].state == "failure"


def test_an_explicit_dispatch_saves_the_baseline(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_baseline(fake, fake_repo, suite)
    fake.commit(fake_repo, "main", {"docs.md": b"x"}, "Docs")
    (suite / "eval" / "run.jsonl").write_text(
        run_line("retry-429", "rate-limits", "x", "y") + GOOD_RUN.splitlines(keepends=True)[1]
    )
    dispatch = {
        **event_payload("workflow_dispatch"),
        "ref": "refs/heads/main",
        "repository": {"full_name": REPOSITORY, "default_branch": "main"},
    }
    event = read_event("workflow_dispatch", dispatch, sha=fake_repo.refs["heads/main"])
    settings = replace(settings_for(fake, suite, "workflow_dispatch", dispatch), event=event)

    run_ci(settings, collaborators(settings, []))

    assert saved_commit(fake, fake_repo) == fake_repo.refs["heads/main"]
