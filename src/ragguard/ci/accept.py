"""``/ragguard accept <reason>``: a maintainer accepts a pull request's regression, on record.

Why a comment command and not a label: a label carries no reason, and anyone with triage
access may add one. A comment says who and why, and the ``issue_comment`` workflow runs the
default branch's workflow file and code with a token that may write, even for a fork's pull
request. The commenter's permission is checked through the API (write, maintain or admin);
anyone else is refused with a reply, never silently.

An acceptance turns the head commit's ``ragguard/<suite>`` status from failure to success
with "accepted by @user: reason", and the sticky comment records it. It applies to the head
the comment was written for: a head judged after the comment was posted is refused (the
maintainer has not seen that result), and a new push is evaluated afresh, its status set by
that run. An ``error`` (nothing was judged) cannot be accepted: re-run instead.

The record is the status itself: the accept job's success on that commit stays in the
commit's status history. A re-run of the same commit (a job re-run, a workflow_dispatch for
the same head, a fork's run published again) looks it up there (:func:`kept_acceptance`) and
sets it again when its result is a failure; a new push is a new commit, with no acceptance.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from ragguard.ci.activity import (
    Activity,
)
from ragguard.ci.collaborators import CiOutcome, Collaborators
from ragguard.ci.outputs import append_summary, write_outputs
from ragguard.ci.settings import CiSettings
from ragguard.config.load import ConfigFile, load_config
from ragguard.core.exits import EXIT_OK
from ragguard.github import CommentOutcome, PullInfo
from ragguard.github.comments import note_at_top
from ragguard.github.statuses import StatusInfo, acceptance_description, accepted_by
from ragguard.render import escape_markdown
from ragguard.render.notes import acceptance_note, refusal_reply

WRITE_PERMISSIONS = ("admin", "write")  # the API reports maintain as write
REASON_LIMIT = 100  # the status description holds 140 characters in all


class AcceptGitHub(Protocol):
    """What accepting needs of GitHub (GitHubClient has it; tests may hand in the fake's)."""

    def permission(self, login: str) -> str: ...

    def pull(self, number: int) -> PullInfo: ...

    def status_of(self, sha: str, suite: str) -> StatusInfo | None: ...

    def set_status(self, sha: str, suite: str, state: str, description: str) -> None: ...

    def sticky_body(self, number: int, suite: str) -> str | None: ...

    def upsert_comment(
        self, number: int, suite: str, body: str, mode: str = "update", regressed: bool = False
    ) -> CommentOutcome: ...

    def reply(self, number: int, body: str) -> CommentOutcome: ...


class AcceptanceRecords(Protocol):
    """Where acceptances are on record: the commit's status history (GitHubClient)."""

    def acceptance_of(self, sha: str, suite: str) -> StatusInfo | None: ...


@dataclass(frozen=True)
class KeptAcceptance:
    """An acceptance on record that a re-run of its commit keeps: the status to set again
    and the note for the top of the comment."""

    description: str
    note: str


@dataclass(frozen=True)
class Command:
    """The comment that asked: who, on which pull request, when, and the text after accept."""

    pr: int
    login: str
    body: str
    created_at: str | None


@dataclass(frozen=True)
class Acceptance:
    """What came of the command: ``accepted`` or not, and one line saying why."""

    accepted: bool
    line: str
    head_sha: str | None = None


def reason_of(body: str) -> str:
    """The words after ``/ragguard accept``, on one line."""
    parts = body.strip().split(None, 2)
    return " ".join(parts[2].split()) if len(parts) > 2 else ""


def accept(github: AcceptGitHub, command: Command, suite: str) -> Acceptance:
    """Check the commenter and the head's result; on success set the status and record it."""
    refusal, head = _refusal(github, command, suite)
    if refusal:
        github.reply(command.pr, refusal_reply(command.login, suite, refusal))
        return Acceptance(False, f"not accepted: {refusal}", head)
    assert head is not None
    reason = reason_of(command.body)
    clipped = reason if len(reason) <= REASON_LIMIT else reason[: REASON_LIMIT - 1] + "…"
    github.set_status(head, suite, "success", acceptance_description(command.login, clipped))
    note = acceptance_note(command.login, head, reason, suite)
    existing = github.sticky_body(command.pr, suite)
    if existing is not None:
        github.upsert_comment(command.pr, suite, note_at_top(note, existing), mode="update")
    else:
        github.reply(command.pr, note)
    return Acceptance(True, f"accepted by @{command.login} on {head[:12]}: {reason}", head)


def _refusal(github: AcceptGitHub, command: Command, suite: str) -> tuple[str, str | None]:
    """Why the command cannot be honoured ("" when it can), and the head it is about."""
    if not reason_of(command.body):
        return "a reason is required: `/ragguard accept <why this regression is acceptable>`", None
    permission = github.permission(command.login)
    if permission not in WRITE_PERMISSIONS:
        return (
            f"@{command.login} has {permission} access to this repository; accepting a "
            "regression needs write access",
            None,
        )
    head = github.pull(command.pr).head_sha
    status = github.status_of(head, suite)
    if status is None or status.state == "pending":
        return f"ragguard/{suite} has no finished result on the head {head[:12]} yet", head
    if status.state == "success":
        return f"ragguard/{suite} already passes on {head[:12]}: nothing to accept", head
    if status.state == "error":
        return (
            f"ragguard/{suite} ended in error on {head[:12]} (nothing was judged); re-run it",
            head,
        )
    if _judged_after(status, command.created_at):
        return (
            f"{head[:12]} was judged after this comment was posted; look at its result and "
            "comment again",
            head,
        )
    return "", head


def kept_acceptance(
    records: AcceptanceRecords, sha: str, suite: str, state: str
) -> KeptAcceptance | None:
    """On a re-run of a commit whose regression was accepted, the acceptance stands: a
    ``failure`` on ``sha`` with an acceptance on record for that very commit becomes that
    acceptance again (an ``error`` is not covered: nothing was judged; a pass needs none).
    One request, made only for a failure."""
    if state != "failure":
        return None
    found = records.acceptance_of(sha, suite)
    parsed = accepted_by(found.description) if found is not None else None
    if found is None or parsed is None:
        return None
    login, reason = parsed
    return KeptAcceptance(found.description, acceptance_note(login, sha, reason, suite))


def _judged_after(status: StatusInfo, commented_at: str | None) -> bool:
    """Whether the failure being accepted was set after the comment (a newer head's)."""
    if status.updated_at is None or commented_at is None:
        return False
    try:
        judged = datetime.fromisoformat(status.updated_at.replace("Z", "+00:00"))
        said = datetime.fromisoformat(commented_at.replace("Z", "+00:00"))
    except ValueError:
        return False
    return judged > said


def accept_command(
    settings: CiSettings, collab: Collaborators, activity: Activity, file: ConfigFile
) -> CiOutcome:
    """A ``/ragguard accept`` comment: honoured or refused, and either way on record
    (``file``: ``settings.config``, parsed once for the whole run)."""
    config = load_config(file)  # the default branch's: issue_comment runs there
    event = settings.event
    assert activity.pr is not None
    command = Command(
        activity.pr, event.comment_user or "", event.comment_body or "", event.comment_created_at
    )
    done = accept(collab.github, command, config.suite)
    line = f"ragguard: {config.suite} on #{activity.pr}: {done.line}"
    collab.log(line)
    append_summary(settings.summary_file, escape_markdown(line, 1000) + "\n")
    state = "success" if done.accepted else ""
    write_outputs(settings.output_file, {"status": state, "accepted": str(done.accepted).lower()})
    return CiOutcome(None, state, EXIT_OK, None, None, False)
