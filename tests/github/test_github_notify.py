"""Mode new-on-worse against the fake: a status that turns red posts a new comment (GitHub
notifies nobody of an edit) and minimises the old one through GraphQL over real HTTP."""

from __future__ import annotations

import json

import pytest
from fake_github import BOT_LOGIN, FakeGitHub, Repo
from github_fixtures import fast_settings

from ragguard.github import GitHubClient, Outcome, comment_marker
from ragguard.github.comments import (
    outcome_of,
    plan_comment,
    turned_worse,
    with_marker,
    without_outcome,
)
from ragguard.github.errors import GitHubError
from ragguard.github.minimize import minimize_comment

MARKER = comment_marker("default")
PASS, WARN, FAIL = (
    Outcome("pass", "success"),
    Outcome("warn", "success"),
    Outcome("fail", "failure"),
)
ERROR = Outcome("error", "error")


@pytest.fixture
def pr(fake: FakeGitHub, repo: Repo) -> int:
    fake.branch_from(repo, "feature", "main")
    fake.commit(repo, "feature", {"x": b"1"})
    return fake.add_pull(repo, "feature").number


def ours(repo: Repo, number: int) -> list:
    return sorted(
        (c for c in repo.comments.values() if c.issue_number == number and c.user == BOT_LOGIN),
        key=lambda c: c.id,
    )


def post(client: GitHubClient, pr: int, body: str, outcome: Outcome, mode: str = "new-on-worse"):
    return client.upsert_comment(pr, "default", body, mode=mode, outcome=outcome)


def test_pass_to_fail_posts_a_new_comment_and_minimises_the_old_one(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient
) -> None:
    first = post(client, pr, "all good", PASS)

    second = post(client, pr, "a regression", FAIL)

    old, new = ours(repo, pr)
    assert (first.action, second.action) == ("created", "replaced")
    assert (second.id, second.superseded, second.minimize_error) == (new.id, old.id, None)
    assert old.minimized_reason == "outdated" and new.minimized_reason is None
    assert outcome_of(new.body) == FAIL and new.body.endswith("a regression")
    [call] = fake.api_requests("POST", r"^/graphql$")
    sent = json.loads(call.body)
    assert sent["variables"] == {"id": old.node_id, "classifier": "OUTDATED"}
    assert "minimizeComment" in sent["query"]
    fake.assert_clean()


def test_fail_to_fail_edits_in_place(fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient):
    post(client, pr, "a regression", FAIL)

    again = post(client, pr, "still a regression", FAIL)

    [comment] = ours(repo, pr)
    assert (again.action, again.id) == ("updated", comment.id)
    assert comment.body == f"{MARKER}\n{FAIL.line()}\nstill a regression"
    assert not fake.api_requests("POST", r"graphql")


@pytest.mark.parametrize(
    ("before", "after", "action"),
    [
        (WARN, FAIL, "replaced"),  # warn is a green status: turning red notifies
        (PASS, ERROR, "replaced"),
        (FAIL, PASS, "updated"),  # good news edits in place
        (PASS, WARN, "updated"),  # still green
        (ERROR, FAIL, "updated"),  # red before, red now
    ],
)
def test_only_a_status_that_turns_red_notifies(
    repo: Repo, pr: int, client: GitHubClient, before: Outcome, after: Outcome, action: str
) -> None:
    post(client, pr, "first", before)
    assert post(client, pr, "second", after).action == action
    assert len(ours(repo, pr)) == (2 if action == "replaced" else 1)


def test_a_comment_without_an_outcome_line_is_edited_in_place(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient
) -> None:
    """A comment from an older ragguard says nothing of its verdict: no guess, no new one."""
    old = fake.add_comment(repo, pr, f"{MARKER}\nold report", BOT_LOGIN, "Bot")
    assert post(client, pr, "a regression", FAIL).action == "updated"
    assert outcome_of(repo.comments[old.id].body) == FAIL


def test_update_mode_edits_in_place_even_when_the_verdict_turns_worse(
    repo: Repo, pr: int, client: GitHubClient
) -> None:
    post(client, pr, "all good", PASS, mode="update")
    assert post(client, pr, "a regression", FAIL, mode="update").action == "updated"
    assert len(ours(repo, pr)) == 1


def test_a_failed_minimise_is_reported_and_the_new_comment_stays(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient
) -> None:
    post(client, pr, "all good", PASS)
    fake.inject(r"graphql", times=10, status=502, message="Bad Gateway")

    outcome = post(client, pr, "a regression", FAIL)

    old, new = ours(repo, pr)
    assert (outcome.action, outcome.id, outcome.superseded) == ("replaced", new.id, old.id)
    assert outcome.minimize_error and "minimise comment" in outcome.minimize_error
    assert "502" in outcome.minimize_error
    assert old.minimized_reason is None


def test_a_graphql_error_answer_is_a_failed_minimise(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient
) -> None:
    """GitHub answers GraphQL failures with status 200 and an errors list."""
    theirs = fake.add_comment(repo, pr, "a reviewer's note", "reviewer")
    with pytest.raises(GitHubError, match=r"minimise comment .*Resource not accessible"):
        minimize_comment(client.gh.requester, theirs.node_id)
    with pytest.raises(GitHubError, match=r"\(404\).*Could not resolve"):
        minimize_comment(client.gh.requester, "IC_nothing")
    assert theirs.minimized_reason is None
    fake.assert_clean()


def test_ghes_graphql_is_beside_the_api_prefix(contract) -> None:  # type: ignore[no-untyped-def]
    with FakeGitHub(prefix="/api/v3", contract=contract) as fake:
        repo = fake.add_repo()
        fake.branch_from(repo, "feature", "main")
        number = fake.add_pull(repo, "feature").number
        client = GitHubClient(fast_settings(fake))
        post(client, number, "all good", PASS)
        assert post(client, number, "a regression", FAIL).minimize_error is None
        assert [r.path for r in fake.api_requests("POST", "graphql")] == ["/api/graphql"]
        fake.assert_clean()


def test_outcome_line_is_the_second_line_and_read_back() -> None:
    text = with_marker("report", MARKER, FAIL)
    assert text.splitlines() == [MARKER, FAIL.line(), "report"]
    assert outcome_of(text) == FAIL
    assert outcome_of(f"{MARKER}\nreport\n{FAIL.line()}") is None  # only the second line counts
    assert outcome_of(with_marker("report", MARKER)) is None


def test_turned_worse_and_the_plan() -> None:
    assert turned_worse(PASS, FAIL) and turned_worse(WARN, ERROR)
    assert not turned_worse(None, FAIL) and not turned_worse(FAIL, FAIL)
    assert plan_comment("new-on-worse", existing=True, regressed=True, worse=True) == "replace"
    assert plan_comment("new-on-worse", existing=True, regressed=True, worse=False) == "update"
    assert plan_comment("new-on-worse", existing=False, regressed=True, worse=False) == "create"
    assert plan_comment("update", existing=True, regressed=True, worse=True) == "update"


def test_an_outcome_line_is_replaced_not_repeated_and_can_be_taken_out() -> None:
    text = with_marker(with_marker("report", MARKER, PASS), MARKER, FAIL)
    assert text.splitlines() == [MARKER, FAIL.line(), "report"]
    assert without_outcome(text) == f"{MARKER}\nreport"
    assert without_outcome(f"{MARKER}\nreport") == f"{MARKER}\nreport"
