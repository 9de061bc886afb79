"""Reading a results file in the layout ragguard writes, without decoding every chunk id.

:meth:`~ragguard.results.Results.json_chunks` writes the header indented by one space, then
one question a line with ``retrieved`` last, then `` ]`` and ``}``. At 100,000 questions x
100 chunks the ten million ids are most of the file and most of the time json's decoder
takes to read it, yet compare looks at the ids of few questions (relabelled ones, and those
that miss a rule) and ``report`` at none. So this reader parses the header and each
question line without its ``retrieved`` list, checks the list's text in bulk, and keeps it
as text until its ids are first used (:class:`LazyIds`).

It reads what the full JSON reader reads, and the same way: every part is parsed by the
same decoder (NaN, Infinity and repeated keys refused), and a line's parts are valid JSON
exactly when the line is. A list with an escape in it (a quote or a backslash in an id) is
decoded at once. Anything else that differs from the writer's layout (other whitespace,
another key order, a control character, a file of an older version) or any error makes
:func:`read_written_results` return None: the caller then parses the file whole, which
reads it or names the error.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, overload

from ragguard.errors import InputError
from ragguard.results import (
    FieldReader,
    QuestionResult,
    Results,
    question_from_dict,
    results_from_header,
)
from ragguard.sources import STRICT_JSON

QUESTIONS_LINE = b' "questions": [\n'
CLOSING = [" ]", "}"]
RETRIEVED = ', "retrieved": '
BLOCK_BYTES = 1 << 20
# Bytes that JSON allows only escaped inside strings; the writer puts none between tokens.
_CONTROL = bytes(range(32)).replace(b"\n", b"")


class _NotWritten(Exception):
    """The file is not in the writer's layout: the full reader decides."""


class LazyIds(Sequence[str]):
    """Chunk ids kept as the text of their JSON list, split into a tuple on first use.

    ``line[start:end]`` is the list, in the writer's plain form (``["a", "b"]``: no escape,
    each quote a string's start or end; checked by the reader). It compares, hashes and
    copies as the tuple of its ids.
    """

    __slots__ = ("_end", "_ids", "_line", "_start")

    def __init__(self, line: str, start: int, end: int) -> None:
        self._line, self._start, self._end = line, start, end
        self._ids: tuple[str, ...] | None = None

    @property
    def ids(self) -> tuple[str, ...]:
        ids = self._ids
        if ids is None:
            inner = self._line[self._start + 2 : self._end - 2]  # between [" and "]
            ids = tuple(inner.split('", "')) if self._end - self._start > 2 else ()
            self._ids, self._line = ids, ""
        return ids

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        return self.ids[index]

    def __len__(self) -> int:
        return len(self.ids)

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __contains__(self, item: object) -> bool:
        return item in self.ids

    def index(self, value: Any, start: int = 0, stop: int = 2**63 - 1) -> int:
        return self.ids.index(value, start, stop)

    def count(self, value: Any) -> int:
        return self.ids.count(value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyIds):
            return self.ids == other.ids
        return self.ids == other if isinstance(other, tuple) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.ids)

    def __reduce__(self) -> tuple[type[tuple[str, ...]], tuple[tuple[str, ...]]]:
        return tuple, (self.ids,)

    def __repr__(self) -> str:
        return repr(self.ids)


def read_written_results(path: Path) -> Results | None:
    """The results file when it is in the writer's layout and valid, else None."""
    try:
        with path.open("rb") as file:
            header = _header(file)
            return results_from_header(header, lambda read: _questions(file, read), path)
    except (_NotWritten, OSError, ValueError, RecursionError, InputError):
        return None


def _header(file: IO[bytes]) -> dict[str, Any]:
    """Everything before the questions, parsed; the file then stands at the first one."""
    first = file.readline()
    if first != b"{\n":
        raise _NotWritten
    lines = [first]
    while (line := file.readline()) != QUESTIONS_LINE:
        if not line:
            raise _NotWritten
        lines.append(line)
    text = b"".join(lines).decode("utf-8")
    if not text.endswith(",\n"):
        raise _NotWritten
    data = _whole(text[:-2] + "\n}")
    if type(data) is not dict or "questions" in data:
        raise _NotWritten
    return data


_SCAN = STRICT_JSON.scan_once  # raw_decode without its wrapper: one call a question line


def _whole(text: str, start: int = 0, end: int | None = None) -> Any:
    """The JSON value that spans ``text[start:end]`` exactly."""
    try:
        value, stop = _SCAN(text, start)
    except StopIteration:
        raise _NotWritten from None
    if stop != (len(text) if end is None else end):
        raise _NotWritten
    return value


def _questions(file: IO[bytes], read: FieldReader) -> tuple[QuestionResult, ...]:
    """The question lines to the end of the file, which must close the list and object."""
    questions: list[QuestionResult] = []
    without_comma = 0  # question lines without a comma after them: the last one only
    comma = False  # after the last question line read
    closing: list[str] = []
    for lines in _line_blocks(file):
        if closing:
            closing += lines
            continue
        stop = lines.index(CLOSING[0]) if CLOSING[0] in lines else len(lines)
        for line in lines[:stop]:
            comma = line.endswith("},")
            without_comma += not comma
            questions.append(_question(line, read, len(questions)))
        closing = lines[stop:]
    if closing != CLOSING or (questions and (comma or without_comma != 1)):
        raise _NotWritten
    return tuple(questions)


def _line_blocks(file: IO[bytes]) -> Iterator[list[str]]:
    """The rest of the file as lists of lines (without their newline), about
    ``BLOCK_BYTES`` at a time."""
    rest = b""
    while more := file.read(BLOCK_BYTES):
        cut = more.rfind(b"\n") + 1
        if not cut:
            rest += more
            continue
        yield _lines(rest + more[:cut])
        rest = more[cut:]
    if rest:
        yield _lines(rest)


def _lines(block: bytes) -> list[str]:
    if len(block.translate(None, _CONTROL)) != len(block):
        raise _NotWritten  # a raw control character: invalid in a string, unusual between
    lines = block.decode("utf-8").split("\n")
    if block.endswith(b"\n"):
        lines.pop()
    return lines


def _question(line: str, read: FieldReader, index: int) -> QuestionResult:
    """One question line, ``  {...}`` with a comma after it or not, ``retrieved`` last."""
    end = len(line) - 1 - line.endswith("},")  # the object's closing brace
    split = line.rfind(RETRIEVED)
    if not line.startswith("  {") or line[end] != "}" or split < 0:
        raise _NotWritten
    head = line[2:split] + "}"  # the object without its retrieved ids
    entry = _whole(head)
    if type(entry) is not dict or "retrieved" in entry:
        raise _NotWritten
    return question_from_dict(read, entry, index, _ids(line, split + len(RETRIEVED), end))


def _ids(line: str, start: int, end: int) -> Sequence[str]:
    """The ids of the JSON list ``line[start:end]``: kept as text in the writer's plain
    form, else decoded now."""
    if (
        line.startswith('["', start, end)
        and line.endswith('"]', start, end)
        and line.find("\\", start, end) < 0
        and line.count('"', start, end) == 2 * (line.count('", "', start, end) + 1)
    ):
        return LazyIds(line, start, end)
    ids = _whole(line, start, end)
    if type(ids) is not list or not all(type(chunk) is str for chunk in ids):
        raise _NotWritten
    return tuple(ids)
