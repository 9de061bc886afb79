"""Baselines from workflow artifacts, against the fake's runs and artifact storage."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from fake_github import FakeGitHub, Repo

from ragguard.core.errors import InputError
from ragguard.github import GitHubClient
from ragguard.github.artifactstore import ArtifactBaselineStore, artifact_name


def zipped(results: dict, member: str = "results.json") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(member, json.dumps(results))
    return buffer.getvalue()


def upload(fake: FakeGitHub, repo: Repo, sha: str, value: float, **run: object) -> int:
    made = fake.add_run(repo, head_sha=sha, **run)
    return fake.add_artifact(repo, made, artifact_name("default"), zipped({"ndcg@10": value})).id


def test_merge_base_artifact_is_preferred_then_the_newest(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    old = repo.refs["heads/main"]
    upload(fake, repo, old, 0.5)
    new = fake.commit(repo, "main", {"n": b"1"}).sha
    upload(fake, repo, new, 0.6)
    store = ArtifactBaselineStore(client)
    exact = store.fetch("main", "default", prefer_commit=old)
    assert exact is not None and exact.exact and exact.commit == old
    assert json.loads(exact.results) == {"ndcg@10": 0.5}
    newest = store.fetch("main", "default", prefer_commit="f" * 40)
    assert newest is not None and not newest.exact and newest.commit == new
    assert [r for r in fake.requests if r.host == "storage" and "Authorization" in r.headers] == []


def test_fork_expired_and_other_branch_artifacts_are_ignored(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    sha = repo.refs["heads/main"]
    good = upload(fake, repo, sha, 0.5)
    upload(fake, repo, sha, 0.9, head_repo="stranger/octo-repo", event="pull_request")
    upload(fake, repo, sha, 0.9, head_branch="feature")
    expired = upload(fake, repo, sha, 0.9)
    repo.artifacts[expired].expired = True
    found = ArtifactBaselineStore(client).fetch("main", "default")
    assert found is not None and found.path == f"artifact ragguard-baseline-default ({good})"
    assert json.loads(found.results) == {"ndcg@10": 0.5}


def test_no_artifact_means_no_baseline(client: GitHubClient) -> None:
    assert ArtifactBaselineStore(client).fetch("main", "default") is None


def test_an_artifact_without_results_is_a_clear_error(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    run = fake.add_run(repo)
    artifact = fake.add_artifact(
        repo, run, artifact_name("default"), zipped({}, member="other.json")
    )
    with pytest.raises(
        InputError, match=rf"artifact ragguard-baseline-default \({artifact.id}\): no results.json"
    ):
        ArtifactBaselineStore(client).fetch("main", "default")
