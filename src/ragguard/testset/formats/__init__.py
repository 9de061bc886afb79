"""Importers and exporters for other tools' formats: TREC, BEIR."""

from __future__ import annotations

from pathlib import Path

from ragguard.core.sources import iter_lines
from ragguard.results.records import Run, load_run

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")


def load_run_file(path: str | Path) -> Run:
    """A recorded run in JSON Lines, or a TREC run file.

    A ``.jsonl``/``.ndjson``/``.json`` name, or text that starts like JSON, is JSON Lines;
    anything else is read as a TREC run. Only the first non-blank line is read to tell.
    """
    path = Path(path)
    if path.suffix.lower() in JSONL_SUFFIXES or _first_character(path) in ("{", "[", '"'):
        return load_run(path)
    from ragguard.testset.formats.trec_runs import load_trec_run

    return load_trec_run(path)


def _first_character(path: Path) -> str:
    for _number, line in iter_lines(path, what="run file"):
        if line.strip():
            return line.lstrip()[:1]
    return ""
