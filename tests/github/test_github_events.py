"""Reading the triggering event from real webhook payloads (@octokit/webhooks-examples)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragguard.github.events import load_event, read_event

EVENTS = Path(__file__).resolve().parents[1] / "fixtures" / "events"


def payload(name: str) -> dict:
    return json.loads((EVENTS / f"{name}.json").read_text())


def test_pull_request_event() -> None:
    event = read_event("pull_request", payload("pull_request.synchronize"))
    assert event.pull_number == 2
    assert event.pull_head_sha == "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
    assert (event.pull_head_ref, event.pull_base_ref) == ("changes", "master")
    assert event.repository == "Codertocat/Hello-World" and not event.is_fork_pull


def test_fork_pull_request_is_recognised() -> None:
    data = payload("pull_request.opened")
    data["pull_request"]["head"]["repo"]["full_name"] = "stranger/Hello-World"
    assert read_event("pull_request", data).is_fork_pull


def test_push_to_the_default_branch() -> None:
    event = read_event("push", payload("push"))
    assert (event.branch, event.default_branch, event.on_default_branch) == (
        "master",
        "master",
        True,
    )
    assert event.sha == payload("push")["after"]
    assert event.pull_number is None


def test_workflow_dispatch_inputs_and_ref() -> None:
    data = payload("workflow_dispatch")
    data["inputs"] = {"pr": "17", "empty": None}
    event = read_event("workflow_dispatch", data, sha="a" * 40)
    assert event.dispatch_inputs == {"pr": "17", "empty": ""}
    assert (event.branch, event.sha) == ("main", "a" * 40)


def test_workflow_run_gives_the_other_runs_identity() -> None:
    event = read_event("workflow_run", payload("workflow_run.completed"))
    run = payload("workflow_run.completed")["workflow_run"]
    assert (event.run_id, event.run_head_sha, event.run_event) == (
        run["id"],
        run["head_sha"],
        run["event"],
    )
    assert event.run_conclusion == "success"
    assert event.pull_number is None  # never taken from the other run's payload


def test_load_event_from_the_environment(tmp_path: Path) -> None:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload("pull_request.opened")))
    event = load_event(
        {
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(path),
            "GITHUB_REF": "refs/pull/2/merge",
        }
    )
    assert (event.name, event.pull_number, event.ref) == ("pull_request", 2, "refs/pull/2/merge")
    assert event.branch is None


def test_load_event_errors_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="GITHUB_EVENT_NAME: not set"):
        load_event({})
    broken = tmp_path / "event.json"
    broken.write_text("{not json")
    with pytest.raises(ValueError, match=r"event.json: cannot read the event payload"):
        load_event({"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(broken)})
    broken.write_text("[]")
    with pytest.raises(ValueError, match="is not a JSON object"):
        load_event({"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(broken)})


@pytest.mark.parametrize(
    ("name", "where", "key"),
    [
        ("pull_request.opened", ("number",), "number"),
        ("pull_request.opened", ("pull_request", "number"), "pull_request.number"),
        ("workflow_run.completed", ("workflow_run", "id"), "workflow_run.id"),
        ("issue_comment.created", ("issue", "number"), "issue.number"),
    ],
)
@pytest.mark.parametrize("value", [0, -7])
def test_a_number_github_counts_from_one_is_refused_below_one(
    name: str, where: tuple[str, ...], key: str, value: int
) -> None:
    """A negative pull request number in the payload was only found late, after requests."""
    data = payload(name)
    target = data
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = value
    if where == ("pull_request", "number"):
        data.pop("number", None)
    event_name = name.split(".")[0]
    with pytest.raises(ValueError, match=rf"^{key}: expected a number from 1, found {value}$"):
        read_event(event_name, data)
