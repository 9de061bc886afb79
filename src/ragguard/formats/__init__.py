"""Importers and exporters for other tools' formats: TREC, BEIR."""

from __future__ import annotations

from pathlib import Path

from ragguard.runs import Run, parse_run_jsonl
from ragguard.sources import read_text

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")


def load_run_file(path: str | Path) -> Run:
    """A recorded run in JSON Lines, or a TREC run file.

    A ``.jsonl``/``.ndjson``/``.json`` name, or text that starts like JSON, is JSON Lines;
    anything else is read as a TREC run.
    """
    from ragguard.formats.trec import parse_trec_run

    path = Path(path)
    text = read_text(path, what="run file")
    if path.suffix.lower() in JSONL_SUFFIXES or text.lstrip()[:1] in ("{", "[", '"'):
        return parse_run_jsonl(text, path)
    return parse_trec_run(text, path)
