"""A baseline file as ``ragguard compare`` reads it: a results file (``ragguard.results/1``),
or the document the action stores on the data branch (``ragguard.baseline/1``: the results
plus the commit, branch and time they describe), so a baseline fetched from CI compares
locally exactly as it did there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragguard.compare import Provenance, describe_age
from ragguard.core.bulk import collector_paused
from ragguard.core.errors import InputError
from ragguard.results.io import read_json_file, read_written_results, results_from_dict
from ragguard.results.model import Results

BASELINE_SCHEMA = "ragguard.baseline/1"


@dataclass(frozen=True)
class BaselineFile:
    """The results in a baseline file, and where they come from when the file says so."""

    results: Results
    commit: str | None = None
    branch: str | None = None
    created_at: str | None = None

    def provenance(self, head: Results) -> Provenance | None:
        """The stored document's provenance (None for a plain results file: compare then
        reads it from the results' own git fields)."""
        if self.commit is None and self.branch is None:
            return None
        return Provenance(
            commit=self.commit,
            branch=self.branch,
            created_at=self.created_at,
            age=describe_age(self.created_at, head.created_at) if self.created_at else None,
        )


def load_baseline(path: str | Path) -> BaselineFile:
    """Read a results file or a stored baseline document; errors name the file and key."""
    path = Path(path)
    with collector_paused():  # as load_results: a 100,000-question file builds millions
        written = read_written_results(path)  # a results file as ragguard writes it: fast
        if written is not None:
            return BaselineFile(written)
        data = read_json_file(path, "baseline file")
        if isinstance(data, dict) and data.get("schema") == BASELINE_SCHEMA:
            return _stored(data, path)
        return BaselineFile(results_from_dict(data, path))


def _stored(data: dict[str, Any], path: Path) -> BaselineFile:
    results = data.get("results")
    if not isinstance(results, dict):
        raise InputError(
            path, "a stored baseline without its results; fetch it again", key="results"
        )
    return BaselineFile(
        results_from_dict(results, path),
        commit=_text(data, "commit"),
        branch=_text(data, "branch"),
        created_at=_text(data, "committed_at") or _text(data, "saved_at"),
    )


def _text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None
