"""Importers and exporters for other tools' formats: TREC, BEIR."""

from __future__ import annotations

from pathlib import Path

from ragguard.core.sources import BOM, cannot_read, check_is_file
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
    """The first non-blank character, the file read a line at a time as bytes, so that a
    line further on that is not text is left to the reader, which names the first such
    line ("" when that line is not UTF-8: not JSON either)."""
    check_is_file(path, "run file")
    try:
        with path.open("rb") as file:
            for raw in file:
                line = raw.removeprefix(BOM).decode("utf-8", errors="replace").strip()
                if line:
                    return line[:1]
    except OSError as exc:
        raise cannot_read(path, "run file", exc) from None
    return ""
