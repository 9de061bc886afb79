"""Which activity a workflow run performs, decided from the event alone (a pure function).

| event | activity |
| --- | --- |
| ``pull_request`` (opened, synchronize, reopened, ...) | evaluate the PR, comment, gate it |
| ``push`` / ``workflow_dispatch`` on the default branch | evaluate, save the baseline |
| ``push`` / ``workflow_dispatch`` on another ref, ``schedule`` | evaluate against the baseline |
| ``workflow_dispatch`` with ``pr: N`` | re-evaluate PR N, comment and status on its head |
| ``workflow_run`` | publish what a fork PR's read-only run left as an artifact |
| ``merge_group`` | evaluate the queued head, gate it (status on its sha), no comment |
| ``issue_comment`` ``/ragguard accept <reason>`` on a PR | accept its regression (ci/accept.py) |
| ``issue_comment`` with ``mode`` or ``pr`` set | as the mode says; ``pull-request``: the PR commented on |

The ``mode`` input overrides the choice: ``pull-request`` (needs a pull request number from
the event or ``pr``), ``baseline``, ``evaluate`` or ``publish``. A baseline is saved only from
a push to the default branch or an explicit ``workflow_dispatch`` (``mode: baseline`` on a
dispatch saves the baseline of the branch it runs on; so does one on a ``workflow_run`` that
follows a push): a scheduled run, a push elsewhere or a pull request never replaces it, so the
newest run does not become the approved baseline just because it is the newest.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragguard.core.errors import InputError
from ragguard.github import EventContext

PULL_REQUEST, BASELINE, EVALUATE, PUBLISH = "pull-request", "baseline", "evaluate", "publish"
ACCEPT, IGNORE = "accept", "ignore"
PULL_EVENTS = ("pull_request", "pull_request_target")
MERGE_GROUP = "merge_group"
SAVING_EVENTS = ("push", "workflow_dispatch")
ACCEPT_COMMAND = "/ragguard accept"


@dataclass(frozen=True)
class Activity:
    """What to do. ``pr`` is where to post; ``target_branch`` whose baseline to compare with.

    ``base_sha`` is the commit whose baseline to prefer when the event names it (a merge
    group's base), saving the API's merge-base lookup.
    """

    kind: str
    why: str
    pr: int | None = None
    head_sha: str | None = None
    target_branch: str | None = None
    save_baseline: bool = False
    fork: bool = False
    base_sha: str | None = None


def choose_activity(event: EventContext, mode: str = "auto", pr: int | None = None) -> Activity:
    """The activity for ``event``; ``mode`` (the input) and ``pr`` override the event's choice
    (on ``issue_comment`` too: ``mode: pull-request`` there evaluates the commented pull
    request, its head fetched through the API, never nothing)."""
    if event.name == "issue_comment" and mode == "auto" and pr is None:
        return _comment_command(event)
    activity = _from_event(event, pr) if mode == "auto" else _forced(event, mode, pr)
    if activity.save_baseline and event.name in (*PULL_EVENTS, MERGE_GROUP):
        raise InputError(
            "input mode",
            f"a {event.name} run executes the pull request's code and may not save a baseline; "
            "baselines are saved from a push to the default branch or a workflow_dispatch",
        )
    if activity.save_baseline and event.name == "workflow_run" and event.run_event != "push":
        raise InputError(
            "input mode",
            f"a workflow_run after a {event.run_event or 'unknown'} run may hold a pull "
            "request's results and may not save a baseline; baselines are saved from a push "
            "to the default branch or a workflow_dispatch (or a workflow_run after a push)",
        )
    if activity.save_baseline and not _may_save(event):
        raise InputError(
            "input mode",
            f"a {event.name} run on {event.branch or event.ref or 'this ref'} may not save a "
            "baseline: baselines are saved only from a push to the default branch or an "
            "explicit workflow_dispatch (see docs/action.md)",
        )
    return activity


def _may_save(event: EventContext) -> bool:
    """A dispatch, a push to the default branch, or (``mode: baseline``) a workflow_run
    that follows a push: the second stage of a push's pipeline."""
    if event.name in ("workflow_dispatch", "workflow_run"):
        return True
    return event.name == "push" and event.on_default_branch


def _comment_command(event: EventContext) -> Activity:
    """``/ragguard accept <reason>`` as a new comment on a pull request; anything else is
    ignored (an edited comment too: the command is what was posted, not what it became)."""
    body = (event.comment_body or "").strip()
    command = body.split(None, 2)[:2] == ACCEPT_COMMAND.split()
    if event.action != "created" or not event.issue_is_pull or not command:
        return Activity(IGNORE, "issue_comment: not a new /ragguard accept on a pull request")
    return Activity(
        ACCEPT,
        f"issue_comment on #{event.issue_number}: {ACCEPT_COMMAND} by {event.comment_user}",
        pr=event.issue_number,
    )


def _from_event(event: EventContext, pr: int | None) -> Activity:
    if event.name in PULL_EVENTS:
        return _pull_request(event)
    if event.name == MERGE_GROUP:
        return _merge_group(event)
    if event.name == "workflow_run":
        return Activity(PUBLISH, "workflow_run: publish a fork pull request's results")
    if pr is not None:
        return Activity(PULL_REQUEST, f"{event.name} with pr={pr}: re-evaluate #{pr}", pr=pr)
    if event.name == "schedule" and event.branch:
        # GitHub runs scheduled workflows on the default branch; the payload does not say so.
        return Activity(
            EVALUATE,
            f"schedule on {event.branch}: evaluate against its baseline (not saved)",
            head_sha=event.sha,
            target_branch=event.branch,
        )
    if event.name in SAVING_EVENTS and event.on_default_branch:
        return Activity(
            BASELINE,
            f"{event.name} on the default branch {event.branch}: evaluate and save the baseline",
            head_sha=event.sha,
            target_branch=event.branch,
            save_baseline=True,
        )
    target = event.default_branch
    return Activity(
        EVALUATE,
        f"{event.name} on {event.branch or event.ref or 'this ref'}: evaluate and report",
        head_sha=event.sha,
        target_branch=target,
    )


def _pull_request(event: EventContext) -> Activity:
    if event.pull_number is None:
        raise InputError("GITHUB_EVENT_PATH", f"{event.name} payload has no pull request number")
    return Activity(
        PULL_REQUEST,
        f"{event.name} #{event.pull_number}: evaluate and gate the pull request",
        pr=event.pull_number,
        head_sha=event.pull_head_sha,
        target_branch=event.pull_base_ref,
        fork=event.is_fork_pull,
    )


def _merge_group(event: EventContext) -> Activity:
    """The queue's temporary head is gated like a pull request's, but has no PR to comment on."""
    head, base = event.merge_group_head_sha, event.merge_group_base_branch
    if not head or not base:
        raise InputError(
            "GITHUB_EVENT_PATH", "merge_group payload has no merge_group.head_sha or base_ref"
        )
    return Activity(
        EVALUATE,
        f"merge_group into {base}: evaluate and gate the queued head {head[:12]}",
        head_sha=head,
        target_branch=base,
        base_sha=event.merge_group_base_sha,
    )


def _forced(event: EventContext, mode: str, pr: int | None) -> Activity:
    if mode == PULL_REQUEST:
        if pr is not None:
            return Activity(PULL_REQUEST, f"mode {mode}: evaluate #{pr}", pr=pr)
        if event.pull_number is not None:
            return _pull_request(event)
        if event.commented_pull is not None:  # the payload has no head: resolve_target asks
            number = event.commented_pull
            return Activity(
                PULL_REQUEST,
                f"mode {mode} on a comment on #{number}: evaluate #{number}",
                pr=number,
            )
        raise InputError("input mode", "pull-request needs a pull request: set the pr input")
    if mode == PUBLISH:
        return Activity(PUBLISH, f"mode {mode}: publish a fork pull request's results")
    branch = event.branch or event.default_branch
    return Activity(
        mode,
        f"mode {mode} on {branch}",
        head_sha=event.sha,
        target_branch=branch if mode == BASELINE else event.default_branch,
        save_baseline=mode == BASELINE,
    )
