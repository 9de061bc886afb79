"""Event -> activity, from the real webhook payloads (tests/fixtures/events)."""

from __future__ import annotations

import pytest
from ci_fixtures import event_payload

from ragguard.ci.activity import (
    ACCEPT,
    BASELINE,
    EVALUATE,
    IGNORE,
    PUBLISH,
    PULL_REQUEST,
    choose_activity,
)
from ragguard.core.errors import InputError
from ragguard.github import read_event


def test_pull_request_is_evaluated_and_gated_on_its_head() -> None:
    payload = event_payload("pull_request.opened")
    activity = choose_activity(read_event("pull_request", payload))
    assert activity.kind == PULL_REQUEST
    assert activity.pr == payload["number"] == 2
    assert activity.head_sha == payload["pull_request"]["head"]["sha"]
    assert activity.target_branch == "master"
    assert not activity.save_baseline and not activity.fork


def test_pull_request_from_a_fork_is_marked() -> None:
    payload = event_payload("pull_request.synchronize")
    payload["pull_request"]["head"]["repo"]["full_name"] = "someone/Hello-World"
    assert choose_activity(read_event("pull_request", payload)).fork


def test_push_to_the_default_branch_saves_the_baseline() -> None:
    payload = event_payload("push")
    activity = choose_activity(read_event("push", payload))
    assert (activity.kind, activity.save_baseline) == (BASELINE, True)
    assert activity.target_branch == "master"
    assert activity.head_sha == payload["after"]


def test_push_to_another_branch_is_evaluated_against_the_default_branch() -> None:
    payload = {**event_payload("push"), "ref": "refs/heads/experiment"}
    activity = choose_activity(read_event("push", payload))
    assert (activity.kind, activity.save_baseline) == (EVALUATE, False)
    assert activity.target_branch == "master"


def test_workflow_dispatch_on_the_default_branch_refreshes_the_baseline() -> None:
    activity = choose_activity(read_event("workflow_dispatch", event_payload("workflow_dispatch")))
    assert (activity.kind, activity.target_branch, activity.save_baseline) == (
        BASELINE,
        "main",
        True,
    )


def test_workflow_dispatch_with_pr_re_evaluates_that_pull_request() -> None:
    payload = {**event_payload("workflow_dispatch"), "inputs": {"pr": "7"}}
    event = read_event("workflow_dispatch", payload)
    activity = choose_activity(event, pr=7)
    assert (activity.kind, activity.pr, activity.save_baseline) == (PULL_REQUEST, 7, False)
    assert activity.head_sha is None  # looked up through the API, not trusted from the ref


def test_schedule_evaluates_against_the_baseline_of_its_branch_and_never_saves() -> None:
    event = read_event("schedule", {"schedule": "0 3 * * *"}, ref="refs/heads/main", sha="abc1234")
    activity = choose_activity(event)
    assert (activity.kind, activity.target_branch, activity.head_sha) == (
        EVALUATE,
        "main",
        "abc1234",
    )
    assert not activity.save_baseline
    with pytest.raises(InputError, match="only from a push to the default branch"):
        choose_activity(event, mode="baseline")


def test_mode_baseline_saves_only_on_a_dispatch_or_a_push_to_the_default_branch() -> None:
    elsewhere = read_event("push", {**event_payload("push"), "ref": "refs/heads/experiment"})
    with pytest.raises(InputError, match="may not save a baseline"):
        choose_activity(elsewhere, mode="baseline")
    dispatch = {**event_payload("workflow_dispatch"), "ref": "refs/heads/release-1"}
    activity = choose_activity(read_event("workflow_dispatch", dispatch), mode="baseline")
    assert (activity.kind, activity.target_branch, activity.save_baseline) == (
        BASELINE,
        "release-1",
        True,
    )
    after_dispatch = read_event("workflow_run", event_payload("workflow_run.completed"))
    with pytest.raises(InputError, match="may not save a baseline"):
        choose_activity(after_dispatch, mode="baseline")  # a repository_dispatch run


def comment_event(body: str, action: str = "created", on_pull: bool = True) -> dict:
    payload = event_payload("issue_comment.created")
    payload["action"] = action
    payload["comment"]["body"] = body
    if on_pull:
        payload["issue"]["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/1"}
    return payload


def test_a_new_accept_comment_on_a_pull_request_is_an_acceptance() -> None:
    event = read_event("issue_comment", comment_event("/ragguard accept the judge drifted"))
    activity = choose_activity(event)
    assert (activity.kind, activity.pr) == (ACCEPT, 1)
    assert event.comment_user == "Codertocat"


@pytest.mark.parametrize(
    ("body", "action", "on_pull"),
    [
        ("/ragguard accept ok", "edited", True),  # an edit is not a new command
        ("/ragguard accept ok", "created", False),  # an issue, not a pull request
        ("looks good to me", "created", True),
        ("/ragguard acceptable", "created", True),
    ],
)
def test_other_comments_are_ignored(body: str, action: str, on_pull: bool) -> None:
    event = read_event("issue_comment", comment_event(body, action, on_pull))
    assert choose_activity(event).kind == IGNORE


def test_mode_or_pr_overrides_a_comment_command() -> None:
    """#31: a comment's run asked to evaluate a pull request does, its head from the API."""
    event = read_event("issue_comment", comment_event("looks good to me"))
    forced = choose_activity(event, mode="pull-request")
    assert (forced.kind, forced.pr, forced.head_sha) == (PULL_REQUEST, 1, None)
    assert choose_activity(event, pr=4).pr == 4
    on_issue = read_event("issue_comment", comment_event("evaluate", on_pull=False))
    with pytest.raises(InputError, match="pull-request needs a pull request"):
        choose_activity(on_issue, mode="pull-request")


def test_workflow_run_publishes() -> None:
    event = read_event("workflow_run", event_payload("workflow_run.completed"))
    assert choose_activity(event).kind == PUBLISH


def test_mode_overrides_the_event() -> None:
    event = read_event("push", event_payload("push"))
    assert choose_activity(event, mode="evaluate").kind == EVALUATE
    assert not choose_activity(event, mode="evaluate").save_baseline
    assert choose_activity(event, mode="pull-request", pr=3).pr == 3


def test_mode_baseline_is_refused_on_pull_request_events() -> None:
    event = read_event("pull_request", event_payload("pull_request.opened"))
    with pytest.raises(InputError, match="may not save a baseline"):
        choose_activity(event, mode="baseline")


def test_mode_pull_request_needs_a_number() -> None:
    event = read_event("push", event_payload("push"))
    with pytest.raises(InputError, match="set the pr input"):
        choose_activity(event, mode="pull-request")


def test_merge_group_evaluates_the_queued_head_against_its_base() -> None:
    payload = event_payload("merge_group.checks_requested")
    activity = choose_activity(read_event("merge_group", payload))
    group = payload["merge_group"]
    assert (activity.kind, activity.pr, activity.save_baseline) == (EVALUATE, None, False)
    assert activity.head_sha == group["head_sha"]
    assert (activity.target_branch, activity.base_sha) == ("main", group["base_sha"])


def test_merge_group_may_not_save_a_baseline() -> None:
    event = read_event("merge_group", event_payload("merge_group.checks_requested"))
    with pytest.raises(InputError, match="may not save a baseline"):
        choose_activity(event, mode=BASELINE)


def test_merge_group_without_its_head_is_bad_input() -> None:
    payload = event_payload("merge_group.checks_requested")
    del payload["merge_group"]["head_sha"]
    with pytest.raises(InputError, match=r"merge_group\.head_sha"):
        choose_activity(read_event("merge_group", payload))
