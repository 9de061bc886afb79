"""ragguard.gitlab.notes against the fake GitLab over real HTTP on loopback."""

from __future__ import annotations

import pytest
from fake_gitlab import ACCESS_TOKEN, BOT, JOB_TOKEN, PROJECT_ID, FakeGitLabServer

from ragguard.gitlab import GitLabError, MergeRequest, post_or_update_note

MARKER = "<!-- ragguard:comment suite=orders -->"
IID = "7"


def merge_request(server: FakeGitLabServer, token: str = ACCESS_TOKEN) -> MergeRequest:
    return MergeRequest(server.api_url, PROJECT_ID, IID, token)


def test_the_first_pipeline_creates_the_note(gitlab: FakeGitLabServer) -> None:
    gitlab.fake.notes[IID] = []
    result = post_or_update_note(merge_request(gitlab), f"{MARKER}\nall good")
    assert result.action == "created"
    [note] = gitlab.fake.notes[IID]
    assert (note["id"], note["body"]) == (result.note_id, f"{MARKER}\nall good")
    assert gitlab.fake.requests[-1].headers["PRIVATE-TOKEN"] == ACCESS_TOKEN


def test_a_later_pipeline_updates_the_same_note(gitlab: FakeGitLabServer) -> None:
    gitlab.fake.notes[IID] = []
    gitlab.fake.add_note(IID, "Looks fine to me")
    first = post_or_update_note(merge_request(gitlab), f"{MARKER}\nrun 1")
    second = post_or_update_note(merge_request(gitlab), f"{MARKER}\nrun 2")
    assert (first.action, second.action) == ("created", "updated")
    assert second.note_id == first.note_id
    bodies = [note["body"] for note in gitlab.fake.notes[IID]]
    assert bodies == ["Looks fine to me", f"{MARKER}\nrun 2"]


def test_the_note_is_found_past_the_first_page(gitlab: FakeGitLabServer) -> None:
    gitlab.fake.notes[IID] = []
    for number in range(150):
        gitlab.fake.add_note(IID, f"review remark {number}")
    ours = gitlab.fake.add_note(IID, f"{MARKER}\nold", author=BOT)
    result = post_or_update_note(merge_request(gitlab), f"{MARKER}\nnew")
    assert (result.action, result.note_id, ours["body"]) == (
        "updated",
        ours["id"],
        f"{MARKER}\nnew",
    )
    pages = [r.query["page"] for r in gitlab.fake.requests if r.method == "GET"]
    assert pages == [["1"], ["2"]]


def test_another_suites_note_and_system_notes_are_left_alone(gitlab: FakeGitLabServer) -> None:
    gitlab.fake.notes[IID] = []
    other = gitlab.fake.add_note(IID, "<!-- ragguard:comment suite=search -->\nx", author=BOT)
    gitlab.fake.add_note(IID, f"{MARKER}\nquoted in a system note", system=True)
    result = post_or_update_note(merge_request(gitlab), f"{MARKER}\nmine")
    assert result.action == "created"
    assert other["body"] == "<!-- ragguard:comment suite=search -->\nx"
    assert len(gitlab.fake.notes[IID]) == 3


def test_the_job_token_is_refused_with_gitlabs_reason(gitlab: FakeGitLabServer) -> None:
    gitlab.fake.notes[IID] = []
    with pytest.raises(GitLabError) as caught:
        post_or_update_note(merge_request(gitlab, JOB_TOKEN), f"{MARKER}\nx")
    assert caught.value.status == 401
    assert str(caught.value).startswith("GitLab: list the notes failed (401): 401 Unauthorized")
    assert "api scope" in str(caught.value)
    assert gitlab.fake.notes[IID] == []


def test_an_unknown_merge_request_is_a_404(gitlab: FakeGitLabServer) -> None:
    with pytest.raises(GitLabError, match=r"\(404\): 404 Not found"):
        post_or_update_note(merge_request(gitlab), f"{MARKER}\nx")


def test_nothing_listening_is_a_gitlab_error() -> None:
    unreachable = MergeRequest("http://127.0.0.1:9/api/v4", PROJECT_ID, IID, ACCESS_TOKEN)
    with pytest.raises(GitLabError, match="list the notes failed: ConnectionError"):
        post_or_update_note(unreachable, f"{MARKER}\nx")


def test_a_body_without_the_marker_is_refused_before_any_call(
    gitlab: FakeGitLabServer,
) -> None:
    with pytest.raises(ValueError, match="marker line"):
        post_or_update_note(merge_request(gitlab), "no marker here")
    assert gitlab.fake.requests == []


def test_a_project_path_is_url_encoded() -> None:
    target = MergeRequest("https://gitlab.example.com/api/v4/", "team/rag", "3", "t")
    assert target.notes_url() == (
        "https://gitlab.example.com/api/v4/projects/team%2Frag/merge_requests/3/notes"
    )
