"""Importers and exporters for other tools' formats: TREC, BEIR."""

from __future__ import annotations

from pathlib import Path

from ragguard.runs import Run, parse_run_jsonl
from ragguard.sources import read_text


def load_run_file(path: str | Path) -> Run:
    """A recorded run in JSON Lines, or a TREC run file, told apart by the first character."""
    from ragguard.formats.trec import parse_trec_run

    path = Path(path)
    text = read_text(path, what="run file")
    if text.lstrip().startswith("{"):
        return parse_run_jsonl(text, path)
    return parse_trec_run(text, path)
