"""Importers and exporters for other tools' formats: TREC, BEIR, OpenTelemetry traces."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ragguard.core.sources import BOM, cannot_read, check_is_file
from ragguard.results.records import Run, load_run
from ragguard.traces.reader import is_trace_file, load_trace_run

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
HEAD_BYTES = 64 * 1024


def load_run_file(
    path: str | Path, questions: Mapping[str, str] | Iterable[tuple[str, str]] = ()
) -> Run:
    """A recorded run in JSON Lines, a trace file (OTLP JSON), or a TREC run file.

    Told apart by content: a file whose first object starts with ``resourceSpans`` is a
    trace file (docs/traces.md; ``questions``, id to text, match its traces by their input);
    else a ``.jsonl``/``.ndjson``/``.json`` name, or text that starts like JSON, is JSON
    Lines; anything else is read as a TREC run. Only the file's first bytes are read to tell.
    """
    path = Path(path)
    head = _head(path)
    if is_trace_file(head):
        return load_trace_run(path, questions)
    if _is_jsonl(path, head):
        return load_run(path)
    from ragguard.testset.formats.trec_runs import load_trec_run

    return load_trec_run(path)


def is_jsonl_run(path: str | Path) -> bool:
    """Whether :func:`load_run_file` reads ``path`` as JSON Lines."""
    head = _head(Path(path))
    return not is_trace_file(head) and _is_jsonl(Path(path), head)


def _is_jsonl(path: Path, head: str) -> bool:
    return path.suffix.lower() in JSONL_SUFFIXES or head[:1] in ("{", "[", '"')


def is_trace_run_file(path: str | Path) -> bool:
    """Whether :func:`load_run_file` reads ``path`` as a trace file (whose traces are matched
    to questions by their text, so it is read once the questions are known)."""
    return is_trace_file(_head(Path(path)))


def _head(path: Path) -> str:
    """The file's first bytes as text, from its first non-blank character (a line further
    on, or a first line too long to hold, is left to the reader, which names it; bytes that
    are not UTF-8 become replacement characters: not JSON either)."""
    check_is_file(path, "run file")
    try:
        with path.open("rb") as file:
            start = file.read(HEAD_BYTES)
    except OSError as exc:
        raise cannot_read(path, "run file", exc) from None
    return start.removeprefix(BOM).decode("utf-8", errors="replace").lstrip()
