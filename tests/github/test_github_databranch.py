"""Baselines on the ragguard-data branch, against the fake's git store."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from datetime import datetime, timezone

import pytest
from fake_github import FakeGitHub, Repo
from github_fixtures import fast_settings

from ragguard.core.errors import InputError
from ragguard.github import BaselineConflictError, GitHubClient, UntrustedEventError
from ragguard.github.databranch import (
    append_line,
    keep_newer,
    latest_path,
    parse_history,
    snapshot_path,
)


def results(value: float) -> bytes:
    return json.dumps({"schema": "ragguard.results/1", "summary": {"ndcg@10": value}}).encode()


def stored(fake: FakeGitHub, repo: Repo, path: str) -> dict:
    data = fake.file_at(repo, "ragguard-data", path)
    assert data is not None, f"{path} is not on ragguard-data"
    return json.loads(data)


def history_lines(fake: FakeGitHub, repo: Repo) -> list[dict]:
    data = fake.file_at(repo, "ragguard-data", "main/default.history.jsonl")
    return [] if data is None else parse_history(data)


def test_first_save_creates_an_orphan_data_branch(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    sha = repo.refs["heads/main"]
    report = client.data_branch().save(
        "main", "default", sha, results(0.5), {"ndcg@10": 0.5}, committed_at="2026-01-05T12:00:00Z"
    )
    assert report.created_branch and report.latest_replaced and report.retries == 0
    ancestry = _ancestry(repo, repo.refs["heads/ragguard-data"])
    assert sha not in ancestry  # an orphan: the code's history is not on the data branch
    root = repo.commits[ancestry[-1]]
    assert root.parents == [] and list(root.tree) == ["README.md"]
    latest = stored(fake, repo, "main/default.json")
    assert (latest["commit"], latest["results"]["summary"]) == (sha, {"ndcg@10": 0.5})
    assert stored(fake, repo, f"main/default/{sha}.json") == latest
    assert [line["summary"] for line in history_lines(fake, repo)] == [{"ndcg@10": 0.5}]


def _ancestry(repo: Repo, sha: str) -> list[str]:
    out, todo = [], [sha]
    while todo:
        current = todo.pop()
        out.append(current)
        todo += repo.commits[current].parents
    return out


def test_fetch_prefers_the_merge_base_and_falls_back_to_the_newest(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    store = client.data_branch()
    old = repo.refs["heads/main"]
    store.save(
        "main", "default", old, results(0.5), {"ndcg@10": 0.5}, committed_at="2026-01-05T12:00:00Z"
    )
    new = fake.commit(repo, "main", {"a": b"1"}).sha
    store.save(
        "main", "default", new, results(0.6), {"ndcg@10": 0.6}, committed_at="2026-01-05T13:00:00Z"
    )

    exact = store.fetch("main", "default", prefer_commit=old)
    assert exact is not None and exact.exact and exact.commit == old
    assert json.loads(exact.results)["summary"] == {"ndcg@10": 0.5}
    assert exact.path == snapshot_path("main", "default", old)

    unknown = store.fetch("main", "default", prefer_commit="f" * 40)
    assert unknown is not None and not unknown.exact and unknown.commit == new
    assert unknown.path == latest_path("main", "default")
    assert [line["commit"] for line in store.history("main", "default")] == [old, new]


def test_a_stored_baseline_with_a_lone_surrogate_escape_is_one_line_naming_it(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    """Read as every JSON input is (docs/formats.md, "Decisions the formats leave open"):
    its commit would reach the comment; a history line holding one is a damaged line."""
    store = client.data_branch()
    sha = repo.refs["heads/main"]
    store.save("main", "default", sha, results(0.5), {"ndcg@10": 0.5})
    path = latest_path("main", "default")
    document = fake.file_at(repo, "ragguard-data", path)
    assert document is not None and document.startswith(b"{\n")
    damaged = document.replace(b'"commit": "', b'"commit": "\\ud800', 1)
    fake.commit(repo, "ragguard-data", {path: damaged})
    with pytest.raises(InputError) as raised:
        store.fetch("main", "default")
    line = damaged.split(b"\n").index(next(x for x in damaged.split(b"\n") if b"ud800" in x)) + 1
    assert str(raised.value).startswith(
        f"ragguard-data:{path}:{line}: stored baseline is not JSON: lone surrogate \\ud800"
    )
    history = b'{"commit": "a"}\n{"commit": "\\udfff"}\n{"commit": "c"}\n'
    assert parse_history(history) == [{"commit": "a"}, {"commit": "c"}]


def test_fetch_with_no_data_branch_is_none(client: GitHubClient) -> None:
    assert client.data_branch().fetch("main", "default", prefer_commit="a" * 40) is None
    assert client.data_branch().history("main", "default") == []


def test_read_only_token_can_fetch(fake: FakeGitHub, repo: Repo, client: GitHubClient) -> None:
    client.data_branch().save("main", "default", repo.refs["heads/main"], results(0.5), {})
    fake.add_token("ghs_readonly", "github-actions[bot]", read_only=True)
    reader = GitHubClient(fast_settings(fake, token="ghs_readonly", event_name="pull_request"))
    found = reader.data_branch().fetch("main", "default")
    assert found is not None and json.loads(found.results)["summary"] == {"ndcg@10": 0.5}


@pytest.mark.parametrize("event", ["pull_request", "pull_request_target"])
def test_pull_request_events_may_not_write(fake: FakeGitHub, repo: Repo, event: str) -> None:
    client = GitHubClient(fast_settings(fake, event_name=event))
    with pytest.raises(
        UntrustedEventError, match=f"refusing to write a baseline from a {event} event"
    ):
        client.data_branch().save("main", "default", repo.refs["heads/main"], results(0.5), {})
    assert fake.api_requests() == []
    assert "heads/ragguard-data" not in repo.refs


def test_concurrent_writers_both_land(fake: FakeGitHub, repo: Repo) -> None:
    """Two pushes save at once; both read the same versions, one write conflicts and is redone."""
    GitHubClient(fast_settings(fake)).data_branch().create_branch()
    older = repo.refs["heads/main"]
    newer = fake.commit(repo, "main", {"b": b"2"}).sha
    fake.hold_together(r"/contents/main/default\.json$", parties=2, method="GET")
    fake.hold_together(r"/contents/main/default\.history\.jsonl$", parties=2, method="GET")
    jobs = [
        (older, "2026-01-05T12:00:00Z", 0.5),
        (newer, "2026-01-05T13:00:00Z", 0.6),
    ]
    reports, errors = [], []

    def save(sha: str, when: str, value: float) -> None:
        try:
            store = GitHubClient(fast_settings(fake)).data_branch()
            reports.append(
                store.save(
                    "main", "default", sha, results(value), {"ndcg@10": value}, committed_at=when
                )
            )
        except Exception as exc:  # collected so the main thread can show it
            errors.append(exc)

    threads = [threading.Thread(target=save, args=job) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert errors == []
    # The two saves raced and the loser redid its write. Whether it also loses on the second
    # file depends on scheduling (on a busy machine the winner may finish first).
    assert sum(r.retries for r in reports) >= 1
    assert stored(fake, repo, "main/default.json")["commit"] == newer
    assert {line["commit"] for line in history_lines(fake, repo)} == {older, newer}
    assert stored(fake, repo, f"main/default/{older}.json")["commit"] == older
    conflicts = [r.status for r in fake.api_requests("PUT") if r.status in (409, 422)]
    assert conflicts


def test_a_late_save_of_an_older_commit_keeps_the_newer_latest(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    store = client.data_branch()
    older = repo.refs["heads/main"]
    newer = fake.commit(repo, "main", {"b": b"2"}).sha
    store.save("main", "default", newer, results(0.6), {}, committed_at="2026-01-05T13:00:00Z")
    report = store.save(
        "main", "default", older, results(0.5), {}, committed_at="2026-01-05T12:00:00Z"
    )
    assert not report.latest_replaced
    assert stored(fake, repo, "main/default.json")["commit"] == newer
    assert [line["commit"] for line in history_lines(fake, repo)] == [newer, older]


def test_a_writer_that_always_loses_gives_up_with_a_conflict_error(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    store = client.data_branch(max_attempts=3)
    store.create_branch()
    fake.inject(
        r"/contents/main/default\.json$",
        method="PUT",
        times=3,
        status=409,
        message="main/default.json does not match",
    )
    with pytest.raises(BaselineConflictError, match="kept changing under us for 3 attempts"):
        store.save("main", "default", repo.refs["heads/main"], results(0.5), {})


def test_files_over_one_megabyte_are_read_through_the_blob_api(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    fake.inline_limit = 1000
    big = json.dumps({"schema": "ragguard.results/1", "questions": ["x" * 100] * 50}).encode()
    store = client.data_branch()
    store.save("main", "default", repo.refs["heads/main"], big, {})
    found = store.fetch("main", "default")
    assert found is not None and json.loads(found.results) == json.loads(big)
    assert fake.api_requests("GET", r"/git/blobs/")


def test_keep_newer_and_append_line_are_pure_merges() -> None:
    older = json.dumps(
        {"commit": "a", "committed_at": "2026-01-01T00:00:00Z", "saved_at": "2026-01-03T00:00:00Z"}
    ).encode()
    newer = json.dumps(
        {"commit": "b", "committed_at": "2026-01-02T00:00:00Z", "saved_at": "2026-01-02T00:00:00Z"}
    ).encode()
    assert keep_newer(older)(newer) == newer
    assert keep_newer(newer)(older) == newer
    assert keep_newer(newer)(None) == newer
    east = json.dumps({"commit": "e", "committed_at": "2026-01-02T01:00:00+02:00"}).encode()
    assert keep_newer(east)(newer) == newer  # 23:00 UTC the day before: older, despite the text
    appended = append_line({"commit": "c"})(b'{"commit": "a"}\n{"commit": "b"}')
    assert [line["commit"] for line in parse_history(appended)] == ["a", "b", "c"]
    assert parse_history(b'{"commit": "a"}\nnot json\n[1]\n') == [{"commit": "a"}]


def test_save_request_counts(fake: FakeGitHub, repo: Repo, client: GitHubClient) -> None:
    store = client.data_branch()
    store.save("main", "default", repo.refs["heads/main"], results(0.5), {})
    first = [(r.method, r.status) for r in fake.api_requests()]
    assert first == [
        ("PUT", 404),  # blind snapshot write: no data branch yet
        ("POST", 201),  # tree
        ("POST", 201),  # orphan commit
        ("POST", 201),  # ref
        ("PUT", 201),  # snapshot
        ("GET", 404),
        ("PUT", 201),  # newest baseline
        ("GET", 404),
        ("PUT", 201),  # history
    ]
    before = len(fake.api_requests())
    store.save("main", "default", fake.commit(repo, "main", {"c": b"3"}).sha, results(0.6), {})
    assert [(r.method, r.status) for r in fake.api_requests()[before:]] == [
        ("PUT", 201),
        ("GET", 200),
        ("PUT", 200),
        ("GET", 200),
        ("PUT", 200),
    ]


def test_baseline_age_counts_from_the_commit_else_the_save(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    store = client.data_branch()
    store.save(
        "main",
        "default",
        repo.refs["heads/main"],
        results(0.5),
        {},
        committed_at="2026-01-05T12:00:00Z",
    )
    found = store.fetch("main", "default")
    assert found is not None
    assert found.age(datetime(2026, 1, 6, 12, 0, tzinfo=timezone.utc)) == 86400.0
    undated = replace(found, committed_at=None, saved_at="2026-01-06T11:00:00Z")
    assert undated.age(datetime(2026, 1, 6, 12, 0, tzinfo=timezone.utc)) == 3600.0


def test_branch_and_suite_names_with_slashes_and_spaces(
    fake: FakeGitHub, repo: Repo, client: GitHubClient
) -> None:
    store = client.data_branch()
    sha = repo.refs["heads/main"]
    store.save("release/1.x", "nightly eval", sha, results(0.4), {"ndcg@10": 0.4})
    assert fake.file_at(repo, "ragguard-data", f"release/1.x/nightly eval/{sha}.json") is not None
    found = store.fetch("release/1.x", "nightly eval", prefer_commit=sha)
    assert found is not None and found.exact and found.branch == "release/1.x"
    assert [line["summary"] for line in store.history("release/1.x", "nightly eval")] == [
        {"ndcg@10": 0.4}
    ]
