"""Reading a results file in the layout ragguard writes, without decoding every chunk id.

:func:`~ragguard.results.io.json_chunks` writes the header indented by one space, then
one question a line with ``retrieved`` last, then `` ]`` and ``}``. At 100,000 questions x
100 chunks the ten million ids are most of the file and most of the time json's decoder
takes to read it, yet compare looks at the ids of few questions (relabelled ones, and those
that miss a rule) and ``report`` at none. So this reader parses the header and each
question line without its ``retrieved`` list, checks the list's text in bulk, and keeps it
as text until its ids are first used (:class:`LazyIds`).

It reads what the full JSON reader reads, and the same way: the header, the lists with an
escape and any question that is not plain (verdicts, evidence labels, usage, repeats) are
parsed by the same strict decoder (NaN, Infinity and repeated keys refused), and a line's
parts are valid JSON exactly when the line is. The heads of plain questions, most of a
retrieval-only file, are read a block of lines at a time: parsed by json's C scanner
without the strict decoder's Python call per object (a repeated key is found by counting
colons instead), checked type by type over whole columns and built slot by slot through
``map``, not question by question in Python. A list with an escape in it (a quote or a backslash in an id) is decoded at once.
Anything else that differs from the writer's layout (other whitespace, another key order,
a control character, a file of an older version) or any error makes
:func:`~ragguard.results.io.read_written_results` return None: the caller then parses the
file whole, which reads it or names the error.
"""

from __future__ import annotations

import codecs
import json
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from itertools import chain, repeat
from operator import add, attrgetter, itemgetter, sub
from typing import IO, Any, overload

from ragguard.core.sources import STRICT_JSON
from ragguard.core.surrogates import MAY_HOLD_ESCAPE_BYTES
from ragguard.results.layout import STRICT_SCAN, NotWritten, whole_value
from ragguard.results.model import STATUSES, QuestionResult, question_results
from ragguard.results.parse import FieldReader, question_from_dict

CLOSING = [" ]", "}"]
# A question's head (its line without ``retrieved``) as the writer orders it when the
# question has no verdicts, evidence labels, usage or repeats: such heads are read in bulk.
PLAIN_KEYS = (
    "id",
    "question",
    "status",
    "metrics",
    "relevant",
    "fingerprint",
    "answerable",
    "critical",
    "tags",
    "reference_answer",
    "answer",
    "sentences",
    "latency_ms",
    "error",
)
_STR, _BOOL, _INT, _FLOAT = {str}, {bool}, {int}, {float}
_TEXT = {str, type(None)}
_DICT, _LIST = {dict}, {list}
_STATUSES = set(STATUSES)
RETRIEVED = ', "retrieved": '
BLOCK_BYTES = 1 << 20
# Bytes that JSON allows only escaped inside strings; the writer puts none between tokens.
_CONTROL = bytes(range(32)).replace(b"\n", b"")


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


# The strict decoder's settings but for its check of repeated keys, a Python call for each
# object: the heads read in bulk are checked by counting (_check_unrepeated).
_DICT_SCAN = json.JSONDecoder(parse_constant=STRICT_JSON.parse_constant).scan_once
_SCANNED, _STOP = itemgetter(0), itemgetter(1)  # of a scan: (value, where it stopped)
_METRICS, _RELEVANT = attrgetter("metrics"), attrgetter("relevant")


def read_questions(file: IO[bytes], read: FieldReader) -> tuple[QuestionResult, ...]:
    """The question lines to the end of the file, which must close the list and object."""
    questions: list[QuestionResult] = []
    without_comma = 0  # question lines without a comma after them: the last one only
    comma = False  # after the last question line read
    closing: list[str] = []
    strict = False  # the strict decoder: the last block was mostly questions not plain
    for lines in _line_blocks(file):
        if closing:
            closing += lines
            continue
        stop = lines.index(CLOSING[0]) if CLOSING[0] in lines else len(lines)
        if stop:
            commas = list(map(str.endswith, lines[:stop], repeat("},")))
            without_comma += commas.count(False)
            comma = commas[-1]
            block, not_plain = _block(lines[:stop], commas, read, len(questions), strict)
            questions += block
            strict = not_plain * 2 > stop
        closing = lines[stop:]
    if closing != CLOSING or (questions and (comma or without_comma != 1)):
        raise NotWritten
    return tuple(questions)


def _line_blocks(file: IO[bytes]) -> Iterator[list[str]]:
    """The rest of the file as lists of lines (without their newline), about
    ``BLOCK_BYTES`` at a time, each block's bytes decoded and split once (no copy)."""
    decoder = codecs.getincrementaldecoder("utf-8")()  # a character cut between blocks
    rest = ""  # the line the last block ended in
    end = b""  # the last bytes read so far: an escape may be cut between blocks
    while more := file.read(BLOCK_BYTES):
        if len(more.translate(None, _CONTROL)) != len(more):
            raise NotWritten  # a raw control character: invalid in a string, unusual between
        if MAY_HOLD_ESCAPE_BYTES.search(more) or MAY_HOLD_ESCAPE_BYTES.search(end + more[:3]):
            raise NotWritten  # maybe a lone surrogate (the writer writes no such escape)
        end = (end + more[-3:])[-3:]
        lines = decoder.decode(more).split("\n")
        lines[0] = rest + lines[0]
        rest = lines.pop()
        if lines:
            yield lines
    rest += decoder.decode(b"", final=True)
    if rest:
        yield [rest]


def _block(
    lines: list[str], commas: list[bool], read: FieldReader, first: int, strict: bool
) -> tuple[list[QuestionResult], int]:
    """Question lines ``  {...}``, with a comma after them or not and ``retrieved`` last,
    read together, and how many were not plain. Each line's head (the object without its
    ids) is parsed (by the strict decoder when ``strict``), the heads of questions without
    verdicts, evidence labels, usage or repeats (:data:`PLAIN_KEYS`) checked and built
    column by column, any other question by ``question_from_dict``."""
    # The first match, not the last (the head is shorter than the ids): a string holds no
    # bare quote, so only a key matches; one not at the top level leaves a head that fails.
    splits = list(map(str.find, lines, repeat(RETRIEVED)))
    if not (
        all(map(str.startswith, lines, repeat("  {")))
        and sum(map(str.endswith, lines, repeat("}"))) + sum(commas) == len(lines)
        and min(splits) >= 0
    ):
        raise NotWritten
    heads = list(map(add, map(str.__getitem__, lines, map(slice, repeat(2), splits)), repeat("}")))
    entries = _parsed(heads, STRICT_SCAN if strict else _DICT_SCAN)
    starts = list(map(add, splits, repeat(len(RETRIEVED))))
    ends = list(map(sub, map(len, lines), map(add, commas, repeat(1))))  # the closing brace
    ids = _block_ids(lines, starts, ends)
    plain, values = _plain_rows(entries)
    built = _plain_questions(values, [ids[i] for i in plain])
    if built is not None and not strict:
        _check_unrepeated([heads[i] for i in plain], built)
    if built is not None and len(built) == len(lines):
        return built, 0
    questions: list[QuestionResult | None] = [None] * len(lines)
    for index, question in zip(plain, built or (), strict=False):
        questions[index] = question
    for index, question in enumerate(questions):
        if question is None:
            entry = entries[index] if strict else whole_value(heads[index])
            if "retrieved" in entry:
                raise NotWritten
            questions[index] = question_from_dict(read, entry, first + index, ids[index])
    return questions, len(lines) - len(built or ())  # type: ignore[return-value]  # no None


def _parsed(heads: list[str], scan: Callable[[str, int], tuple[Any, int]]) -> list[dict[str, Any]]:
    """Each head parsed whole: an object."""
    # A scan that finds no value raises StopIteration, which ends map early: the length tells.
    scanned = list(map(scan, heads, repeat(0)))
    if len(scanned) != len(heads) or list(map(_STOP, scanned)) != list(map(len, heads)):
        raise NotWritten
    return list(map(_SCANNED, scanned))


def _plain_rows(entries: list[dict[str, Any]]) -> tuple[list[int], list[Any]]:
    """The entries with the keys :data:`PLAIN_KEYS` and no sentences: their indices, and
    their values one after the other in that order."""
    if list(chain.from_iterable(entries)) == list(PLAIN_KEYS) * len(entries):  # every key
        indices = [i for i, e in enumerate(entries) if e["sentences"] == []]
        if len(indices) == len(entries):
            return indices, list(chain.from_iterable(map(dict.values, entries)))
    else:
        indices = [
            i for i, e in enumerate(entries) if tuple(e) == PLAIN_KEYS and e["sentences"] == []
        ]
    return indices, list(chain.from_iterable(entries[i].values() for i in indices))


def _plain_questions(values: list[Any], ids: list[Sequence[str]]) -> list[QuestionResult] | None:
    """Questions of plain heads' values (:func:`_plain_rows`), checked in bulk as
    ``results._plain_question`` checks one; None when any differs (then each is read on its
    own, which names what is wrong)."""
    if not values:
        return []
    column = {key: values[k :: len(PLAIN_KEYS)] for k, key in enumerate(PLAIN_KEYS)}
    metrics, relevant = column["metrics"], column["relevant"]
    if not (
        set(map(type, chain(column["id"], column["question"], column["status"]))) == _STR
        and set(map(type, column["fingerprint"])) == _STR
        and set(column["status"]) <= _STATUSES
        and set(map(type, chain(column["answerable"], column["critical"]))) == _BOOL
        and set(map(type, chain(metrics, relevant))) == _DICT
        and set(map(type, column["tags"])) == _LIST
        and set(map(type, chain.from_iterable(column["tags"]))) <= _STR
        and set(map(type, chain(column["reference_answer"], column["answer"]))) <= _TEXT
        and set(map(type, column["error"])) <= _TEXT
    ):
        return None
    latencies = [value for value in column["latency_ms"] if value is not None]
    scores = list(chain(chain.from_iterable(map(dict.values, metrics)), latencies))
    grades = list(chain.from_iterable(map(dict.values, relevant)))
    if not (
        set(map(type, scores)) <= _FLOAT
        and all(map(math.isfinite, scores))
        and set(map(type, grades)) <= _INT
        and min(grades, default=0) >= 0
    ):
        return None
    return question_results(
        {
            **column,
            "status": map(sys.intern, column["status"]),
            "retrieved": ids,
            "tags": map(tuple, map(map, repeat(sys.intern), column["tags"])),
            "sentences": repeat(()),
            "evidence": map(dict, repeat(())),
            "judgments": map(dict, repeat(())),
            "usage": repeat(None),
            "agent": repeat(None),
            "conversation": repeat(None),
            "repeats": repeat(()),
        },
        len(ids),
    )


def _check_unrepeated(heads: list[str], questions: list[QuestionResult]) -> None:
    """Refuse a key repeated in one object of these heads, parsed without that check.

    Their objects are the question's, its metrics and its labels (the bulk checks leave no
    other), so they hold as many pairs as those dicts hold keys unless a key repeats. Each
    pair has a colon outside the strings: a head with no more colons than keys repeats
    none. Any other (a colon in a question's text) is parsed again, strictly."""
    keys = map(add, map(len, map(_METRICS, questions)), map(len, map(_RELEVANT, questions)))
    expected = list(map(add, keys, repeat(len(PLAIN_KEYS))))
    colons = list(map(str.count, heads, repeat(":")))
    if colons != expected:
        for head, count, keys_held in zip(heads, colons, expected, strict=True):
            if count != keys_held:
                whole_value(head)  # ValueError on a repeated key: the full reader names it


def _block_ids(lines: list[str], starts: list[int], ends: list[int]) -> list[Sequence[str]]:
    """The ids of each line's list ``line[start:end]``: all kept as text when every list is
    in the writer's plain form, else each read by :func:`_ids`."""
    inner_starts, inner_ends = list(map(add, starts, repeat(2))), list(map(sub, ends, repeat(2)))
    # Inside ``["`` and ``"]``, a list holds at least two quotes per ``", "`` it holds, and
    # exactly two when it is plain: so the sums over the lines are equal only if each is.
    if (
        all(map(str.startswith, lines, repeat('["'), starts, ends))
        and all(map(str.endswith, lines, repeat('"]'), starts, ends))
        and max(map(str.find, lines, repeat("\\"), starts, ends)) < 0
        and min(map(sub, inner_ends, inner_starts)) >= 0
        and sum(map(str.count, lines, repeat('"'), inner_starts, inner_ends))
        == 2 * sum(map(str.count, lines, repeat('", "'), inner_starts, inner_ends))
    ):
        return list(map(LazyIds, lines, starts, ends))
    return list(map(_ids, lines, starts, ends))


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
    ids = whole_value(line, start, end)
    if type(ids) is not list or not all(type(chunk) is str for chunk in ids):
        raise NotWritten
    return tuple(ids)
