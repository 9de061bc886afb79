"""Baselines on the data branch ``ragguard-data``, read and written through the contents API.

Layout, per target branch and suite::

    <branch>/<suite>.json                  the newest baseline (by the evaluated commit's time)
    <branch>/<suite>/<commit>.json         the baseline of each evaluated commit (merge-base lookups)
    <branch>/<suite>.history.jsonl         one summary line per saved baseline, oldest first

Reads need only ``contents: read``, so a fork's read-only token can fetch the baseline. Writes
are compare-and-swap on the file's blob sha: when another writer moved the file in between,
GitHub answers 409 (or 422 for a file that appeared), and we read it again and re-apply our
change (append our history line, keep the newer baseline), so neither write is lost. Writes
from ``pull_request`` and ``pull_request_target`` are refused: those runs execute the pull
request's code and must not be able to replace the baseline it is judged against.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from github.Repository import Repository

from github import GithubException, InputGitTreeElement
from ragguard.compare.baseline import BASELINE_SCHEMA, stored_document
from ragguard.core.sources import parse_json_value
from ragguard.github.errors import (
    BaselineConflictError,
    UntrustedEventError,
    exception_message,
    github_call,
)

DATA_BRANCH = "ragguard-data"
UNTRUSTED_EVENTS = frozenset({"pull_request", "pull_request_target"})
README = (
    "# ragguard data\n\nBaselines and history written by the ragguard action. "
    "This branch shares no history with the code; do not merge it.\n"
)


@dataclass(frozen=True)
class StoredBaseline:
    """A baseline read back: the results bytes and which commit they describe, from when."""

    suite: str
    branch: str
    commit: str
    committed_at: str | None
    saved_at: str
    results: bytes
    path: str
    exact: bool
    source: str = ""  # where it was read, as errors name it (data branch:path); path if empty

    @property
    def where(self) -> str:
        """The store and file it came from, for an error about it."""
        return self.source or self.path

    def age(self, now: datetime) -> float | None:
        """Seconds between the evaluated commit (else the save) and ``now``."""
        moment = parse_moment(self.committed_at) or parse_moment(self.saved_at)
        return None if moment is None else (now - moment).total_seconds()


@dataclass(frozen=True)
class SaveReport:
    """What a save did: the files written, and how many compare-and-swap retries it took."""

    paths: tuple[str, ...]
    retries: int
    created_branch: bool
    latest_replaced: bool


@dataclass(frozen=True)
class WriteOutcome:
    """The bytes a compare-and-swap write left in place, and the retries it needed."""

    written: bytes | None
    retries: int
    created_branch: bool


def latest_path(branch: str, suite: str) -> str:
    return f"{branch}/{suite}.json"


def snapshot_path(branch: str, suite: str, commit: str) -> str:
    return f"{branch}/{suite}/{commit}.json"


def history_path(branch: str, suite: str) -> str:
    return f"{branch}/{suite}.history.jsonl"


def baseline_document(
    suite: str,
    branch: str,
    commit: str,
    results: bytes,
    saved_at: str,
    committed_at: str | None = None,
    run_url: str | None = None,
) -> dict[str, Any]:
    """The stored JSON: the results themselves plus where and when they come from."""
    return {
        "schema": BASELINE_SCHEMA,
        "suite": suite,
        "branch": branch,
        "commit": commit,
        "committed_at": committed_at,
        "saved_at": saved_at,
        "run_url": run_url,
        "results": json.loads(results),
    }


def encode_document(document: Mapping[str, Any]) -> bytes:
    return (json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def parse_moment(value: object) -> datetime | None:
    """An ISO 8601 time (``Z`` or an offset; naive means UTC), or None if it is not one."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def newer_than(candidate: Mapping[str, Any], current: Mapping[str, Any]) -> bool:
    """Whether ``candidate`` should replace ``current`` as the newest baseline.

    The evaluated commit's time decides (a late save of an old commit must not win); when either
    lacks it, the save time does. Times in different offsets compare as instants.
    """
    for key in ("committed_at", "saved_at"):
        mine, theirs = parse_moment(candidate.get(key)), parse_moment(current.get(key))
        if mine is not None and theirs is not None:
            return mine >= theirs
    return True


def keep_newer(new: bytes) -> Callable[[bytes | None], bytes]:
    """The change to the latest file: ours, unless what is there describes a newer commit."""
    mine = json.loads(new)

    def apply(old: bytes | None) -> bytes:
        if old is None:
            return new
        try:
            theirs = parse_json_value(old.decode("utf-8"))
        except ValueError:  # UnicodeDecodeError and a lone surrogate too: damaged, replaced
            return new
        return new if newer_than(mine, theirs) else old

    return apply


def append_line(line: Mapping[str, Any]) -> Callable[[bytes | None], bytes]:
    """The change to the history file: our line appended to whatever is there now."""
    encoded = (json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n").encode()

    def apply(old: bytes | None) -> bytes:
        if not old:
            return encoded
        return old.rstrip(b"\n") + b"\n" + encoded

    return apply


def replace_with(new: bytes) -> Callable[[bytes | None], bytes]:
    return lambda old: new


def parse_history(data: bytes) -> list[dict[str, Any]]:
    """History lines, oldest first; a damaged line is skipped rather than failing the report."""
    lines = []
    for raw in data.splitlines():
        try:
            value = parse_json_value(raw.decode("utf-8"))
        except ValueError:  # a lone surrogate too (core/surrogates.py): a damaged line
            continue
        if isinstance(value, dict):
            lines.append(value)
    return lines


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class DataBranchStore:
    """Baselines on a data branch of ``repo`` (a lazy PyGithub Repository)."""

    def __init__(
        self,
        repo: Repository,
        event_name: str,
        branch: str = DATA_BRANCH,
        max_attempts: int = 6,
        clock: Callable[[], str] = utc_now,
    ) -> None:
        self.repo = repo
        self.event_name = event_name
        self.branch = branch
        self.max_attempts = max_attempts
        self.clock = clock

    # ----- reading -------------------------------------------------------------------------

    def read_file(self, path: str) -> tuple[bytes, str] | None:
        """Content and blob sha of ``path`` on the data branch; None when it (or the branch) is absent."""
        with github_call(f"read {path} from {self.branch}"):
            try:
                found = self.repo.get_contents(path, ref=self.branch)
            except GithubException as exc:
                # "Not Found" for a missing file, "No commit found for the ref" for a missing branch
                if exc.status == 404:
                    return None
                raise
            if isinstance(found, list):
                return None
            if found.encoding == "none":
                # Over 1 MB the contents API leaves the content out; the blob API has it.
                blob = self.repo.get_git_blob(found.sha)
                return base64.b64decode(blob.content), found.sha
            return found.decoded_content, found.sha

    def fetch(
        self, target_branch: str, suite: str, prefer_commit: str | None = None
    ) -> StoredBaseline | None:
        """The baseline of ``prefer_commit`` (the merge-base) if saved, else the newest one."""
        if prefer_commit:
            found = self.read_file(snapshot_path(target_branch, suite, prefer_commit))
            if found is not None:
                return self._baseline(
                    found[0], snapshot_path(target_branch, suite, prefer_commit), prefer_commit
                )
        found = self.read_file(latest_path(target_branch, suite))
        if found is None:
            return None
        return self._baseline(found[0], latest_path(target_branch, suite), prefer_commit)

    def _baseline(self, data: bytes, path: str, prefer_commit: str | None) -> StoredBaseline:
        """The document read, its envelope checked: a damaged one is an InputError naming
        the data branch and file, not a traceback."""
        source = f"{self.branch}:{path}"
        document = stored_document(data, source)
        return StoredBaseline(
            suite=document["suite"],
            branch=document["branch"],
            commit=document["commit"],
            committed_at=document.get("committed_at"),
            saved_at=document["saved_at"],
            results=json.dumps(document["results"]).encode(),
            path=path,
            exact=prefer_commit is not None and document["commit"] == prefer_commit,
            source=source,
        )

    def history(self, target_branch: str, suite: str) -> list[dict[str, Any]]:
        found = self.read_file(history_path(target_branch, suite))
        return [] if found is None else parse_history(found[0])

    # ----- writing -------------------------------------------------------------------------

    def save(
        self,
        target_branch: str,
        suite: str,
        commit: str,
        results: bytes,
        summary: Mapping[str, float | None],
        committed_at: str | None = None,
        run_url: str | None = None,
    ) -> SaveReport:
        """Save ``results`` as the baseline of ``commit`` on ``target_branch``."""
        if self.event_name in UNTRUSTED_EVENTS:
            raise UntrustedEventError(
                f"refusing to write a baseline from a {self.event_name} event: it runs the pull "
                "request's code; baselines are saved by push or workflow_dispatch runs"
            )
        saved_at = self.clock()
        document = baseline_document(
            suite, target_branch, commit, results, saved_at, committed_at, run_url
        )
        encoded = encode_document(document)
        line = {
            "commit": commit,
            "committed_at": committed_at,
            "saved_at": saved_at,
            "summary": dict(summary),
        }
        message = f"ragguard: {suite} baseline for {commit[:12]}"
        # The per-commit snapshot is normally a new file: write it blind, saving a read.
        snapshot = self.update_file(
            snapshot_path(target_branch, suite, commit), replace_with(encoded), message, blind=True
        )
        latest = self.update_file(latest_path(target_branch, suite), keep_newer(encoded), message)
        history = self.update_file(history_path(target_branch, suite), append_line(line), message)
        outcomes = (snapshot, latest, history)
        return SaveReport(
            paths=(
                snapshot_path(target_branch, suite, commit),
                latest_path(target_branch, suite),
                history_path(target_branch, suite),
            ),
            retries=sum(o.retries for o in outcomes),
            created_branch=any(o.created_branch for o in outcomes),
            latest_replaced=latest.written == encoded,
        )

    def update_file(
        self,
        path: str,
        change: Callable[[bytes | None], bytes],
        message: str,
        blind: bool = False,
    ) -> WriteOutcome:
        """Apply ``change`` to ``path`` with a compare-and-swap on its sha, retrying on conflict."""
        created_branch = False
        conflicts = 0
        current: tuple[bytes, str] | None = None
        for _ in range(self.max_attempts):
            if not blind:
                current = self.read_file(path)
            old = None if current is None else current[0]
            new = change(old)
            if current is not None and new == old:
                return WriteOutcome(old, conflicts, created_branch)
            try:
                self._put(path, new, message, None if current is None else current[1])
                return WriteOutcome(new, conflicts, created_branch)
            except GithubException as exc:
                if (
                    exc.status == 404
                    and not created_branch
                    and "branch" in exception_message(exc).lower()
                ):
                    created_branch = self.create_branch()
                    continue
                if exc.status == 409 or (exc.status == 422 and "sha" in exception_message(exc)):
                    blind = False
                    conflicts += 1
                    continue
                with github_call(f"write {path} to {self.branch}", write=True):
                    raise
        raise BaselineConflictError(
            f"write {path} to {self.branch}",
            409,
            f"the file kept changing under us for {self.max_attempts} attempts",
        )

    def _put(self, path: str, content: bytes, message: str, sha: str | None) -> None:
        if sha is None:
            self.repo.create_file(path, message, content, branch=self.branch)
        else:
            self.repo.update_file(path, message, content, sha, branch=self.branch)

    def create_branch(self) -> bool:
        """Create the data branch as an orphan commit holding a README; True when we made it."""
        with github_call(f"create the {self.branch} branch", write=True):
            tree = self.repo.create_git_tree(
                [InputGitTreeElement("README.md", "100644", "blob", content=README)]
            )
            commit = self.repo.create_git_commit("ragguard: start the data branch", tree, [])
            try:
                self.repo.create_git_ref(f"refs/heads/{self.branch}", commit.sha)
            except GithubException as exc:
                if exc.status == 422 and "already exists" in exception_message(exc):
                    return False
                raise
            return True
