"""The final job of a sharded workflow: find the shard jobs' results and merge them.

The ``parts`` input names a folder (every ``results.json`` under it, at any depth: that is
how ``actions/download-artifact`` lays out several artifacts, one folder each) or a glob
(``parts/*/results.json``). The merge itself is :func:`ragguard.scoring.merge.merge_parts`, which
checks that the parts are of one run and cover the test set once; here the merged run is
also checked against what this job reports on: the suite of its ragguard.yml and the
commit it sets the status on.
"""

from __future__ import annotations

import glob
from pathlib import Path

from ragguard.core.errors import InputError
from ragguard.results.io import load_results
from ragguard.results.model import Results
from ragguard.scoring.merge import merge_parts

RESULTS_NAME = "results.json"


def find_parts(spec: str) -> list[Path]:
    """The shard results files ``spec`` names, sorted; none found is an input error."""
    matches = sorted(glob.glob(spec, recursive=True)) if glob.has_magic(spec) else [spec]
    found: list[Path] = []
    for match in map(Path, matches):
        if match.is_dir():
            found += sorted(match.rglob(RESULTS_NAME))
        elif match.is_file():
            found.append(match)
    if not found:
        raise InputError(
            "input parts",
            f"no shard results at {spec!r}: download the shard jobs' artifacts there "
            "(actions/download-artifact) or point parts at their results.json files",
        )
    return found


def merge_shard_results(spec: str, suite: str, sha: str) -> tuple[Results, list[Path]]:
    """The unsharded run's results, rebuilt from the parts; refused if not of this suite/commit."""
    paths = find_parts(spec)
    merged = merge_parts([(path, load_results(path)) for path in paths])
    if merged.suite != suite:
        raise InputError(
            paths[0], f"is suite {merged.suite!r}, but ragguard.yml's suite is {suite!r}"
        )
    commit = str(merged.git.get("sha") or "")
    if commit != sha:
        raise InputError(
            paths[0],
            f"is of commit {commit[:12] or '(none)'}, but this job reports on {sha[:12]}: "
            "merge the shards of this workflow run",
        )
    return merged, paths
