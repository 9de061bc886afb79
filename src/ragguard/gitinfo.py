"""Which commit a run evaluated: from GitHub's environment, else from git itself."""

from __future__ import annotations

import os
import subprocess


def current_commit(cwd: str | None = None) -> dict[str, str | None]:
    sha = os.environ.get("GITHUB_SHA") or _git("rev-parse", "HEAD", cwd=cwd)
    ref = os.environ.get("GITHUB_REF") or _git("symbolic-ref", "-q", "HEAD", cwd=cwd)
    return {"sha": sha, "ref": ref}


def _git(*args: str, cwd: str | None) -> str | None:
    try:
        completed = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    output = completed.stdout.strip()
    return output if completed.returncode == 0 and output else None
