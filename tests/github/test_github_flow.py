"""A pull request evaluation's GitHub traffic, end to end against the fake over real HTTP."""

from __future__ import annotations

import json

from fake_github import APP_TOKEN, BOT_LOGIN, FakeGitHub, Repo
from github_fixtures import fast_settings

from ragguard.github import GitHubClient, comment_marker

RESULTS = json.dumps({"schema": "ragguard.results/1", "summary": {"ndcg@10": 0.71}}).encode()


def seed_pr_with_baseline(fake: FakeGitHub, repo: Repo) -> int:
    """main with a saved baseline for its head, and a PR branched from it with one commit."""
    main_head = repo.refs["heads/main"]
    push = GitHubClient(fast_settings(fake, event_name="push"))
    push.data_branch().save("main", "default", main_head, RESULTS, {"ndcg@10": 0.71})
    fake.branch_from(repo, "feature", "main")
    fake.commit(repo, "feature", {"prompt.txt": b"be brief"}, "Shorter prompt")
    return fake.add_pull(repo, "feature").number


def pr_evaluation(client: GitHubClient, number: int, body: str) -> None:
    """What `ragguard ci` does on a pull request, in order, minus the evaluation itself."""
    pull = client.pull(number)
    client.set_status(pull.head_sha, "default", "pending", "ragguard is evaluating")
    base = client.merge_base(pull.base_ref, pull.head_sha)
    baseline = client.data_branch().fetch(pull.base_ref, "default", prefer_commit=base)
    assert baseline is not None and baseline.exact
    client.upsert_comment(number, "default", body, mode="update", regressed=False)
    client.set_status(pull.head_sha, "default", "success", "ndcg@10 0.71 (+0.00) · 0 regressions")


def test_typical_pr_flow_makes_seven_requests_then_reuses_the_comment(
    fake: FakeGitHub, repo: Repo
) -> None:
    number = seed_pr_with_baseline(fake, repo)
    settings = fast_settings(fake, event_name="pull_request", comment_author=BOT_LOGIN)
    before = len(fake.api_requests())
    pr_evaluation(GitHubClient(settings), number, "first report")
    first = fake.api_requests()[before:]
    assert [f"{r.method} {r.operation.split(' ', 1)[1]}" for r in first] == [
        "GET /repos/{owner}/{repo}/pulls/{pull_number}",
        "POST /repos/{owner}/{repo}/statuses/{sha}",
        "GET /repos/{owner}/{repo}/compare/{basehead}",
        "GET /repos/{owner}/{repo}/contents/{path}",
        "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
        "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
        "POST /repos/{owner}/{repo}/statuses/{sha}",
    ]

    before = len(fake.api_requests())
    pr_evaluation(GitHubClient(settings), number, "second report")
    second = fake.api_requests()[before:]
    assert len(second) == 7
    assert second[5].method == "PATCH"
    comments = [c for c in repo.comments.values() if c.issue_number == number]
    assert [c.body for c in comments] == [comment_marker("default") + "\nsecond report"]
    head = repo.pulls[number].head_sha
    assert fake.latest_statuses(repo, head)["ragguard/default"].state == "success"
    assert all(r.headers["Authorization"] == f"token {APP_TOKEN}" for r in first + second)


def test_without_the_author_hint_the_update_costs_one_more_request(
    fake: FakeGitHub, repo: Repo
) -> None:
    number = seed_pr_with_baseline(fake, repo)
    settings = fast_settings(fake, event_name="pull_request")
    pr_evaluation(GitHubClient(settings), number, "first report")
    before = len(fake.api_requests())
    pr_evaluation(GitHubClient(settings), number, "second report")
    second = fake.api_requests()[before:]
    assert len(second) == 8
    assert [r.path for r in second if r.path.endswith("/user")] == ["/user"]
    assert [r.status for r in second if r.path.endswith("/user")] == [403]
