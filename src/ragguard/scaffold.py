"""What ``ragguard init`` writes besides ragguard.yml: the GitHub workflow files.

They are the same files the README shows and the act end-to-end tests run unchanged
(``docs/workflows/`` in the source tree, shipped in the wheel as ``ragguard/workflows``).
"""

from __future__ import annotations

from pathlib import Path

from ragguard.errors import InputError
from ragguard.files import write_all
from ragguard.resources import workflows_dir

WORKFLOW_FILES = ("ragguard.yml", "ragguard-publish.yml")
# The sharded variant replaces ragguard.yml (same name): both would report ragguard/<suite>.
MATRIX_WORKFLOW = "ragguard-matrix.yml"


def write_workflows(
    target_dir: str | Path, *, force: bool = False, matrix: bool = False
) -> list[Path]:
    """Copy the example workflows into ``target_dir``; refuse to overwrite unless ``force``.

    With ``matrix``, ragguard.yml is the job-matrix workflow (shards, then one merging job).
    Every target is checked before anything is written, so a refusal leaves no half-done set.
    """
    target_dir = Path(target_dir)
    sources = {name: name for name in WORKFLOW_FILES}
    if matrix:
        sources["ragguard.yml"] = MATRIX_WORKFLOW
    targets = [(workflows_dir() / sources[name], target_dir / name) for name in WORKFLOW_FILES]
    if not force:
        for _, target in targets:
            if target.exists():
                raise InputError(target, "already exists; pass --force to overwrite it")
    write_all([(target, source.read_text(encoding="utf-8")) for source, target in targets])
    return [target for _, target in targets]
