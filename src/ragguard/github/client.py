"""GitHubClient: the handful of GitHub operations ragguard performs, each through PyGithub.

The rest of ragguard sees only this class (and can hand a fake of it to its own tests): the
comment body and results are strings and bytes here, never parsed. Each method makes as few
requests as it can: objects are lazy, pages hold 100 items, and the token's login is looked up
only when a marked comment needs telling apart from someone else's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cached_property

from github.CommitStatus import CommitStatus
from github.PaginatedList import PaginatedList
from github.Repository import Repository

import github
from github import GithubException
from ragguard.config.sections.ci import COMMENT_MODES
from ragguard.github.artifacts import (
    ArtifactRef,
    RunRef,
    artifact_ref,
    fetch_presigned,
    run_ref,
)
from ragguard.github.comments import (
    CommentOutcome,
    Outcome,
    comment_marker,
    find_sticky,
    outcome_of,
    plan_comment,
    turned_worse,
    with_marker,
)
from ragguard.github.connection import GitHubSettings, connect
from ragguard.github.databranch import DATA_BRANCH, DataBranchStore
from ragguard.github.errors import GitHubError, github_call
from ragguard.github.minimize import minimize_comment
from ragguard.github.pulls import PullInfo, pull_info
from ragguard.github.statuses import (
    StatusInfo,
    accepted_by,
    check_state,
    clip_description,
    status_context,
)

ACTIONS_BOT = "github-actions[bot]"
STATUS_RETRIES = 4  # waits 0+2+4+8 s on 5xx; ci/status.py caps the time on all status writes
STATUS_BACKOFF_MAX = 8.0


class GitHubClient:
    """One repository on one GitHub (github.com or GHES), as one token sees it."""

    def __init__(self, settings: GitHubSettings, gh: github.Github | None = None) -> None:
        self.settings = settings
        self.gh = gh or connect(settings)
        self._status_gh = gh or connect(
            replace(
                settings,
                retries=min(settings.retries, STATUS_RETRIES),
                backoff_max=min(settings.backoff_max, STATUS_BACKOFF_MAX),
            )
        )
        self._login: str | None = settings.comment_author

    @cached_property
    def repo(self) -> Repository:
        return self.gh.get_repo(self.settings.repository)

    @cached_property
    def _status_repo(self) -> Repository:
        """The repository through the connection with fewer retries, for status writes."""
        return self._status_gh.get_repo(self.settings.repository)

    # ----- identity ------------------------------------------------------------------------

    def whoami(self) -> str:
        """The token's login; the job token (an app installation) may not read /user."""
        if self._login is None:
            try:
                self._login = self.gh.get_user().login
            except GithubException as exc:
                if exc.status != 403:
                    with github_call("read the token's user"):
                        raise
                self._login = ACTIONS_BOT
        return self._login

    # ----- pull requests and commits -------------------------------------------------------

    def pull(self, number: int) -> PullInfo:
        with github_call(f"read pull request #{number}"):
            return pull_info(self.repo.get_pull(number).raw_data)

    def pulls_for_commit(self, sha: str) -> list[PullInfo]:
        """Open pull requests whose head is ``sha`` (for publishing a fork's run)."""
        with github_call(f"list pull requests of {sha[:12]}"):
            found = [pull_info(p.raw_data) for p in self.repo.get_commit(sha).get_pulls()]
        return [p for p in found if p.head_sha == sha and p.state == "open"]

    def merge_base(self, base: str, head: str) -> str:
        with github_call(f"compare {base}...{head}"):
            return self.repo.compare(base, head).merge_base_commit.sha

    def commit_time(self, ref: str) -> str:
        """The committer date of ``ref`` as GitHub reports it (ISO 8601, UTC)."""
        with github_call(f"read commit {ref}"):
            return self.repo.get_commit(ref).raw_data["commit"]["committer"]["date"]

    # ----- status and comment --------------------------------------------------------------

    def set_status(
        self, sha: str, suite: str, state: str, description: str, target_url: str | None = None
    ) -> None:
        """Set ``ragguard/<suite>`` on ``sha`` (a pull request's head, never its merge commit)."""
        url = target_url or self.settings.run_url
        with github_call(f"set status {status_context(suite)} on {sha[:12]}", write=True):
            kwargs = {"target_url": url} if url else {}
            self._status_repo.get_commit(sha).create_status(
                state=check_state(state),
                description=clip_description(description),
                context=status_context(suite),
                **kwargs,
            )

    def upsert_comment(
        self,
        number: int,
        suite: str,
        body: str,
        mode: str = "update",
        regressed: bool = False,
        outcome: Outcome | None = None,
    ) -> CommentOutcome:
        """Create or update the suite's sticky comment on pull request ``number``.

        ``outcome`` is stored in the comment; in mode ``new-on-worse`` an outcome that turned
        worse than the stored one posts a new comment and minimises the old one as outdated.
        """
        marker = comment_marker(suite)
        text = with_marker(body, marker, outcome)
        if mode not in COMMENT_MODES:
            raise ValueError(f"comment mode {mode!r} is not one of {', '.join(COMMENT_MODES)}")
        if mode == "off":
            return CommentOutcome("skipped")
        issue = self.repo.get_issue(number)
        existing = None
        if mode != "new":
            with github_call(f"list comments of #{number}"):
                existing = find_sticky(issue.get_comments(), marker, self.whoami)
        worse = existing is not None and turned_worse(outcome_of(existing.body), outcome)
        action = plan_comment(mode, existing is not None, regressed, worse)
        if action == "skip":
            return CommentOutcome("skipped")
        if action == "update" and existing is not None:
            if existing.body == text:
                return CommentOutcome("unchanged", existing.id, existing.html_url)
            with github_call(f"update comment {existing.id}", write=True):
                existing.edit(text)
            return CommentOutcome("updated", existing.id, existing.html_url)
        with github_call(f"comment on #{number}", write=True):
            created = issue.create_comment(text)
        if action != "replace" or existing is None:
            return CommentOutcome("created", created.id, created.html_url)
        return self._replaced(created.id, created.html_url, existing.id, existing.node_id)

    def _replaced(self, new_id: int, url: str, old_id: int, old_node: str) -> CommentOutcome:
        """The outcome of a replacement, once the old comment is minimised (or why not: the
        new comment is what notifies, so a failed minimise is reported, not raised)."""
        try:
            minimize_comment(self.gh.requester, old_node)
        except GitHubError as exc:
            return CommentOutcome("replaced", new_id, url, old_id, str(exc))
        return CommentOutcome("replaced", new_id, url, old_id)

    def sticky_body(self, number: int, suite: str) -> str | None:
        """The body of the suite's sticky comment on ``number`` (ours), None when there is none."""
        issue = self.repo.get_issue(number)
        with github_call(f"list comments of #{number}"):
            existing = find_sticky(issue.get_comments(), comment_marker(suite), self.whoami)
        return existing.body if existing is not None else None

    def reply(self, number: int, body: str) -> CommentOutcome:
        """A plain comment on ``number`` (no marker: never taken for the sticky one)."""
        with github_call(f"comment on #{number}", write=True):
            created = self.repo.get_issue(number).create_comment(body)
        return CommentOutcome("created", created.id, created.html_url)

    # ----- governance ----------------------------------------------------------------------

    def file_at(self, path: str, ref: str) -> bytes | None:
        """The content of ``path`` at ``ref`` (a commit), None when no such file is there."""
        with github_call(f"read {path} at {ref[:12]}"):
            try:
                found = self.repo.get_contents(path, ref=ref)
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise
        return None if isinstance(found, list) else found.decoded_content

    def permission(self, login: str) -> str:
        """``admin``, ``write``, ``read`` or ``none``: what ``login`` may do here (``maintain``
        counts as write and ``triage`` as read in this answer)."""
        with github_call(f"read the permission of {login}"):
            try:
                return self.repo.get_collaborator_permission(login)
            except GithubException as exc:
                if exc.status == 404:
                    return "none"
                raise

    def status_of(self, sha: str, suite: str) -> StatusInfo | None:
        """The newest ``ragguard/<suite>`` status on ``sha``, None when it was never set."""
        context = status_context(suite)
        with github_call(f"read the statuses of {sha[:12]}"):
            for status in self.repo.get_commit(sha).get_combined_status().statuses:
                if status.context == context:
                    when = status.updated_at or status.created_at
                    return StatusInfo(
                        status.state, status.description or "", when.isoformat() if when else None
                    )
        return None

    def acceptance_of(self, sha: str, suite: str) -> StatusInfo | None:
        """The newest acceptance on record for ``sha``: a ``ragguard/<suite>`` success
        "accepted by @user: reason" that this token's login set (the accept job), found in
        the commit's status history (newest first); None when there is none."""
        context, me = status_context(suite), self.whoami()
        url = f"{self.repo.url}/commits/{sha}/statuses"  # documented; PyGithub's is legacy
        with github_call(f"read the status history of {sha[:12]}"):
            for status in PaginatedList(CommitStatus, self.gh.requester, url, None):
                description = status.description or ""
                if (
                    status.context == context
                    and status.state == "success"
                    and accepted_by(description) is not None
                    and getattr(status.creator, "login", None) == me
                ):
                    when = status.updated_at or status.created_at
                    return StatusInfo(status.state, description, when.isoformat() if when else None)
        return None

    # ----- baselines -----------------------------------------------------------------------

    def data_branch(self, branch: str = DATA_BRANCH, max_attempts: int = 6) -> DataBranchStore:
        return DataBranchStore(
            self.repo, self.settings.event_name, branch=branch, max_attempts=max_attempts
        )

    # ----- workflow runs and artifacts -----------------------------------------------------

    def latest_successful_run(
        self, branch: str, event: str | None = None, workflow_name: str | None = None
    ) -> RunRef | None:
        """The newest successful run on ``branch`` (optionally of one event and workflow)."""
        filters: Mapping[str, str] = {"branch": branch, "status": "success"}
        if event:
            filters = {**filters, "event": event}
        with github_call(f"list successful runs on {branch}"):
            for run in self.repo.get_workflow_runs(**filters):
                if workflow_name is None or run.name == workflow_name:
                    return run_ref(run.raw_data)
        return None

    def run_artifacts(self, run_id: int, name: str | None = None) -> list[ArtifactRef]:
        with github_call(f"list artifacts of run {run_id}"):
            found = [
                artifact_ref(a.raw_data) for a in self.repo.get_workflow_run(run_id).get_artifacts()
            ]
        return [a for a in found if name is None or a.name == name]

    def artifacts_named(self, name: str) -> list[ArtifactRef]:
        """The repository's newest artifacts called ``name`` (one page: up to 100)."""
        with github_call(f"list artifacts named {name}"):
            page = self.repo.get_artifacts(name=name).get_page(0)
            return [artifact_ref(a.raw_data) for a in page]

    def download_artifact(self, artifact_id: int) -> bytes:
        """The artifact's zip: PyGithub asks the API for the storage URL; the token stays home."""
        action = f"download artifact {artifact_id}"
        with github_call(action):
            headers, _ = self.gh.requester.requestJsonAndCheck(
                "GET", f"{self.repo.url}/actions/artifacts/{artifact_id}/zip"
            )
        location = {k.lower(): v for k, v in headers.items()}.get("location")
        if not location:
            raise GitHubError(action, None, "no redirect to the artifact's storage URL")
        with github_call(action):
            return fetch_presigned(location, timeout=self.settings.timeout)
