"""Publishing a fork pull request's report from a trusted ``workflow_run`` workflow.

A fork's ``pull_request`` run gets a read-only token, so `ragguard ci` there writes
``publish.json`` (comment body, status state and description, the head sha) and the workflow
uploads it as an artifact named ``ragguard-publish-<suite>``. The ``workflow_run`` workflow
runs this repository's code with a write token, downloads the artifact through the API and
posts it. What it trusts and what it does not:

* the pull request comes from the API (open pull requests whose head is the run's head sha),
  never from a number in the artifact;
* the artifact must describe the run's own head sha, the suite name must be a plain name, the
  state one of success/failure/error, and the comment must start with that suite's marker;
* the artifact's content was produced by the pull request's code, so the comment and status
  say what that code reported: see docs/action.md on fork pull requests.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ragguard.errors import InputError
from ragguard.github import GitHubClient, comment_marker

PUBLISH_SCHEMA = "ragguard.publish/1"
ARTIFACT_PREFIX = "ragguard-publish-"
PUBLISH_MEMBER = "publish.json"
MAX_PUBLISH_BYTES = 2 * 1024 * 1024
STATES = ("success", "failure", "error")
_SUITE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


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


def publish_document(
    suite: str, head_sha: str, comment: str, state: str, description: str
) -> dict[str, Any]:
    return {
        "schema": PUBLISH_SCHEMA,
        "suite": suite,
        "head_sha": head_sha,
        "comment": comment,
        "state": state,
        "description": description,
    }


def parse_report(data: bytes, where: str, run_head_sha: str) -> Report:
    """Check an artifact's publish.json; InputError (one line) says what is wrong."""
    try:
        document = json.loads(data)
    except ValueError as exc:
        raise InputError(where, f"{PUBLISH_MEMBER} is not JSON: {exc}") from None
    if not isinstance(document, dict) or document.get("schema") != PUBLISH_SCHEMA:
        raise InputError(where, f"{PUBLISH_MEMBER} is not a {PUBLISH_SCHEMA} document")
    suite, head = document.get("suite"), document.get("head_sha")
    comment, state = document.get("comment"), document.get("state")
    description = document.get("description")
    if not isinstance(suite, str) or not _SUITE.fullmatch(suite):
        raise InputError(where, f"suite {suite!r} is not a plain suite name")
    if head != run_head_sha:
        raise InputError(where, f"describes commit {head!r}, not the run's head {run_head_sha}")
    if state not in STATES:
        raise InputError(where, f"state {state!r} is not one of {', '.join(STATES)}")
    if not isinstance(comment, str) or not comment.startswith(comment_marker(suite)):
        raise InputError(where, "the comment does not start with the suite's marker")
    if not isinstance(description, str):
        raise InputError(where, "description is not text")
    return Report(suite, head, comment, state, description)


def report_from_zip(data: bytes, where: str, run_head_sha: str) -> Report:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        info = archive.getinfo(PUBLISH_MEMBER)
    except (zipfile.BadZipFile, KeyError):
        raise InputError(where, f"no {PUBLISH_MEMBER} in the artifact") from None
    if info.file_size > MAX_PUBLISH_BYTES:
        raise InputError(where, f"{PUBLISH_MEMBER} is over {MAX_PUBLISH_BYTES} bytes")
    return parse_report(archive.read(info), where, run_head_sha)


@dataclass(frozen=True)
class Published:
    suite: str
    pulls: tuple[int, ...]
    state: str
    comment_url: str | None


def publish_run(
    github: GitHubClient,
    run_id: int,
    run_head_sha: str,
    comment_mode: str,
    log: Callable[[str], None],
) -> list[Published]:
    """Post every ``ragguard-publish-*`` artifact of run ``run_id`` to its pull request."""
    artifacts = [a for a in github.run_artifacts(run_id) if a.name.startswith(ARTIFACT_PREFIX)]
    if not artifacts:
        log(f"ragguard: run {run_id} left no {ARTIFACT_PREFIX}* artifact; nothing to publish")
        return []
    pulls = github.pulls_for_commit(run_head_sha)
    if not pulls:
        log(f"ragguard: no open pull request has head {run_head_sha[:12]}; nothing to publish")
        return []
    done = []
    for artifact in artifacts:
        where = f"artifact {artifact.name} ({artifact.id})"
        report = report_from_zip(github.download_artifact(artifact.id), where, run_head_sha)
        github.set_status(report.head_sha, report.suite, report.state, report.description)
        url = None
        for pull in pulls:
            outcome = github.upsert_comment(
                pull.number,
                report.suite,
                report.comment,
                mode=comment_mode,
                regressed=report.state != "success",
            )
            url = outcome.url or url
        numbers = tuple(p.number for p in pulls)
        log(
            f"ragguard: published {report.suite} ({report.state}) to #{', #'.join(map(str, numbers))}"
        )
        done.append(Published(report.suite, numbers, report.state, url))
    return done
