"""Which of ragguard's files a file is, when it is not the kind a command expected.

A results file (``results.json``, pretty-printed JSON with a ``schema``) and a recorded run
(JSON Lines, one question a line) are easily swapped on a command line; read as the other
kind, each fails with a JSON error that does not say what happened. The readers ask here
after a failure (never on the good path), and name the kind and the command it belongs to.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ragguard.core.errors import InputError
from ragguard.core.sources import BOM

SNIFF_BYTES = 1 << 20  # a run's first line is read up to 1 MB; longer, it is not recognised
RESULTS_START = re.compile(rb'\A\s*\{\s*"schema"\s*:\s*"ragguard\.results/')
RUN_KEYS = ("retrieved", "answer", "error")


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as file:
            return file.readline(SNIFF_BYTES).removeprefix(BOM) + file.read(256)
    except OSError:
        return b""


def is_results_file(path: str | Path) -> bool:
    """Whether ``path`` starts as a ragguard results file does."""
    return RESULTS_START.match(_head(Path(path))) is not None


def is_recorded_run(path: str | Path) -> bool:
    """Whether the first line of ``path`` is a run record (an object with an ``id`` and a
    ranking or an answer, and no ``schema``)."""
    first = _head(Path(path)).split(b"\n", 1)[0]
    try:
        value = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return (
        isinstance(value, dict)
        and "schema" not in value
        and "id" in value
        and any(key in value for key in RUN_KEYS)
    )


def results_given_as_run(path: str | Path) -> InputError:
    return InputError(
        path,
        "is a results file, not a recorded run: give it to `ragguard compare` or "
        "`ragguard report`, and give --run the run records (JSON Lines, one question a line; "
        "`ragguard run` writes them beside its results as results.run.jsonl)",
    )


def run_given_as_results(path: str | Path) -> InputError:
    return InputError(
        path,
        "is a recorded run (JSON Lines), not a results file: score it first "
        "(`ragguard score --testset TESTSET --run FILE --out results.json`) and give the "
        "results file here",
    )
