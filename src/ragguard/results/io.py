"""Writing and reading a results file (``ragguard.results/1``).

Written in the layout of :mod:`ragguard.results.layout` with a columns block after the
question lines (:mod:`ragguard.results.columns`); read from that block when its check holds,
else line by line (:mod:`ragguard.results.lines`), else parsed whole. Every way gives the
same results and the same errors.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragguard.core.bulk import collector_paused
from ragguard.core.errors import InputError
from ragguard.core.files import write_report
from ragguard.core.sources import parse_json_value, read_text
from ragguard.core.surrogates import LoneSurrogate
from ragguard.results.columns import (
    CHECK_FORMAT,
    COLUMNS_KEY,
    check_columns,
    columns_of,
    read_columns_results,
)
from ragguard.results.kinds import is_recorded_run, run_given_as_results
from ragguard.results.layout import NotWritten, question_line, read_header
from ragguard.results.model import QuestionResult, Results, header_to_dict
from ragguard.results.parse import FieldReader, question_from_dict, results_from_header


def results_json(results: Results) -> str:
    """The results file's text."""
    return "".join(json_chunks(results))


def json_chunks(results: Results, lines: Mapping[int, str] | None = None) -> Iterator[str]:
    """The JSON text in pieces, for writing a large file without holding it whole.

    The header is indented; each question is one line, encoded by json's C encoder
    (an indented dump goes through its pure-Python encoder: ten times slower, and
    millions of small strings). NaN raises ValueError. ``lines``: question lines
    already encoded by :func:`~ragguard.results.layout.question_line`, by position (in the
    process that scored them, parallel_scoring.py); the others are encoded here.
    """
    header = json.dumps(header_to_dict(results), ensure_ascii=False, indent=1, allow_nan=False)
    yield header[: -len("\n}")] + ',\n "questions": [\n'
    if not results.questions:
        yield " ]\n}\n"
        return
    yield from _lines_and_columns(results.questions, lines or {})


def _lines_and_columns(
    questions: Sequence[QuestionResult], lines: Mapping[int, str]
) -> Iterator[str]:
    """The question lines, then their columns block and its check (columns.py):
    a CRC-32 of the bytes from the first line to the block's end."""
    check, line_bytes, separator = 0, [], "  "
    for index, question in enumerate(questions):
        line = lines.get(index) or question_line(question)
        encoded = line.encode()
        line_bytes.append(len(encoded))
        check = zlib.crc32(encoded, zlib.crc32(separator.encode(), check))
        yield separator + line
        separator = ",\n  "
    with collector_paused():  # about a million small lists and tuples, none in a cycle
        columns = columns_of(questions, line_bytes)
        encoded = json.dumps(columns, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    block = "\n ]" + COLUMNS_KEY + encoded
    yield block + CHECK_FORMAT.format(zlib.crc32(block.encode(), check))


def write_results(
    results: Results, path: str | Path, lines: Mapping[int, str] | None = None
) -> Path:
    """Write the results file atomically (a crash never leaves half a baseline); ``lines``:
    see :func:`json_chunks`."""
    path = Path(path)
    if path.is_dir():
        raise InputError(path, "is a directory; give a file name such as results.json")
    # NaN raises in json_chunks, before the rename
    return write_report(path, json_chunks(results, lines), "the results file")


def load_results(path: str | Path) -> Results:
    """A results file, read fast in the layout ragguard writes (``lines.py``), else
    parsed whole; both give the same results and the same errors."""
    path = Path(path)
    with collector_paused():
        written = read_written_results(path)
        if written is not None:
            return written
        with run_named(path):
            return results_from_dict(read_json_file(path, "results file"), path)


@contextmanager
def run_named(path: Path) -> Iterator[None]:
    """A results file's reading, where a recorded run given instead fails as such (its JSON
    or schema error would not say what happened)."""
    try:
        yield
    except InputError:
        if is_recorded_run(path):
            raise run_given_as_results(path) from None
        raise


def read_written_results(path: Path) -> Results | None:
    """The results file when it is in the writer's layout and valid, else None: read from
    its columns block when it has one that holds (``columns.py``), else line by line."""
    from ragguard.results.lines import read_questions  # only a reader needs it, not a writer

    if (columns := read_columns_results(path)) is not None:
        return columns
    try:
        with path.open("rb") as file:
            header = read_header(file)
            return results_from_header(header, lambda read: read_questions(file, read), path)
    except (NotWritten, OSError, ValueError, RecursionError, InputError):
        return None


def read_json_file(path: Path, what: str) -> Any:
    """A JSON file's value; bad JSON is one line naming the file (and the line when known).

    The text is not kept: at 100,000 questions a results file is over 100 MB. Call it with
    the garbage collector paused (:func:`~ragguard.core.bulk.collector_paused`) for large files.
    """
    try:
        return parse_json_value(read_text(path, what=what))
    except json.JSONDecodeError as exc:
        raise InputError(
            path, f"not valid JSON ({exc.msg}); the file may be truncated", line=exc.lineno
        ) from None
    except LoneSurrogate as exc:
        raise InputError(path, str(exc), line=exc.lineno) from None
    except ValueError as exc:
        raise InputError(path, f"not valid JSON ({exc})") from None


def results_from_dict(data: Any, source: str | Path = "results") -> Results:
    """Rebuild :class:`Results` from its JSON form, refusing unknown schema versions."""

    def questions(read: FieldReader) -> tuple[QuestionResult, ...]:
        return tuple(
            question_from_dict(read, entry, index)
            for index, entry in enumerate(read.get(data, "questions", list, ""))
        )

    results = results_from_header(data, questions, source)
    check_columns(results, data, source)
    return results
