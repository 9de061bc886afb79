"""Publishing a fork pull request's report from a trusted ``workflow_run`` workflow.

A fork's ``pull_request`` run gets a read-only token, so `ragguard ci` there writes
``publish.json`` (comment body, status state and description, the head sha) and the workflow
uploads it as an artifact named ``ragguard-publish-<suite>``. The ``workflow_run`` workflow
runs this repository's code with a write token, downloads the artifact through the API and
posts it. What it trusts and what it does not:

* the pull request comes from the API (the open pull request whose head is the run's head
  sha), never from a number in the artifact; it must come from the run's head repository and
  branch, and no other open pull request may share that head (a status is the commit's, so it
  would speak for both);
* the status's description is written here from the verdict, never copied from the artifact,
  and by default a fork's pass is only advisory (``pending``) until a maintainer
  re-evaluates: see :func:`fork_status`;
* the artifact must describe the run's own head sha, the suite name must be a plain name and
  the one in the artifact's name, the state one of success/failure/error, and the comment must
  start with that suite's marker and fit GitHub's size limit;
* the artifact's content was produced by the pull request's code, so the comment and status
  say what that code reported: see docs/action.md on fork pull requests. The comment is
  posted by a bot with a write token, so it is first made as inert as ragguard's own output
  (:func:`inert_comment`): only the leading marker stays an HTML comment, only the tags
  ragguard writes stay tags, and no mention, issue reference, link, image or autolink is left.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ragguard.ci.accept import kept_acceptance
from ragguard.ci.collaborators import CiOutcome, Collaborators
from ragguard.ci.outputs import append_summary, write_outputs
from ragguard.ci.settings import ADVISORY, BINDING, CiSettings
from ragguard.config.sections.ci import DEFAULT_COMMENT_MODE
from ragguard.core.errors import InputError
from ragguard.core.exits import EXIT_OK
from ragguard.core.sources import parse_json_value
from ragguard.github import (
    GitHubClient,
    Outcome,
    comment_marker,
)
from ragguard.github.pulls import PullInfo
from ragguard.render import COMMENT_LIMIT, comment_length, printable
from ragguard.render.notes import fork_note
from ragguard.render.text import ZERO_WIDTH_SPACE

PUBLISH_SCHEMA = "ragguard.publish/1"
ARTIFACT_PREFIX = "ragguard-publish-"
PUBLISH_MEMBER = "publish.json"
MAX_PUBLISH_BYTES = 2 * 1024 * 1024
STATES = ("success", "failure", "error")
VERDICTS = ("pass", "warn", "fail", "error", "incomparable", "no-baseline")
_SUITE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
DESCRIPTION_LIMIT = 140
# What ragguard's own comments hold, and so all a published one may keep as markup.
_OWN_TAG = re.compile(r"</?(?:details|summary|sub|code)>")
_HTML_OPEN = re.compile(r"<(?=[A-Za-z/!?])")  # a tag, a comment, a declaration, an autolink
# An unescaped "]" (after an even run of backslashes) before "(" or "[" ends a link or image.
_LINK_OPEN = re.compile(r"(?<!\\)((?:\\\\)*)\](?=[(\[])")
# A link definition ([ref]: url) opens a line, also inside a quote or a list item.
_DEFINITION = re.compile(r"^([ \t>*+\-0-9.)]*)\[(?=(?:[^\]\\]|\\.)*\]:)", re.MULTILINE)
# A mention (@user, @org/team), an e-mail autolink (a@b.example), an issue reference (#1,
# org/repo#1, GH-1); a metric name such as hit_rate@3 is none of them and stays as it is,
# and so does a numeric entity (&#124;, which escape_markdown writes): GitHub reads it as
# the character it names, never as a reference.
_MENTION_OR_REFERENCE = re.compile(
    r"(?<![A-Za-z0-9_])@(?=[A-Za-z0-9])|(?<=[A-Za-z0-9_])@(?![0-9]+\b)(?=[A-Za-z0-9])"
    r"|(?<!&)#(?=[0-9])|(?<=&)#(?=[0-9]+(?![0-9;]))|\bGH-(?=[0-9])",
    re.IGNORECASE,
)
_AUTOLINK = re.compile(r"(?i)\b(?:(?:https?|ftp)(?=://)|(?:mailto|xmpp)(?=:)|www(?=\.))")


def publish_artifact_name(suite: str) -> str:
    return f"{ARTIFACT_PREFIX}{suite}"


@dataclass(frozen=True)
class Report:
    """A checked publish.json."""

    suite: str
    head_sha: str
    comment: str
    state: str
    description: str
    verdict: str = "unknown"  # older publish.json files do not say


def publish_document(
    suite: str,
    head_sha: str,
    comment: str,
    state: str,
    description: str,
    verdict: str | None = None,
) -> dict[str, Any]:
    document = {
        "schema": PUBLISH_SCHEMA,
        "suite": suite,
        "head_sha": head_sha,
        "comment": comment,
        "state": state,
        "description": description,
    }
    return document if verdict is None else {**document, "verdict": verdict}


def inert_comment(comment: str, marker: str) -> str:
    """A published comment with nothing active left after ``marker`` (its first line).

    Every ``<`` that would open HTML or an autolink, other than ragguard's own tags, becomes
    ``&lt;`` (so no other HTML, no second marker), and so does one of those tags that is not
    half of an open-close pair; a zero-width space goes after every ``@``, ``#`` and ``GH-``
    that would mention or reference, and inside every autolink; a backslash breaks every
    link, image and link definition. ragguard's own comments come through unchanged, apart
    from a zero-width space in a ``#<number>`` (their text is escaped this way already).
    """
    body = comment[len(marker) :]
    pieces = _OWN_TAG.split(body)
    tags = [tag if keep else "&lt;" + tag[1:] for tag, keep in _paired(_OWN_TAG.findall(body))]
    safe = [_inert_text(piece) for piece in pieces]
    out = [safe[0]]
    for tag, piece in zip(tags, safe[1:], strict=True):
        out += [tag, piece]
    return marker + "".join(out)


def _paired(tags: list[str]) -> list[tuple[str, bool]]:
    """Each tag, and whether it is half of an open-close pair (only pairs stay tags)."""
    keep = [False] * len(tags)
    open_tags: list[int] = []
    for index, tag in enumerate(tags):
        if not tag.startswith("</"):
            open_tags.append(index)
        elif open_tags and tags[open_tags[-1]] == "<" + tag[2:]:
            keep[open_tags.pop()] = keep[index] = True
    return list(zip(tags, keep, strict=True))


def _inert_text(text: str) -> str:
    text = _HTML_OPEN.sub("&lt;", text)
    text = _LINK_OPEN.sub(lambda m: m.group(1) + "]\\", text)
    text = _DEFINITION.sub(lambda m: m.group(1) + "\\[", text)
    text = _MENTION_OR_REFERENCE.sub(lambda m: m.group(0) + ZERO_WIDTH_SPACE, text)
    return _AUTOLINK.sub(lambda m: m.group(0) + ZERO_WIDTH_SPACE, text)


def parse_report(
    data: bytes, where: str, run_head_sha: str, expected_suite: str | None = None
) -> Report:
    """Check an artifact's publish.json; InputError (one line) says what is wrong.

    ``expected_suite`` is the suite the artifact's name promises; the comment comes back
    through :func:`inert_comment`, the description as one plain line.
    """
    try:
        document = parse_json_value(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(where, f"{PUBLISH_MEMBER} is not JSON: {exc}") from None
    if not isinstance(document, dict) or document.get("schema") != PUBLISH_SCHEMA:
        raise InputError(where, f"{PUBLISH_MEMBER} is not a {PUBLISH_SCHEMA} document")
    suite, head = document.get("suite"), document.get("head_sha")
    comment, state = document.get("comment"), document.get("state")
    description = document.get("description")
    if not isinstance(suite, str) or not _SUITE.fullmatch(suite):
        raise InputError(where, f"suite {_shown(suite)} is not a plain suite name")
    if expected_suite is not None and suite != expected_suite:
        raise InputError(
            where, f"is about suite {suite}, but the artifact's name says {expected_suite}"
        )
    if head != run_head_sha:
        raise InputError(
            where, f"describes commit {_shown(head)}, not the run's head {run_head_sha}"
        )
    if state not in STATES:
        raise InputError(where, f"state {_shown(state)} is not one of {', '.join(STATES)}")
    marker = comment_marker(suite)
    if not isinstance(comment, str) or not comment.startswith(marker):
        raise InputError(where, "the comment does not start with the suite's marker")
    inert = inert_comment(comment, marker)
    if comment_length(inert) >= COMMENT_LIMIT:
        raise InputError(where, f"the comment is over GitHub's {COMMENT_LIMIT} characters")
    if not isinstance(description, str):
        raise InputError(where, "description is not text")
    verdict = document.get("verdict", "unknown")
    if verdict not in (*VERDICTS, "unknown"):
        raise InputError(where, f"verdict {_shown(verdict)} is not one of {', '.join(VERDICTS)}")
    return Report(suite, head, inert, state, printable(description, DESCRIPTION_LIMIT), verdict)


def _shown(value: object) -> str:
    """An artifact's value in an error line: one printable line, short."""
    return printable(repr(value), 80)


def report_from_zip(
    data: bytes, where: str, run_head_sha: str, expected_suite: str | None = None
) -> Report:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        info = archive.getinfo(PUBLISH_MEMBER)
    except (zipfile.BadZipFile, KeyError):
        raise InputError(where, f"no {PUBLISH_MEMBER} in the artifact") from None
    if info.file_size > MAX_PUBLISH_BYTES:
        raise InputError(where, f"{PUBLISH_MEMBER} is over {MAX_PUBLISH_BYTES} bytes")
    return parse_report(archive.read(info), where, run_head_sha, expected_suite)


@dataclass(frozen=True)
class Published:
    suite: str
    pulls: tuple[int, ...]
    state: str
    comment_url: str | None


@dataclass(frozen=True)
class ForkRun:
    """The finished run being published, as the ``workflow_run`` payload names it."""

    run_id: int
    head_sha: str
    head_repo: str | None
    head_branch: str | None


def publish_run(
    github: GitHubClient,
    run: ForkRun,
    comment_mode: str,
    log: Callable[[str], None],
    fork_verdicts: str = ADVISORY,
) -> list[Published]:
    """Post every ``ragguard-publish-*`` artifact of ``run`` to its one pull request.

    The pull request is the one open pull request whose head is the run's head sha, from the
    run's head repository and branch; anything else is refused before any write. With
    ``fork_verdicts`` advisory (the default) a fork's own pass is posted as ``pending``: a
    maintainer's re-evaluation (workflow_dispatch with pr and sha) makes a verdict binding.
    """
    artifacts = [a for a in github.run_artifacts(run.run_id) if a.name.startswith(ARTIFACT_PREFIX)]
    if not artifacts:
        log(f"ragguard: run {run.run_id} left no {ARTIFACT_PREFIX}* artifact; nothing to publish")
        return []
    pulls = github.pulls_for_commit(run.head_sha)
    if not pulls:
        log(f"ragguard: no open pull request has head {run.head_sha[:12]}; nothing to publish")
        return []
    pull = pull_of_run(pulls, run)
    done = []
    for artifact in artifacts:
        where = f"artifact {artifact.name} ({artifact.id})"
        expected = artifact.name.removeprefix(ARTIFACT_PREFIX)
        data = github.download_artifact(artifact.id)
        report = report_from_zip(data, where, run.head_sha, expected)
        state, description = fork_status(report, fork_verdicts)
        kept = kept_acceptance(github, report.head_sha, report.suite, state)
        if kept is not None:  # a maintainer accepted this commit's regression: it stands
            state, description = "success", kept.description
        github.set_status(report.head_sha, report.suite, state, description)
        note = (kept.note if kept else "") + fork_note(fork_verdicts == BINDING)
        outcome = github.upsert_comment(
            pull.number,
            report.suite,
            with_note_under_marker(report.comment, report.suite, note),
            mode=comment_mode,
            regressed=report.state != "success",
            outcome=Outcome(report.verdict, state),
        )
        log(f"ragguard: published {report.suite} ({state}: {description}) to #{pull.number}")
        done.append(Published(report.suite, (pull.number,), state, outcome.url))
    return done


def pull_of_run(pulls: list[PullInfo], run: ForkRun) -> PullInfo:
    """The one pull request ``run`` may speak for; InputError (nothing written) otherwise.

    A commit status belongs to a commit, not to a pull request: when several open pull
    requests share the head sha, a status set for one shows on all of them, each with its
    own target branch, baseline and gate. So any second pull request with that head refuses
    the whole publish, and the one left must come from the run's head repository and branch.
    """
    where = f"workflow_run {run.run_id}"
    if not run.head_repo or not run.head_branch:
        raise InputError(
            where,
            "the payload does not name the run's head repository and branch "
            "(workflow_run.head_repository, workflow_run.head_branch); nothing is published",
        )
    if len(pulls) > 1:
        listed = ", ".join(f"#{p.number} from {p.head_repo}:{p.head_ref}" for p in pulls)
        raise InputError(
            where,
            f"{len(pulls)} open pull requests have head {run.head_sha[:12]} ({listed}); a "
            "status on that commit would speak for each of them, so nothing is published; "
            "a maintainer can re-evaluate one with workflow_dispatch (pr and sha)",
        )
    pull = pulls[0]
    if (pull.head_repo, pull.head_ref) != (run.head_repo, run.head_branch):
        raise InputError(
            where,
            f"#{pull.number} has head {pull.head_repo}:{pull.head_ref}, but the run was of "
            f"{run.head_repo}:{run.head_branch}; nothing is published",
        )
    return pull


_FROM_STATE = {"success": "pass", "failure": "fail", "error": "error"}


def fork_status(report: Report, fork_verdicts: str) -> tuple[str, str]:
    """The state and description to set for a fork run's report.

    The description is written here, never taken from the artifact: a fork could otherwise
    claim "accepted by @owner". Advisory (the default): a pass is ``pending``, so a required
    check is not met by the pull request's own word; a fail or error stands, marked.
    """
    verdict = report.verdict if report.verdict != "unknown" else _FROM_STATE[report.state]
    if fork_verdicts == BINDING:
        return report.state, f"{verdict} (reported by the fork's run)"
    if report.state == "success":
        return "pending", f"fork run says {verdict}: advisory until a maintainer re-evaluates"
    return report.state, f"fork run says {verdict} (advisory)"


def publish_fork_run(settings: CiSettings, collab: Collaborators) -> CiOutcome:
    event = settings.event
    if event.run_id is None or not event.run_head_sha:
        raise InputError(
            "GITHUB_EVENT_PATH", "publishing needs a workflow_run event (the run's id and head)"
        )
    run = ForkRun(int(event.run_id), event.run_head_sha, event.run_head_repo, event.run_head_branch)
    done = publish_run(
        collab.github,
        run,
        settings.comment_mode or DEFAULT_COMMENT_MODE,
        collab.log,
        settings.fork_verdicts,
    )
    url = next((p.comment_url for p in done if p.comment_url), None)
    states = ",".join(p.state for p in done)
    write_outputs(
        settings.output_file,
        {"status": states, "comment-url": url or "", "published": str(len(done))},
    )
    lines = [f"- {p.suite}: {p.state} on #{', #'.join(map(str, p.pulls))}" for p in done]
    append_summary(
        settings.summary_file,
        "### ragguard publish\n\n" + ("\n".join(lines) or "Nothing to publish.") + "\n",
    )
    return CiOutcome(None, states, EXIT_OK, None, None, False)


def with_note_under_marker(comment: str, suite: str, note: str) -> str:
    """``comment`` (starting with the suite's marker) with ``note`` right under the marker."""
    marker = comment_marker(suite)
    return marker + "\n" + note + "\n" + comment[len(marker) :]
