"""Workflow runs and their artifacts: the latest good run on a branch, and an artifact's zip.

GitHub answers an artifact download with a redirect to a pre-signed URL on its storage host.
PyGithub will not follow redirects off the API host, so we take the ``Location`` from PyGithub's
answer and fetch it with a plain request that carries no token: the URL is its own credential,
and the token must only ever go to the API host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import requests

MAX_ARTIFACT_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class RunRef:
    """A workflow run: enough to find its artifacts and say which commit it evaluated."""

    id: int
    head_sha: str
    head_branch: str | None
    event: str
    conclusion: str | None
    created_at: str
    html_url: str
    head_repo: str | None


@dataclass(frozen=True)
class ArtifactRef:
    """An artifact and the run that made it (which branch and commit, from which repository)."""

    id: int
    name: str
    size: int
    expired: bool
    created_at: str
    run_id: int | None
    head_sha: str | None
    head_branch: str | None
    from_this_repository: bool


def run_ref(raw: dict[str, Any]) -> RunRef:
    return RunRef(
        id=int(raw["id"]),
        head_sha=raw["head_sha"],
        head_branch=raw.get("head_branch"),
        event=raw.get("event", ""),
        conclusion=raw.get("conclusion"),
        created_at=raw.get("created_at", ""),
        html_url=raw.get("html_url", ""),
        head_repo=(raw.get("head_repository") or {}).get("full_name"),
    )


def artifact_ref(raw: dict[str, Any]) -> ArtifactRef:
    run = raw.get("workflow_run") or {}
    return ArtifactRef(
        id=int(raw["id"]),
        name=raw["name"],
        size=int(raw.get("size_in_bytes", 0)),
        expired=bool(raw.get("expired")),
        created_at=raw.get("created_at") or "",
        run_id=run.get("id"),
        head_sha=run.get("head_sha"),
        head_branch=run.get("head_branch"),
        from_this_repository=run.get("head_repository_id") is not None
        and run.get("head_repository_id") == run.get("repository_id"),
    )


def fetch_presigned(url: str, timeout: float) -> bytes:
    """GET a pre-signed storage URL without any credentials; refuse oversize answers."""
    with requests.get(url, timeout=timeout, stream=True, allow_redirects=True) as response:
        response.raise_for_status()
        chunks = []
        size = 0
        for chunk in response.iter_content(chunk_size=65536):
            size += len(chunk)
            if size > MAX_ARTIFACT_BYTES:
                raise ValueError(f"artifact is over {MAX_ARTIFACT_BYTES} bytes")
            chunks.append(chunk)
        return b"".join(chunks)
