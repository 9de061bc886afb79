"""The columns block of a results file: what compare needs of every question, read at once.

After the question lines, :func:`~ragguard.results.io.json_chunks` writes
``"columns"``: one JSON object holding, for every question in order, the fields compare
and the comment read of all questions (id, question text, status, metric values, fingerprint,
answerable, critical, tags, latency, error, usage, repeats, an agent's detail) as one list
per field, and the
byte length of each question line; then ``"columns_check"``, a CRC-32 of the question lines
and the block as written. Reading two 100,000-question files this way takes about a quarter
of the time of parsing each line's head (benchmarks/README.md, "Columns block").

:func:`read_columns_results` reads such a file when its check holds: the block parsed in
one ``json.loads``, each question built from it as a :class:`LazyQuestion`, whose other
fields (its text, answer, verdicts, ids, labels) are parsed from its line when first used.
The check ties the lines to the block, so they agree as the writer wrote them. A file
edited since (check failing) is read whole, and :func:`check_columns` then refuses it if
its block disagrees with its questions; the block is optional (older files have none, and
older readers ignore it).
"""

from __future__ import annotations

import json
import math
import sys
import zlib
from collections import deque
from collections.abc import Sequence
from contextlib import suppress
from io import BytesIO
from itertools import accumulate, chain, repeat
from operator import attrgetter
from pathlib import Path
from typing import Any

from ragguard.core.errors import InputError
from ragguard.core.sources import STRICT_JSON
from ragguard.core.surrogates import MAY_HOLD_ESCAPE_BYTES, lone_surrogate_escape
from ragguard.results.agent import agent_from_results
from ragguard.results.layout import QUESTIONS_LINE, NotWritten, read_header
from ragguard.results.model import STATUSES, QuestionResult, Results, repeat_to_dict
from ragguard.results.parse import (
    FieldReader,
    question_from_dict,
    repeats_from,
    results_from_header,
)
from ragguard.results.usage import usage_from_results

COLUMNS_KEY = ',\n "columns": '
MARKER = b"\n ]" + COLUMNS_KEY.encode()  # ends the last question line, starts the block
CHECK_FORMAT = ',\n "columns_check": "crc32:{:08x}"\n}}\n'
CHECK_BYTES = len(CHECK_FORMAT.format(0))
_CHECK_START = CHECK_FORMAT[: CHECK_FORMAT.index("{")].encode()
# Per question line: "  " before it, "," and a line break after it (the last: no comma).
LINE_EXTRA = 4
# Fields read from the block; the rest of a LazyQuestion's are parsed from its line.
BLOCK_FIELDS = (
    "id",
    "question",
    "status",
    "metrics",
    "fingerprint",
    "answerable",
    "critical",
    "tags",
    "latency_ms",
    "error",
    "usage",
    "repeats",
    "agent",
)
LINE_FIELDS = (
    "retrieved",
    "relevant",
    "reference_answer",
    "answer",
    "sentences",
    "evidence",
    "judgments",
    "conversation",
)
_PLAIN_COLUMNS = (
    "id",
    "question",
    "status",
    "fingerprint",
    "answerable",
    "critical",
    "latency_ms",
    "error",
)
_SLOTS = {name: QuestionResult.__dict__[name] for name in BLOCK_FIELDS + LINE_FIELDS}
_STATUSES = set(STATUSES)
_STR, _BOOL, _FLOAT = {str}, {bool}, {float}
_TEXT, _LATENCY = {str, type(None)}, {float, type(None)}


def columns_of(questions: Sequence[QuestionResult], line_bytes: list[int]) -> dict[str, Any]:
    """The block for ``questions``, whose lines are ``line_bytes`` long (UTF-8)."""
    metrics = list(map(attrgetter("metrics"), questions))
    metric_keys = list(map(tuple, metrics))
    sets = {keys: index for index, keys in enumerate(dict.fromkeys(metric_keys))}
    block: dict[str, Any] = {
        "line_bytes": line_bytes,
        **{name: list(map(attrgetter(name), questions)) for name in _PLAIN_COLUMNS},
        "tags": list(map(list, map(attrgetter("tags"), questions))),
        "metrics": {
            "names": [list(keys) for keys in sets],
            "set": list(map(sets.__getitem__, metric_keys)),
            "values": list(chain.from_iterable(map(dict.values, metrics))),
        },
    }
    if any(q.usage is not None for q in questions):
        block["usage"] = [None if q.usage is None else q.usage.to_dict() for q in questions]
    if any(q.repeats for q in questions):
        block["repeats"] = [[repeat_to_dict(run) for run in q.repeats] for q in questions]
    if any(q.agent is not None for q in questions):
        block["agent"] = [None if q.agent is None else q.agent.to_dict() for q in questions]
    return block


class LineStore:
    """The question lines of a file, as its bytes, and where each line starts."""

    __slots__ = ("_data", "_lengths", "_starts", "first", "read")

    def __init__(self, data: bytes, first: int, lengths: list[int], read: FieldReader) -> None:
        self._data, self.first, self._lengths, self.read = data, first, lengths, read
        self._starts: list[int] | None = None

    def entry(self, index: int) -> Any:
        """Question ``index``'s line, parsed strictly (an InputError naming it if invalid,
        or if it holds a lone surrogate escape, as :func:`~ragguard.core.sources.parse_json_value`
        refuses)."""
        if self._starts is None:
            steps = map(int.__add__, self._lengths, repeat(LINE_EXTRA))
            self._starts = list(accumulate(steps, initial=self.first + 2))
        start = self._starts[index]
        try:
            text = self._data[start : start + self._lengths[index]].decode("utf-8")
            value, stop = STRICT_JSON.raw_decode(text)
        except ValueError as exc:  # UnicodeDecodeError too
            raise InputError(
                self.read.source, f"not valid JSON ({exc}); re-create the file", key=_key(index)
            ) from None
        if stop != len(text):
            raise InputError(self.read.source, "not one JSON object", key=_key(index))
        surrogate = lone_surrogate_escape(text)
        if surrogate is not None:
            raise InputError(self.read.source, str(surrogate), key=_key(index))
        return value


def _key(index: int) -> str:
    return f"questions[{index}]"


class LazyQuestion(QuestionResult):
    """A question built from the columns block; the fields of :data:`LINE_FIELDS` are
    parsed from its line on first use (and checked to agree with the block)."""

    __slots__ = ("_index", "_store")

    def _fill(self) -> None:
        store, index = self._store, self._index
        line = question_from_dict(store.read, store.entry(index), index)
        for name in BLOCK_FIELDS:
            if getattr(line, name) != _SLOTS[name].__get__(self):
                raise InputError(
                    store.read.source,
                    f"the question line disagrees with its columns block ({name}); "
                    "the file was edited: re-create it",
                    key=f"{_key(index)}.{name}",
                )
        for name in LINE_FIELDS:
            _SLOTS[name].__set__(self, getattr(line, name))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QuestionResult):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _SLOTS)

    __hash__ = QuestionResult.__hash__


def _line_field(name: str) -> property:
    slot = _SLOTS[name]

    def get(self: LazyQuestion) -> Any:
        try:
            return slot.__get__(self)
        except AttributeError:
            self._fill()
            return slot.__get__(self)

    return property(get, slot.__set__, doc=f"``{name}``, parsed from the line on first use")


for _name in LINE_FIELDS:
    setattr(LazyQuestion, _name, _line_field(_name))


def read_columns_results(path: Path) -> Results | None:
    """The results file when it ends with a columns block whose check holds, else None
    (then the line reader or the whole parse reads it, or names what is wrong)."""
    try:
        with path.open("rb") as file:
            if file.seek(0, 2) <= CHECK_BYTES:
                return None
            file.seek(-CHECK_BYTES, 2)
            if not file.read(CHECK_BYTES).startswith(_CHECK_START):
                return None  # no block (an older file): nothing more read here
            file.seek(0)
            data = file.read()
    except OSError:
        return None
    return _read(data, path)


def _check(data: bytes, start: int, end: int) -> int:
    return zlib.crc32(memoryview(data)[start:end])


def _read(data: bytes, path: Path) -> Results | None:
    tail = len(data) - CHECK_BYTES
    marker = data.rfind(MARKER, 0, tail)
    file = BytesIO(data)
    try:
        header = read_header(file)
    except (NotWritten, ValueError, RecursionError):
        return None
    first = file.tell()
    if marker < first or data[first - len(QUESTIONS_LINE) : first] != QUESTIONS_LINE:
        return None
    if data[tail:] != CHECK_FORMAT.format(_check(data, first, tail)).encode():
        return None  # edited since written: read whole, the block checked against the lines
    if MAY_HOLD_ESCAPE_BYTES.search(data, marker, tail):
        return None  # maybe a lone surrogate (the writer writes no such escape): read whole
    try:
        block = json.loads(data[marker + len(MARKER) : tail])
        columns = _columns(block, marker - first)
    except (ValueError, RecursionError, TypeError, KeyError, InputError):
        return None
    if columns is None:
        return None
    lengths = block["line_bytes"]

    def questions(
        read: FieldReader, checked: dict[str, Any] = columns
    ) -> tuple[QuestionResult, ...]:
        return _questions(checked, LineStore(data, first, lengths, read), read)

    try:
        return results_from_header(header, questions, path)
    except InputError:
        return None  # the full reader names the error


def _columns(block: Any, region: int) -> dict[str, Any] | None:
    """The block's columns, checked (types, lengths, the lines' total length); None when
    anything differs from what the writer writes."""
    if type(block) is not dict:
        return None
    lengths = block["line_bytes"]
    count = len(lengths)
    if (
        type(lengths) is not list
        or not count
        or set(map(type, lengths)) != {int}
        or min(lengths) < 2
        or sum(lengths) + LINE_EXTRA * count - 2 != region
    ):
        return None
    columns = {name: block[name] for name in (*_PLAIN_COLUMNS, "tags")}
    if not all(type(column) is list and len(column) == count for column in columns.values()):
        return None
    if not (
        set(map(type, chain(columns["id"], columns["question"], columns["fingerprint"]))) == _STR
        and set(columns["status"]) <= _STATUSES
        and set(map(type, chain(columns["answerable"], columns["critical"]))) == _BOOL
        and set(map(type, columns["tags"])) <= {list}
        and set(map(type, chain.from_iterable(columns["tags"]))) <= _STR
        and set(map(type, columns["error"])) <= _TEXT
        and set(map(type, columns["latency_ms"])) <= _LATENCY
        and all(map(math.isfinite, filter(None, columns["latency_ms"])))
    ):
        return None
    metrics = _metrics(block["metrics"], count)
    if metrics is None:
        return None
    columns["metrics"] = metrics
    columns["status"] = list(map(sys.intern, columns["status"]))
    columns["tags"] = [tuple(map(sys.intern, tags)) if tags else () for tags in columns["tags"]]
    columns["usage"] = block.get("usage", [None] * count)
    columns["repeats"] = block.get("repeats", [None] * count)
    columns["agent"] = block.get("agent", [None] * count)
    if not all(
        type(column) is list and len(column) == count
        for column in (columns["usage"], columns["repeats"], columns["agent"])
    ):
        return None
    return columns


def _metrics(block: Any, count: int) -> list[dict[str, float]] | None:
    """Each question's metric values as a dict, in the order it had."""
    names, sets, values = block["names"], block["set"], block["values"]
    if not (
        type(names) is list
        and all(type(keys) is list and set(map(type, keys)) <= _STR for keys in names)
        and type(sets) is list
        and len(sets) == count
        and set(map(type, sets)) <= {int}
        and type(values) is list
        and set(map(type, values)) <= _FLOAT
        and all(map(math.isfinite, values))
        and min(sets) >= 0
        and max(sets) < len(names)
    ):
        return None
    if len(names) == 1:
        width = len(names[0])
        if width * count != len(values):
            return None
        rows = zip(*[iter(values)] * width, strict=True) if width else repeat((), count)
        return list(map(dict, map(zip, repeat(names[0]), rows)))
    metrics, at = [], 0
    for keys in map(names.__getitem__, sets):
        metrics.append(dict(zip(keys, values[at : at + len(keys)], strict=True)))
        at += len(keys)
    return metrics if at == len(values) else None


def _questions(
    columns: dict[str, Any], store: LineStore, read: FieldReader
) -> tuple[QuestionResult, ...]:
    count = len(columns["id"])
    columns["usage"] = [
        usage_from_results(usage, read.source, _key(index)) if usage is not None else None
        for index, usage in enumerate(columns["usage"])
    ]
    columns["repeats"] = [
        repeats_from(read, {"repeats": runs}, _key(index)) if runs else ()
        for index, runs in enumerate(columns["repeats"])
    ]
    columns["agent"] = [
        agent_from_results(agent, read.source, _key(index)) if agent is not None else None
        for index, agent in enumerate(columns["agent"])
    ]
    questions = list(map(object.__new__, repeat(LazyQuestion, count)))
    for name in BLOCK_FIELDS:
        deque(map(_SLOTS[name].__set__, questions, columns[name]), maxlen=0)
    deque(map(LazyQuestion._store.__set__, questions, repeat(store)), maxlen=0)  # type: ignore[attr-defined]
    deque(map(LazyQuestion._index.__set__, questions, range(count)), maxlen=0)  # type: ignore[attr-defined]
    return tuple(questions)


def check_columns(results: Results, data: Any, source: str | Path) -> None:
    """Refuse a parsed results document whose columns block (if any) disagrees with its
    questions: a file edited in one place and not the other."""
    block = data.get("columns") if isinstance(data, dict) else None
    if block is None:
        return
    if not isinstance(block, dict):
        raise InputError(source, "expected an object; re-create the file", key="columns")
    expected = columns_of(results.questions, [])
    # Each question's metrics as a mapping: a file re-encoded with sorted keys still agrees.
    expected["metrics"] = [q.metrics for q in results.questions]
    for name in sorted((set(expected) | set(block)) - {"line_bytes"}):
        found, wanted = block.get(name), expected.get(name)
        if name == "metrics":
            with suppress(KeyError, TypeError, ValueError):
                found = _metrics(found, len(results.questions))
        if found != wanted:
            raise InputError(
                source,
                f"the columns block disagrees with the questions ({_difference(found, wanted)}); "
                "the file was edited after ragguard wrote it: re-create it, or delete the "
                '"columns" and "columns_check" keys',
                key=f"columns.{name}",
            )


def _difference(found: Any, expected: Any) -> str:
    """Where two columns first differ, for the error."""
    if isinstance(found, list) and isinstance(expected, list):
        for index, (one, other) in enumerate(zip(found, expected, strict=False)):
            if one != other:
                return f"at questions[{index}]"
        return f"{len(found)} entries for {len(expected)} questions"
    return "missing" if found is None else "not what the questions hold"
