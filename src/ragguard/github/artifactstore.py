"""Baselines kept as workflow artifacts: the newest ``ragguard-baseline-<suite>`` of the branch.

For teams that would rather not have a data branch. A trusted run on the target branch (a push
or workflow_dispatch) uploads its results file as an artifact named
``ragguard-baseline-<suite>`` holding ``results.json``; a pull request run fetches the one made
for its merge-base commit if it is among the newest 100, else the newest. Only artifacts whose
run came from this repository (not a fork) on the target branch count: a fork's pull request can
upload an artifact with any name from a branch it calls ``main``. Artifacts expire (90 days by
default); an expired one is skipped.
"""

from __future__ import annotations

import io
import zipfile
import zlib

from ragguard.compare.baseline import STORE_AGAIN
from ragguard.core.errors import InputError
from ragguard.github.artifacts import ArtifactRef
from ragguard.github.client import GitHubClient
from ragguard.github.databranch import StoredBaseline

ARTIFACT_PREFIX = "ragguard-baseline-"
RESULTS_MEMBER = "results.json"
MAX_RESULTS_BYTES = 256 * 1024 * 1024


def artifact_name(suite: str) -> str:
    return f"{ARTIFACT_PREFIX}{suite}"


def choose_artifact(
    artifacts: list[ArtifactRef], target_branch: str, prefer_commit: str | None
) -> ArtifactRef | None:
    """The merge-base commit's artifact if listed, else the newest; trusted, unexpired only."""
    usable = [
        a
        for a in artifacts
        if not a.expired and a.from_this_repository and a.head_branch == target_branch
    ]
    usable.sort(key=lambda a: (a.created_at, a.id), reverse=True)
    exact = [a for a in usable if prefer_commit and a.head_sha == prefer_commit]
    return (exact or usable or [None])[0]


def results_from_zip(data: bytes, where: str) -> bytes:
    """The results file inside an artifact zip, refusing a missing or oversize member and a
    zip cut short or damaged (one-line errors naming the artifact)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        info = archive.getinfo(RESULTS_MEMBER)
    except KeyError:
        raise InputError(where, f"no {RESULTS_MEMBER} in the artifact; {STORE_AGAIN}") from None
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise InputError(where, f"not a readable zip ({exc}); {STORE_AGAIN}") from None
    if info.file_size > MAX_RESULTS_BYTES:
        raise InputError(where, f"{RESULTS_MEMBER} is over {MAX_RESULTS_BYTES} bytes")
    try:
        return archive.read(info)
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
        raise InputError(where, f"{RESULTS_MEMBER} cannot be read ({exc}); {STORE_AGAIN}") from None


class ArtifactBaselineStore:
    """Read-only: the workflow's upload step writes these artifacts, not ragguard."""

    def __init__(self, client: GitHubClient) -> None:
        self.client = client

    def fetch(
        self, target_branch: str, suite: str, prefer_commit: str | None = None
    ) -> StoredBaseline | None:
        name = artifact_name(suite)
        chosen = choose_artifact(self.client.artifacts_named(name), target_branch, prefer_commit)
        if chosen is None or chosen.head_sha is None:
            return None
        where = f"artifact {name} ({chosen.id})"
        results = results_from_zip(self.client.download_artifact(chosen.id), where)
        return StoredBaseline(
            suite=suite,
            branch=target_branch,
            commit=chosen.head_sha,
            committed_at=None,
            saved_at=chosen.created_at,
            results=results,
            path=where,
            exact=prefer_commit is not None and chosen.head_sha == prefer_commit,
        )
