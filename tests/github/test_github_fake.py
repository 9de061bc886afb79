"""The fake GitHub itself: it must reject what GitHub's description rejects, and keep state.

These talk raw HTTP (requests) so they can send what PyGithub never would. Tests that expect
violations clear them before the fixture's final ``assert_clean``.
"""

from __future__ import annotations

import base64
import json
from urllib.parse import urlsplit

import pytest
import requests
from fake_github import APP_TOKEN, FakeGitHub, Repo, blob_sha

AUTH = {"Authorization": f"token {APP_TOKEN}"}


def call(
    fake: FakeGitHub, method: str, path: str, body: object = None, **kw: object
) -> requests.Response:
    headers = {**AUTH, **kw.pop("headers", {})}  # type: ignore[dict-item]
    data = None if body is None else json.dumps(body)
    if data is not None:
        headers["Content-Type"] = "application/json"
    return requests.request(method, fake.url + path, data=data, headers=headers, timeout=5, **kw)  # type: ignore[arg-type]


def take_violations(fake: FakeGitHub) -> list[str]:
    found, fake.violations[:] = list(fake.violations), []
    return found


@pytest.mark.parametrize(
    ("method", "path", "body", "expected"),
    [
        ("GET", "/repos/octo-org/octo-repo/pull/1", None, "not a path of GitHub's REST API"),
        ("POST", "/repos/octo-org/octo-repo/pulls/1", {}, "only for GET, PATCH"),
        ("GET", "/repos/octo-org/octo-repo/issues", None, "the fake does not serve it"),
        ("GET", "/repos/octo-org/octo-repo/issues/x/comments", None, "is not an integer"),
        ("GET", "/repos/octo-org/octo-repo/issues/1/comments?perpage=5", None, "'perpage'"),
        ("GET", "/repos/octo-org/octo-repo/actions/runs?status=green", None, "is not one of"),
        (
            "POST",
            "/repos/octo-org/octo-repo/issues/1/comments",
            {"text": "hi"},
            "'body' is a required property",
        ),
        (
            "POST",
            "/repos/octo-org/octo-repo/issues/1/comments",
            {"body": 5},
            "5 is not of type 'string'",
        ),
        (
            "POST",
            "/repos/octo-org/octo-repo/statuses/abc",
            {"state": "ok"},
            "at state: 'ok' is not one of",
        ),
        (
            "POST",
            "/repos/octo-org/octo-repo/statuses/abc",
            {"state": "success", "targetUrl": "x"},
            "'targetUrl' was unexpected",
        ),
        (
            "PUT",
            "/repos/octo-org/octo-repo/contents/a.txt",
            {"message": "m"},
            "'content' is a required property",
        ),
        ("GET", "/repos/octo-org/octo-repo", {"unexpected": True}, "takes no request body"),
    ],
)
def test_requests_outside_the_description_are_rejected_and_recorded(
    fake: FakeGitHub, method: str, path: str, body: object, expected: str
) -> None:
    answer = call(fake, method, path, body)
    assert 400 <= answer.status_code < 500
    assert expected in answer.json()["message"]
    violations = take_violations(fake)
    assert len(violations) == 1 and expected in violations[0]


def test_nullable_fields_accept_null(fake: FakeGitHub, repo: Repo) -> None:
    sha = repo.refs["heads/main"]
    answer = call(
        fake,
        "POST",
        f"/repos/octo-org/octo-repo/statuses/{sha}",
        {"state": "success", "description": None, "target_url": None, "context": "c"},
    )
    assert answer.status_code == 201
    assert answer.json()["description"] is None


def test_missing_or_unknown_token_is_401_and_a_violation(fake: FakeGitHub) -> None:
    bare = requests.get(fake.url + "/repos/octo-org/octo-repo", timeout=5)
    wrong = call(fake, "GET", "/repos/octo-org/octo-repo", headers={"Authorization": "token nope"})
    assert (bare.status_code, wrong.status_code) == (401, 401)
    assert [v.split(": ", 1)[1] for v in take_violations(fake)] == [
        "no Authorization header",
        "unknown token in Authorization header",
    ]


def test_comments_paginate_with_link_headers(fake: FakeGitHub, repo: Repo) -> None:
    fake.branch_from(repo, "feature", "main")
    number = fake.add_pull(repo, "feature").number
    for i in range(7):
        fake.add_comment(repo, number, f"comment {i}", "someone")
    seen, url, pages = (
        [],
        f"{fake.url}/repos/octo-org/octo-repo/issues/{number}/comments?per_page=3",
        0,
    )
    while url:
        answer = requests.get(url, headers=AUTH, timeout=5)
        seen += [c["body"] for c in answer.json()]
        url = answer.links.get("next", {}).get("url")
        pages += 1
    assert pages == 3
    assert seen == [f"comment {i}" for i in range(7)]
    last = requests.get(
        f"{fake.url}/repos/octo-org/octo-repo/issues/{number}/comments?per_page=3&page=3",
        headers=AUTH,
        timeout=5,
    )
    assert set(last.links) == {"first", "prev"}


def test_contents_put_detects_a_stale_sha(fake: FakeGitHub, repo: Repo) -> None:
    path = "/repos/octo-org/octo-repo/contents/data.txt"
    first = call(
        fake, "PUT", path, {"message": "add", "content": base64.b64encode(b"one").decode()}
    )
    assert first.status_code == 201
    sha_one = first.json()["content"]["sha"]
    assert sha_one == blob_sha(b"one")
    missing = call(
        fake, "PUT", path, {"message": "blind", "content": base64.b64encode(b"x").decode()}
    )
    assert missing.status_code == 422 and '"sha" wasn\'t supplied' in missing.json()["message"]
    second = call(
        fake,
        "PUT",
        path,
        {"message": "two", "content": base64.b64encode(b"two").decode(), "sha": sha_one},
    )
    assert second.status_code == 200
    stale = call(
        fake,
        "PUT",
        path,
        {"message": "late", "content": base64.b64encode(b"three").decode(), "sha": sha_one},
    )
    assert stale.status_code == 409
    assert fake.file_at(repo, "main", "data.txt") == b"two"


def test_compare_reports_the_merge_base(fake: FakeGitHub, repo: Repo) -> None:
    fork_point = repo.refs["heads/main"]
    fake.branch_from(repo, "feature", "main")
    head = fake.commit(repo, "feature", {"f": b"1"}).sha
    fake.commit(repo, "main", {"m": b"1"})
    answer = call(fake, "GET", f"/repos/octo-org/octo-repo/compare/main...{head}").json()
    assert answer["merge_base_commit"]["sha"] == fork_point
    assert (answer["status"], answer["ahead_by"], answer["behind_by"]) == ("diverged", 1, 1)


def test_faults_fire_the_given_number_of_times(fake: FakeGitHub) -> None:
    fault = fake.inject(r"/repos/[^/]+/[^/]+$", times=2, status=502, message="Bad Gateway")
    codes = [call(fake, "GET", "/repos/octo-org/octo-repo").status_code for _ in range(3)]
    assert codes == [502, 502, 200]
    assert fault.hits == 2


def test_a_reset_fault_drops_the_connection(fake: FakeGitHub) -> None:
    fake.inject(r"/repos/", kind="reset")
    with pytest.raises(requests.ConnectionError):
        call(fake, "GET", "/repos/octo-org/octo-repo")
    assert call(fake, "GET", "/repos/octo-org/octo-repo").status_code == 200


def test_artifact_download_redirects_to_a_storage_host_that_refuses_tokens(
    fake: FakeGitHub, repo: Repo
) -> None:
    run = fake.add_run(repo)
    artifact = fake.add_artifact(repo, run, "ragguard-publish", b"PK\x05\x06" + b"\0" * 18)
    answer = call(
        fake,
        "GET",
        f"/repos/octo-org/octo-repo/actions/artifacts/{artifact.id}/zip",
        allow_redirects=False,
    )
    assert answer.status_code == 302
    location = answer.headers["Location"]
    assert location.startswith(fake.storage_root)
    assert requests.get(location, timeout=5).content == artifact.zip_bytes
    requests.get(location, headers=AUTH, timeout=5)
    assert take_violations(fake) == [
        f"GET {urlsplit(location).path}: Authorization header sent to the artifact storage host"
    ]


def test_workflow_runs_filter_by_branch_event_and_conclusion(fake: FakeGitHub, repo: Repo) -> None:
    good = fake.add_run(repo, event="push")
    fake.add_run(repo, event="push", conclusion="failure")
    fake.add_run(repo, event="pull_request", head_branch="feature")
    answer = call(
        fake, "GET", "/repos/octo-org/octo-repo/actions/runs?branch=main&status=success&event=push"
    ).json()
    assert [r["id"] for r in answer["workflow_runs"]] == [good.id]


def test_every_request_is_recorded_with_its_operation(fake: FakeGitHub) -> None:
    call(fake, "GET", "/repos/octo-org/octo-repo")
    (record,) = fake.api_requests()
    assert record.operation == "GET /repos/{owner}/{repo}"
    assert record.status == 200
    assert record.headers["Authorization"] == f"token {APP_TOKEN}"


def test_ghes_prefix_is_required_when_configured(contract) -> None:  # type: ignore[no-untyped-def]
    with FakeGitHub(prefix="/api/v3", contract=contract) as fake:
        fake.add_repo("octo-org/octo-repo")
        assert (
            requests.get(
                fake.url + "/repos/octo-org/octo-repo", headers=AUTH, timeout=5
            ).status_code
            == 200
        )
        assert (
            requests.get(
                fake.root + "/repos/octo-org/octo-repo", headers=AUTH, timeout=5
            ).status_code
            == 404
        )
        assert take_violations(fake) == [
            "GET /repos/octo-org/octo-repo: outside the API prefix /api/v3"
        ]


def test_combined_status_takes_the_newest_state_per_context(fake: FakeGitHub, repo: Repo) -> None:
    sha = repo.refs["heads/main"]
    for context, state in [
        ("ragguard/a", "pending"),
        ("ragguard/b", "success"),
        ("ragguard/a", "success"),
    ]:
        call(
            fake,
            "POST",
            f"/repos/octo-org/octo-repo/statuses/{sha}",
            {"state": state, "context": context},
        )
    combined = call(fake, "GET", "/repos/octo-org/octo-repo/commits/main/status").json()
    assert (combined["state"], combined["total_count"], combined["sha"]) == ("success", 2, sha)
    listed = call(fake, "GET", f"/repos/octo-org/octo-repo/commits/{sha}/statuses").json()
    assert [s["state"] for s in listed] == ["success", "success", "pending"]
    call(
        fake,
        "POST",
        f"/repos/octo-org/octo-repo/statuses/{sha}",
        {"state": "failure", "context": "ragguard/b"},
    )
    assert (
        call(fake, "GET", f"/repos/octo-org/octo-repo/commits/{sha}/status").json()["state"]
        == "failure"
    )


def test_status_on_an_unknown_sha_is_422(fake: FakeGitHub) -> None:
    answer = call(
        fake, "POST", f"/repos/octo-org/octo-repo/statuses/{'0' * 40}", {"state": "success"}
    )
    assert answer.status_code == 422 and "No commit found for SHA" in answer.json()["message"]


def test_comment_delete_and_author_only_edit(fake: FakeGitHub, repo: Repo) -> None:
    fake.branch_from(repo, "feature", "main")
    number = fake.add_pull(repo, "feature").number
    theirs = fake.add_comment(repo, number, "mine, not yours", "mallory")
    edit = call(
        fake, "PATCH", f"/repos/octo-org/octo-repo/issues/comments/{theirs.id}", {"body": "x"}
    )
    assert edit.status_code == 403
    assert (
        call(fake, "DELETE", f"/repos/octo-org/octo-repo/issues/comments/{theirs.id}").status_code
        == 204
    )
    assert theirs.id not in repo.comments


def test_git_refs_refuse_duplicates_and_non_fast_forward_updates(
    fake: FakeGitHub, repo: Repo
) -> None:
    main = repo.refs["heads/main"]
    created = call(
        fake, "POST", "/repos/octo-org/octo-repo/git/refs", {"ref": "refs/heads/data", "sha": main}
    )
    assert created.status_code == 201
    again = call(
        fake, "POST", "/repos/octo-org/octo-repo/git/refs", {"ref": "refs/heads/data", "sha": main}
    )
    assert again.status_code == 422 and again.json()["message"] == "Reference already exists"
    got = call(fake, "GET", "/repos/octo-org/octo-repo/git/ref/heads/data").json()
    assert got["object"]["sha"] == main
    ahead = fake.commit(repo, "main", {"z": b"1"}).sha
    assert (
        call(
            fake, "PATCH", "/repos/octo-org/octo-repo/git/refs/heads/data", {"sha": ahead}
        ).status_code
        == 200
    )
    back = call(fake, "PATCH", "/repos/octo-org/octo-repo/git/refs/heads/data", {"sha": main})
    assert back.status_code == 422 and back.json()["message"] == "Update is not a fast forward"
    forced = call(
        fake, "PATCH", "/repos/octo-org/octo-repo/git/refs/heads/data", {"sha": main, "force": True}
    )
    assert forced.status_code == 200 and repo.refs["heads/data"] == main


def test_runs_of_one_workflow_and_artifacts_by_name(fake: FakeGitHub, repo: Repo) -> None:
    wanted = fake.add_run(repo, workflow_id=7)
    fake.add_run(repo, workflow_id=8)
    runs = call(fake, "GET", "/repos/octo-org/octo-repo/actions/workflows/7/runs").json()
    assert [r["id"] for r in runs["workflow_runs"]] == [wanted.id]
    assert (
        call(fake, "GET", f"/repos/octo-org/octo-repo/actions/runs/{wanted.id}").json()["head_sha"]
        == wanted.head_sha
    )
    fake.add_artifact(repo, wanted, "ragguard-results", b"PK")
    fake.add_artifact(repo, wanted, "other", b"PK")
    listed = call(
        fake, "GET", "/repos/octo-org/octo-repo/actions/artifacts?name=ragguard-results"
    ).json()
    assert [a["name"] for a in listed["artifacts"]] == ["ragguard-results"]
    assert listed["artifacts"][0]["workflow_run"]["id"] == wanted.id


def test_the_fakes_own_answers_are_checked_against_githubs_response_schemas(
    fake: FakeGitHub, repo: Repo
) -> None:
    """A fake that drifts from GitHub's shapes (wrong type, invented field) fails the test."""
    original = fake._handlers["repos/get"]

    def drifted(ctx):  # type: ignore[no-untyped-def]
        status, payload, headers = original(ctx)
        return status, {**payload, "id": "not-a-number", "invented": 1}, headers

    fake._handlers["repos/get"] = drifted
    call(fake, "GET", "/repos/octo-org/octo-repo")
    (violation,) = take_violations(fake)
    assert "breaks GitHub's schema" in violation
    assert "'not-a-number' is not of type 'integer'" in violation
    assert "'invented' was unexpected" in violation
