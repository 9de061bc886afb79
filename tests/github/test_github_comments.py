"""The sticky comment, against the fake: found across pages, only our own, modes honoured."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from fake_github import BOT_LOGIN, FakeGitHub, Repo
from github_fixtures import fast_settings

from ragguard.github import GitHubClient, ReadOnlyTokenError, comment_marker
from ragguard.github.comments import MAX_BODY, find_sticky, plan_comment, with_marker

MARKER = comment_marker("default")


@pytest.fixture
def pr(fake: FakeGitHub, repo: Repo) -> int:
    fake.branch_from(repo, "feature", "main")
    fake.commit(repo, "feature", {"x": b"1"})
    return fake.add_pull(repo, "feature").number


def bodies(repo: Repo, number: int) -> list[tuple[str, str]]:
    return [
        (c.user, c.body)
        for c in sorted(repo.comments.values(), key=lambda c: c.id)
        if c.issue_number == number
    ]


def test_marker_found_on_the_third_page_is_updated_in_place(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient
) -> None:
    for i in range(230):
        fake.add_comment(repo, pr, f"chatter {i}", "reviewer")
    ours = fake.add_comment(repo, pr, f"{MARKER}\nold report", BOT_LOGIN, "Bot")
    for i in range(5):
        fake.add_comment(repo, pr, f"more {i}", "reviewer")
    outcome = client.upsert_comment(pr, "default", "new report")
    assert (outcome.action, outcome.id) == ("updated", ours.id)
    assert repo.comments[ours.id].body == f"{MARKER}\nnew report"
    pages = fake.api_requests("GET", r"/issues/\d+/comments$")
    assert [r.query.get("page", ["1"])[0] for r in pages] == ["1", "2", "3"]
    assert len([c for c in repo.comments.values() if c.issue_number == pr]) == 236


def test_a_marker_pasted_by_someone_else_is_left_alone(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient
) -> None:
    pasted = fake.add_comment(repo, pr, f"{MARKER}\nI copied your comment", "mallory")
    outcome = client.upsert_comment(pr, "default", "report")
    assert outcome.action == "created"
    assert repo.comments[pasted.id].body == f"{MARKER}\nI copied your comment"
    assert bodies(repo, pr)[-1] == (BOT_LOGIN, f"{MARKER}\nreport")


def test_other_suites_have_their_own_comment(repo: Repo, pr: int, client: GitHubClient) -> None:
    client.upsert_comment(pr, "default", "a")
    client.upsert_comment(pr, "nightly", "b")
    client.upsert_comment(pr, "default", "a2")
    assert [body for _, body in bodies(repo, pr)] == [
        f"{MARKER}\na2",
        f"{comment_marker('nightly')}\nb",
    ]


def test_identical_body_is_not_rewritten(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient
) -> None:
    client.upsert_comment(pr, "default", "same")
    assert client.upsert_comment(pr, "default", "same").action == "unchanged"
    assert fake.api_requests("PATCH") == []


def test_new_mode_always_adds_a_comment_without_listing(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient
) -> None:
    client.upsert_comment(pr, "default", "one", mode="new")
    client.upsert_comment(pr, "default", "two", mode="new")
    assert [body for _, body in bodies(repo, pr)] == [f"{MARKER}\none", f"{MARKER}\ntwo"]
    assert fake.api_requests("GET") == []


def test_on_regression_mode(repo: Repo, pr: int, client: GitHubClient) -> None:
    assert client.upsert_comment(pr, "default", "fine", mode="on-regression").action == "skipped"
    assert bodies(repo, pr) == []
    assert (
        client.upsert_comment(pr, "default", "worse", mode="on-regression", regressed=True).action
        == "created"
    )
    # once a comment exists it is kept current, so it can say the regression is gone
    assert client.upsert_comment(pr, "default", "fixed", mode="on-regression").action == "updated"
    assert [body for _, body in bodies(repo, pr)] == [f"{MARKER}\nfixed"]


def test_off_mode_makes_no_request(fake: FakeGitHub, pr: int, client: GitHubClient) -> None:
    assert client.upsert_comment(pr, "default", "x", mode="off").action == "skipped"
    assert fake.api_requests() == []


def test_unknown_mode_is_a_clear_error(client: GitHubClient, pr: int) -> None:
    with pytest.raises(
        ValueError,
        match="comment mode 'sometimes' is not one of new-on-worse, update, new, on-regression, off",
    ):
        client.upsert_comment(pr, "default", "x", mode="sometimes")


def test_personal_token_finds_its_user_through_the_api(
    fake: FakeGitHub, repo: Repo, pr: int
) -> None:
    fake.add_token("ghp_personal", "octocat", user_type="User", installation=False)
    client = GitHubClient(fast_settings(fake, token="ghp_personal"))
    client.upsert_comment(pr, "default", "one")
    client.upsert_comment(pr, "default", "two")
    assert bodies(repo, pr) == [("octocat", f"{MARKER}\ntwo")]
    assert [r.status for r in fake.api_requests("GET", r"^/user$")] == [200]


def test_read_only_token_raises_read_only_error(fake: FakeGitHub, repo: Repo, pr: int) -> None:
    fake.add_token("ghs_forkrun", BOT_LOGIN, read_only=True)
    client = GitHubClient(fast_settings(fake, token="ghs_forkrun"))
    with pytest.raises(
        ReadOnlyTokenError,
        match=r"comment on #\d+ failed \(403\): Resource not accessible by integration",
    ):
        client.upsert_comment(pr, "default", "report")
    assert bodies(repo, pr) == []


@dataclass
class FakeComment:
    id: int
    body: str
    login: str
    html_url: str = ""

    @property
    def user(self) -> SimpleNamespace:
        return SimpleNamespace(login=self.login)

    def edit(self, body: str) -> None:
        self.body = body


def test_find_sticky_asks_who_we_are_only_when_a_marker_is_seen() -> None:
    asked = []

    def whoami() -> str:
        asked.append(1)
        return "me"

    assert find_sticky([FakeComment(1, "hello", "me")], MARKER, whoami) is None
    assert asked == []
    comments = [
        FakeComment(1, f"{MARKER}\na", "me"),
        FakeComment(2, f"{MARKER}\nb", "me"),
        FakeComment(3, f"{MARKER}\nc", "you"),
    ]
    found = find_sticky(comments, MARKER, whoami)
    assert found is not None and found.id == 2
    assert asked == [1]


def test_marker_only_counts_as_the_first_line() -> None:
    quoted = FakeComment(1, f"> quoting\n{MARKER}", "me")
    assert find_sticky([quoted], MARKER, lambda: "me") is None


def test_plan_comment_table() -> None:
    table = {
        (mode, existing, regressed): plan_comment(mode, existing, regressed)
        for mode in ("update", "new", "on-regression", "off")
        for existing in (False, True)
        for regressed in (False, True)
    }
    assert table[("update", False, False)] == "create"
    assert table[("update", True, False)] == "update"
    assert table[("new", True, True)] == "create"
    assert table[("on-regression", False, False)] == "skip"
    assert table[("on-regression", False, True)] == "create"
    assert table[("on-regression", True, False)] == "update"
    assert {v for k, v in table.items() if k[0] == "off"} == {"skip"}


def test_long_bodies_are_clipped_to_githubs_limit_with_a_note() -> None:
    text = with_marker("x" * 70000, MARKER)
    assert len(text) == MAX_BODY
    assert text.startswith(MARKER + "\n")
    assert text.endswith("the full report is in the job summary)")


def test_marker_cannot_be_closed_by_the_suite_name() -> None:
    assert comment_marker("a --> <b>") == "<!-- ragguard:comment suite=a_--___b_ -->"
