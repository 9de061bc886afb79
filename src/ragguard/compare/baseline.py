"""A baseline file as ``ragguard compare`` reads it: a results file (``ragguard.results/1``),
or the document the action stores on the data branch (``ragguard.baseline/1``: the results
plus the commit, branch and time they describe), so a baseline fetched from CI compares
locally exactly as it did there.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragguard.compare import Provenance, describe_age
from ragguard.core.bulk import collector_paused
from ragguard.core.errors import InputError
from ragguard.core.sources import json_from_bytes, type_name
from ragguard.results.io import (
    read_json_file,
    read_written_results,
    results_from_dict,
    run_named,
)
from ragguard.results.model import Results

BASELINE_SCHEMA = "ragguard.baseline/1"
STORE_AGAIN = (
    "the stored baseline is cut short or damaged; run the action on the target branch again "
    "(a push or workflow_dispatch) to store a new one"
)
_PROVENANCE_KEYS = ("suite", "branch", "commit", "saved_at")


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
        with run_named(path):
            data = read_json_file(path, "baseline file")
            if isinstance(data, dict) and data.get("schema") == BASELINE_SCHEMA:
                return _stored(data, path)
            return BaselineFile(results_from_dict(data, path))


def parse_baseline(data: bytes, source: str) -> BaselineFile:
    """A baseline fetched from a store (the data branch, an artifact), checked whole: UTF-8,
    JSON, a stored baseline document or a results file. Call it before anything is written
    or compared; every error names ``source`` and says how to store a sound one."""
    document = json_from_bytes(data, source, "stored baseline", STORE_AGAIN)
    with _store_again():
        if isinstance(document, dict) and document.get("schema") == BASELINE_SCHEMA:
            return _stored(document, source)
        return BaselineFile(results_from_dict(document, source))


def parse_stored_results(data: bytes, source: str) -> Results:
    """The results file a store holds (an artifact's, or a stored document's results),
    checked as :func:`parse_baseline` checks a whole baseline."""
    document = json_from_bytes(data, source, "stored baseline", STORE_AGAIN)
    with _store_again():
        return results_from_dict(document, source)


def stored_document(data: bytes, source: str) -> dict[str, Any]:
    """A stored baseline document (``ragguard.baseline/1``, the data branch's file) as an
    object with its results and the strings that say where they come from; the results
    themselves are checked when compared (:func:`parse_stored_results`)."""
    document = json_from_bytes(data, source, "stored baseline", STORE_AGAIN)
    if not isinstance(document, dict):
        raise InputError(source, f"expected an object, found {type_name(document)}; {STORE_AGAIN}")
    for key in _PROVENANCE_KEYS:
        if not isinstance(document.get(key), str):
            raise InputError(source, f"missing or not a string; {STORE_AGAIN}", key=key)
    if not isinstance(document.get("results"), dict):
        raise InputError(source, f"missing or not an object; {STORE_AGAIN}", key="results")
    return document


@contextmanager
def _store_again() -> Iterator[None]:
    """A fetched baseline that is not a sound results file: the error also says what to do."""
    try:
        yield
    except InputError as exc:
        raise InputError(
            exc.source, f"{exc.message}; {STORE_AGAIN}", line=exc.line, key=exc.key
        ) from None


def _stored(data: dict[str, Any], path: str | Path) -> BaselineFile:
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
