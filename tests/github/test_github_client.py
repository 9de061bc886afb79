"""GitHubClient over real HTTP: pulls, merge-base, statuses, runs, artifacts, and failures."""

from __future__ import annotations

import io
import zipfile

import pytest
from fake_github import APP_TOKEN, FakeGitHub, Repo
from github_fixtures import fast_settings

from ragguard.github import GitHubClient, GitHubError, ReadOnlyTokenError, settings_from_env
from ragguard.github.statuses import clip_description


@pytest.fixture
def pr(fake: FakeGitHub, repo: Repo) -> int:
    fake.branch_from(repo, "feature", "main")
    fake.commit(repo, "feature", {"x": b"1"})
    return fake.add_pull(repo, "feature").number


def test_pull_gives_head_and_base(repo: Repo, pr: int, client: GitHubClient) -> None:
    info = client.pull(pr)
    assert (info.head_sha, info.head_ref, info.base_ref) == (
        repo.refs["heads/feature"],
        "feature",
        "main",
    )
    assert info.base_sha == repo.refs["heads/main"]
    assert not info.is_fork


def test_fork_pull_is_recognised(fake: FakeGitHub, repo: Repo, client: GitHubClient) -> None:
    fake.branch_from(repo, "patch-1", "main")
    fake.commit(repo, "patch-1", {"y": b"2"})
    number = fake.add_pull(repo, "patch-1", head_repo="stranger/octo-repo").number
    info = client.pull(number)
    assert info.is_fork and info.head_repo == "stranger/octo-repo"


def test_merge_base_is_the_fork_point_not_mains_head(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient
) -> None:
    fork_point = repo.refs["heads/main"]
    fake.commit(repo, "main", {"later": b"1"})
    assert client.merge_base("main", client.pull(pr).head_sha) == fork_point


def test_pulls_for_commit_resolves_the_pr_from_its_head(
    repo: Repo, pr: int, client: GitHubClient
) -> None:
    head = repo.refs["heads/feature"]
    assert [p.number for p in client.pulls_for_commit(head)] == [pr]
    assert client.pulls_for_commit(repo.refs["heads/main"]) == []


def test_commit_time_is_the_committer_date(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    commit = fake.commit(repo, "main", {"t": b"1"})
    assert client.commit_time(commit.sha) == commit.date.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_status_has_stable_context_short_description_and_run_link(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient
) -> None:
    head = repo.refs["heads/feature"]
    client.set_status(head, "default", "pending", "evaluating")
    client.set_status(head, "default", "failure", "2 questions newly failing: " + "q" * 300)
    statuses = [s for s in repo.statuses if s.sha == head]
    assert [s.state for s in statuses] == ["pending", "failure"]
    final = fake.latest_statuses(repo, head)["ragguard/default"]
    assert final.target_url == "https://github.com/octo-org/octo-repo/actions/runs/42"
    assert (
        final.description is not None
        and len(final.description) < 140
        and final.description.endswith("…")
    )


def test_status_state_is_checked_before_any_request(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    with pytest.raises(ValueError, match="'green' is not one of pending, success, failure, error"):
        client.set_status(repo.refs["heads/main"], "default", "green", "x")
    assert fake.api_requests() == []


def test_clip_description_makes_one_short_line() -> None:
    assert clip_description("a\nb   c") == "a b c"
    assert len(clip_description("word " * 100)) == 139


def test_latest_successful_run_and_its_artifact_download(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    good = fake.add_run(repo)
    fake.add_run(repo, conclusion="failure")
    fake.add_run(repo, head_branch="feature", event="pull_request")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("results.json", '{"schema": "ragguard.results/1"}')
    fake.add_artifact(repo, good, "ragguard-results", buffer.getvalue())
    run = client.latest_successful_run("main", event="push")
    assert run is not None and run.id == good.id
    (artifact,) = client.run_artifacts(run.id, name="ragguard-results")
    data = client.download_artifact(artifact.id)
    assert (
        zipfile.ZipFile(io.BytesIO(data)).read("results.json")
        == b'{"schema": "ragguard.results/1"}'
    )
    storage = [r for r in fake.requests if r.host == "storage"]
    assert len(storage) == 1 and "Authorization" not in storage[0].headers
    api = fake.api_requests()
    assert all(r.headers.get("Authorization") == f"token {APP_TOKEN}" for r in api)


def test_expired_artifact_is_a_clear_error(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    artifact = fake.add_artifact(repo, fake.add_run(repo), "old", b"PK")
    artifact.expired = True
    with pytest.raises(
        GitHubError, match=rf"download artifact {artifact.id} failed \(410\): Artifact has expired"
    ):
        client.download_artifact(artifact.id)


# ----- failures: PyGithub's retries against injected faults ---------------------------------


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_are_retried(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient, status: int
) -> None:
    fake.inject(r"/pulls/\d+$", times=2, status=status)
    assert client.pull(pr).number == pr
    assert [r.status for r in fake.api_requests("GET", r"/pulls/")] == [status, status, 200]


def test_writes_are_retried_on_server_errors_without_duplicating(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient
) -> None:
    fake.inject(r"/issues/\d+/comments$", method="POST", times=1, status=502)
    client.upsert_comment(pr, "default", "report")
    assert len([c for c in repo.comments.values() if c.issue_number == pr]) == 1


def test_secondary_rate_limit_is_waited_out(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient
) -> None:
    fake.inject_secondary_rate_limit(r"/statuses/", retry_after=0, times=2)
    fake.inject(
        r"/statuses/", times=1, status=403, message="You have exceeded a secondary rate limit"
    )
    client.set_status(repo.refs["heads/feature"], "default", "success", "ok")
    assert [r.status for r in fake.api_requests("POST", r"/statuses/")] == [403, 403, 403, 201]


def test_primary_rate_limit_waits_for_the_reset(
    fake: FakeGitHub, repo: Repo, pr: int, client: GitHubClient
) -> None:
    fake.inject_primary_rate_limit(r"/pulls/\d+$", reset_in=-5)
    assert client.pull(pr).number == pr
    assert [r.status for r in fake.api_requests("GET", r"/pulls/")] == [403, 200]


def test_rate_limit_longer_than_allowed_wait_fails_clearly(fake: FakeGitHub, pr: int) -> None:
    client = GitHubClient(fast_settings(fake, max_rate_limit_wait=1.0))
    fake.inject_primary_rate_limit(r"/pulls/\d+$", reset_in=3600)
    with pytest.raises(
        GitHubError, match=r"read pull request #\d+ failed \(403\): API rate limit exceeded"
    ):
        client.pull(pr)


def test_connection_reset_is_retried(fake: FakeGitHub, pr: int, client: GitHubClient) -> None:
    fake.inject(r"/pulls/\d+$", kind="reset", times=2)
    assert client.pull(pr).number == pr
    assert len(fake.api_requests("GET", r"/pulls/")) == 3


def test_a_stalled_answer_times_out_and_is_retried(fake: FakeGitHub, pr: int) -> None:
    client = GitHubClient(fast_settings(fake, timeout=1))
    fake.inject(r"/pulls/\d+$", kind="stall", delay=1.5)
    assert client.pull(pr).number == pr
    assert len(fake.api_requests("GET", r"/pulls/")) == 2


def test_persistent_failure_surfaces_as_one_line(
    fake: FakeGitHub, pr: int, client: GitHubClient
) -> None:
    fake.inject(r"/pulls/\d+$", times=10, status=503, message="Service Unavailable")
    with pytest.raises(GitHubError) as caught:
        client.pull(pr)
    assert str(caught.value) == f"GitHub: read pull request #{pr} failed (503): Service Unavailable"


def test_missing_pull_is_a_404_error(client: GitHubClient) -> None:
    with pytest.raises(GitHubError, match=r"read pull request #999 failed \(404\): Not Found"):
        client.pull(999)


def test_read_only_token_status_write_is_recognised(fake: FakeGitHub, repo: Repo) -> None:
    fake.add_token("ghs_forkrun", "github-actions[bot]", read_only=True)
    client = GitHubClient(fast_settings(fake, token="ghs_forkrun"))
    with pytest.raises(ReadOnlyTokenError):
        client.set_status(repo.refs["heads/main"], "default", "pending", "x")
    assert repo.statuses == []


def test_github_enterprise_server_base_url(contract) -> None:  # type: ignore[no-untyped-def]
    with FakeGitHub(prefix="/api/v3", contract=contract) as fake:
        repo = fake.add_repo("octo-org/octo-repo")
        fake.branch_from(repo, "feature", "main")
        number = fake.add_pull(repo, "feature").number
        env = {
            "GITHUB_TOKEN": APP_TOKEN,
            "GITHUB_REPOSITORY": "octo-org/octo-repo",
            "GITHUB_API_URL": fake.url,
            "GITHUB_SERVER_URL": "https://ghes.example",
            "GITHUB_RUN_ID": "7",
            "GITHUB_EVENT_NAME": "pull_request",
        }
        settings = settings_from_env(env)
        assert settings.run_url == "https://ghes.example/octo-org/octo-repo/actions/runs/7"
        client = GitHubClient(fast_settings(fake, api_url=settings.api_url))
        client.upsert_comment(number, "default", "on GHES")
        assert all(r.path.startswith("/api/v3/") for r in fake.api_requests())
        fake.assert_clean()


def test_settings_from_env_names_what_is_missing() -> None:
    with pytest.raises(ValueError, match="GITHUB_TOKEN: no token"):
        settings_from_env({"GITHUB_REPOSITORY": "a/b"})
    with pytest.raises(ValueError, match="GITHUB_REPOSITORY: expected owner/name, got ''"):
        settings_from_env({"GITHUB_TOKEN": "t"})
    settings = settings_from_env({"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "a/b"}, token="input")
    assert (settings.token, settings.api_url) == ("input", "https://api.github.com")
