"""The results model and its versioned JSON file (``ragguard.results/1``).

A results file holds everything compare needs, so it doubles as the baseline: the summary,
and per question its metric values, status, retrieved ids, labels, answer and verdicts.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
import zlib
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, fields
from itertools import repeat
from operator import attrgetter
from pathlib import Path
from typing import Any

from ragguard import __version__
from ragguard.core.bulk import collector_paused
from ragguard.core.errors import InputError
from ragguard.core.sources import (
    described_number,
    is_finite_number,
    parse_json_value,
    read_text,
    shown,
    type_name,
)
from ragguard.results.usage import Usage, usage_from_results

SCHEMA = "ragguard.results/1"
SUPPORTED_SCHEMAS = (SCHEMA,)

STATUS_OK = "ok"
STATUS_ERROR = "error"
STATUS_MISSING = "missing"
STATUS_ABSTAINED = "abstained"
STATUS_JUDGE_ERROR = "judge_error"
STATUSES = (STATUS_OK, STATUS_ERROR, STATUS_MISSING, STATUS_ABSTAINED, STATUS_JUDGE_ERROR)


@dataclass(frozen=True, slots=True)
class SentenceVerdict:
    """One answer sentence and whether the context supports it."""

    id: str
    text: str
    supported: bool | None
    score: float | None = None
    evidence: str | None = None
    note: str | None = None  # why unsupported or unchecked, e.g. "number 9 not in the evidence"


@dataclass(frozen=True, slots=True)
class RepeatRun:
    """One of the runs of a question asked several times (``system.repeat``, repeats.py)."""

    status: str
    metrics: dict[str, float]
    error: str | None = None
    latency_ms: float | None = None


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """Everything known about one question in one run."""

    id: str
    question: str
    status: str
    metrics: dict[str, float]
    # A tuple, or ids read from a results file and split on first use (results_lines.py).
    retrieved: Sequence[str] = ()
    relevant: dict[str, int] = field(default_factory=dict)
    fingerprint: str = ""
    answerable: bool = True
    critical: bool = False
    tags: tuple[str, ...] = ()
    reference_answer: str | None = None
    answer: str | None = None
    sentences: tuple[SentenceVerdict, ...] = ()
    latency_ms: float | None = None
    error: str | None = None
    # With evidence labels: the labels (Evidence.key, grade), and the grade each retrieved
    # chunk earned by the evidence it covers (chunks that cover none are absent).
    evidence: dict[str, int] = field(default_factory=dict)
    judgments: dict[str, int] = field(default_factory=dict)
    usage: Usage | None = None  # what the system reported this answer cost (usage.py)
    # Asked several times (``system.repeat``): each run; the fields above combine them
    # (repeats.py). Empty for a question asked once.
    repeats: tuple[RepeatRun, ...] = ()

    @property
    def judged_chunks(self) -> dict[str, int]:
        """Grades of the chunks this run can judge: labelled ids and covered evidence."""
        return {**self.relevant, **self.judgments} if self.judgments else self.relevant


@dataclass(frozen=True, slots=True)
class MetricSummary:
    """The mean of a metric over the questions it applies to, with a 95% interval."""

    value: float
    n: int
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class ShardInfo:
    """Marks a results file as one part of a sharded run (``ragguard run --shard i/n``).

    ``positions`` gives, for each of the part's questions (in its order), the question's
    place in the whole test set of ``testset_size`` questions, so merging restores the
    unsharded order without the test set at hand. The ids covered are the questions' ids.
    """

    index: int
    count: int
    testset_size: int
    positions: tuple[int, ...]


@dataclass(frozen=True)
class Results:
    suite: str
    created_at: str
    metrics: tuple[str, ...]
    summary: dict[str, MetricSummary]
    questions: tuple[QuestionResult, ...]
    testset_fingerprint: str
    config: dict[str, Any] = field(default_factory=dict)
    git: dict[str, str | None] = field(default_factory=dict)
    ragguard_version: str = __version__
    shard: ShardInfo | None = None

    @property
    def config_fingerprint(self) -> str:
        return config_fingerprint(self.config)

    @property
    def counts(self) -> dict[str, int]:
        """Questions per status, every status listed."""
        counted = Counter(question.status for question in self.questions)
        return {status: counted.get(status, 0) for status in STATUSES}

    @property
    def by_id(self) -> dict[str, QuestionResult]:
        return {question.id: question for question in self.questions}

    def to_dict(self) -> dict[str, Any]:
        data = self._header()
        data["questions"] = [_question_to_dict(question) for question in self.questions]
        return data

    def _header(self) -> dict[str, Any]:
        """Everything but the questions."""
        data: dict[str, Any] = {
            "schema": SCHEMA,
            "suite": self.suite,
            "created_at": self.created_at,
            "ragguard_version": self.ragguard_version,
            "git": dict(self.git),
            "testset": {"fingerprint": self.testset_fingerprint, "size": len(self.questions)},
            "config": {"fingerprint": self.config_fingerprint, "settings": self.config},
            "metrics": list(self.metrics),
            "summary": {
                name: {"value": s.value, "n": s.n, "ci": [s.low, s.high]}
                for name, s in self.summary.items()
            },
            "counts": self.counts,
        }
        if self.shard is not None:
            data["shard"] = _shard_to_dict(self.shard)
        return data

    def to_json(self) -> str:
        return "".join(self.json_chunks())

    def json_chunks(self, lines: Mapping[int, str] | None = None) -> Iterator[str]:
        """The JSON text in pieces, for writing a large file without holding it whole.

        The header is indented; each question is one line, encoded by json's C encoder
        (an indented dump goes through its pure-Python encoder: ten times slower, and
        millions of small strings). NaN raises ValueError. ``lines``: question lines
        already encoded by :func:`question_line`, by position (in the process that scored
        them, parallel_scoring.py); the others are encoded here.
        """
        header = json.dumps(self._header(), ensure_ascii=False, indent=1, allow_nan=False)
        yield header[: -len("\n}")] + ',\n "questions": [\n'
        if not self.questions:
            yield " ]\n}\n"
            return
        yield from _lines_and_columns(self.questions, lines or {})


def _lines_and_columns(
    questions: Sequence[QuestionResult], lines: Mapping[int, str]
) -> Iterator[str]:
    """The question lines, then their columns block and its check (results_columns.py):
    a CRC-32 of the bytes from the first line to the block's end."""
    from ragguard.results.columns import CHECK_FORMAT, COLUMNS_KEY, columns_of

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


_QUESTION_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
# Nothing JSON escapes with ensure_ascii=False (isprintable() checks most ids faster).
_PLAIN_ID = re.compile(r'[^"\\\x00-\x1f]*').fullmatch


def question_line(question: QuestionResult) -> str:
    """One question as a line of JSON. Its retrieved ids (most of a results file) are joined
    directly when none needs escaping (:func:`plain_ids`): the encoder costs about ten times
    more per id. They come last in the line either way."""
    data = _question_to_dict(question)
    ids = data.pop("retrieved")
    if not plain_ids(ids):
        data["retrieved"] = ids
        return _QUESTION_ENCODER.encode(data)
    retrieved = '["' + '", "'.join(ids) + '"]' if ids else "[]"
    return f'{_QUESTION_ENCODER.encode(data)[:-1]}, "retrieved": {retrieved}}}'


def plain_ids(ids: Sequence[str]) -> bool:
    """Whether no id needs escaping in JSON, so the ids are written joined as they are."""
    joined = "".join(ids)
    plain = joined.isprintable() and '"' not in joined and "\\" not in joined
    return plain or _PLAIN_ID(joined) is not None


def config_fingerprint(config: Mapping[str, Any]) -> str:
    """A hash of the settings that make two runs comparable."""
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _shard_to_dict(shard: ShardInfo) -> dict[str, Any]:
    return {
        "index": shard.index,
        "count": shard.count,
        "testset_size": shard.testset_size,
        "positions": list(shard.positions),
    }


def _question_to_dict(question: QuestionResult) -> dict[str, Any]:
    data = _question_fields(question)
    if question.evidence:
        data["evidence"] = question.evidence
        data["judgments"] = question.judgments
    if question.repeats:
        data["repeats"] = [repeat_to_dict(run) for run in question.repeats]
    return data


def repeat_to_dict(run: RepeatRun) -> dict[str, Any]:
    return {
        "status": run.status,
        "metrics": run.metrics,
        "error": run.error,
        "latency_ms": run.latency_ms,
    }


def _question_fields(question: QuestionResult) -> dict[str, Any]:
    return {
        "id": question.id,
        "question": question.question,
        "status": question.status,
        "metrics": question.metrics,
        "retrieved": list(question.retrieved),
        "relevant": question.relevant,
        "fingerprint": question.fingerprint,
        "answerable": question.answerable,
        "critical": question.critical,
        "tags": list(question.tags),
        "reference_answer": question.reference_answer,
        "answer": question.answer,
        "sentences": [
            {
                "id": s.id,
                "text": s.text,
                "supported": s.supported,
                "score": s.score,
                "evidence": s.evidence,
                "note": s.note,
            }
            for s in question.sentences
        ],
        "latency_ms": question.latency_ms,
        "error": question.error,
    } | ({"usage": question.usage.to_dict()} if question.usage is not None else {})


def write_results(
    results: Results, path: str | Path, lines: Mapping[int, str] | None = None
) -> Path:
    """Write the results file atomically (a crash never leaves half a baseline); ``lines``:
    see :meth:`Results.json_chunks`."""
    path = Path(path)
    if path.is_dir():
        raise InputError(path, "is a directory; give a file name such as results.json")
    temporary = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with temporary.open("w", encoding="utf-8") as file:
            file.writelines(results.json_chunks(lines))  # NaN raises here, before the rename
        temporary.replace(path)
    except OSError as exc:
        with suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise InputError(
            path, f"cannot write the results file: {exc.strerror or exc}; check the path"
        ) from None
    except BaseException:
        with suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise
    return path


def load_results(path: str | Path) -> Results:
    """A results file, read fast in the layout ragguard writes (``results_lines``), else
    parsed whole; both give the same results and the same errors."""
    from ragguard.results.lines import read_written_results

    path = Path(path)
    with collector_paused():
        written = read_written_results(path)
        if written is not None:
            return written
        return results_from_dict(read_json_file(path, "results file"), path)


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
    except ValueError as exc:
        raise InputError(path, f"not valid JSON ({exc})") from None


class FieldReader:
    """Typed access to a parsed results document, with errors naming the key path."""

    def __init__(self, source: str | Path) -> None:
        self.source = source

    def get(
        self, data: Any, key: str, kind: type | tuple[type, ...], path: str, optional: bool = False
    ) -> Any:
        if not isinstance(data, dict):
            raise InputError(self.source, f"expected an object, found {type_name(data)}", key=path)
        where = f"{path}.{key}" if path else key
        if key not in data:
            if optional:
                return None
            raise InputError(
                self.source, "missing; the file is not a complete ragguard results file", key=where
            )
        value = data[key]
        if value is None and optional:
            return None
        if kind is float and (isinstance(value, (int, float)) and not isinstance(value, bool)):
            if not is_finite_number(value):
                raise InputError(
                    self.source,
                    f"expected a finite number, found {described_number(value)}",
                    key=where,
                )
            return float(value)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, float)):
            raise InputError(
                self.source,
                f"expected {_kind_name(kind)}, found {type_name(value)}",
                key=where,
            )
        return value

    def strings(self, data: Any, key: str, path: str, intern: bool = True) -> tuple[str, ...]:
        """A list of strings, each checked; ``intern`` them when they repeat across
        questions (tags; not chunk ids: interning ten million of them costs seconds)."""
        items = self.get(data, key, list, path)
        try:
            "".join(items)  # checks every item is a string, in C
        except TypeError:
            where = f"{path}.{key}" if path else key
            index, item = next((i, x) for i, x in enumerate(items) if not isinstance(x, str))
            raise InputError(
                self.source,
                f"expected a string, found {type_name(item)}",
                key=f"{where}[{index}]",
            ) from None
        return tuple(map(sys.intern, items)) if intern else tuple(items)

    def grades(self, data: Any, key: str, path: str) -> dict[str, int]:
        """A mapping of chunk id to a non-negative integer grade."""
        labels = self.get(data, key, dict, path)
        for chunk, grade in labels.items():
            if isinstance(grade, bool) or not isinstance(grade, int) or grade < 0:
                raise InputError(
                    self.source,
                    f"expected a non-negative integer grade, found {shown(grade)}",
                    key=f"{path}.{key}.{chunk}",
                )
        return dict(labels)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}
    names |= {dict: "an object", list: "a list"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def results_from_dict(data: Any, source: str | Path = "results") -> Results:
    """Rebuild :class:`Results` from its JSON form, refusing unknown schema versions."""

    from ragguard.results.columns import check_columns

    def questions(read: FieldReader) -> tuple[QuestionResult, ...]:
        return tuple(
            question_from_dict(read, entry, index)
            for index, entry in enumerate(read.get(data, "questions", list, ""))
        )

    results = results_from_header(data, questions, source)
    check_columns(results, data, source)
    return results


def results_from_header(
    data: Any, questions: Callable[[FieldReader], tuple[QuestionResult, ...]], source: str | Path
) -> Results:
    """:class:`Results` from the header of its JSON form (everything but the questions)
    and ``questions``, which builds them once the header has been checked."""
    read = FieldReader(source)
    _check_schema(read, data)
    testset = read.get(data, "testset", dict, "")
    config = read.get(data, "config", dict, "")
    summary = {
        name: _summary(read, entry, f"summary.{name}")
        for name, entry in read.get(data, "summary", dict, "").items()
    }
    questions = questions(read)
    _check_unique_ids(questions, source)
    return Results(
        suite=read.get(data, "suite", str, ""),
        created_at=read.get(data, "created_at", str, ""),
        metrics=read.strings(data, "metrics", ""),
        summary=summary,
        questions=questions,
        testset_fingerprint=read.get(testset, "fingerprint", str, "testset"),
        config=read.get(config, "settings", dict, "config"),
        git=read.get(data, "git", dict, "", optional=True) or {},
        ragguard_version=read.get(data, "ragguard_version", str, "", optional=True) or "",
        shard=_shard(read, data.get("shard"), len(questions)),
    )


def question_from_dict(
    read: FieldReader, entry: Any, index: int, retrieved: Sequence[str] | None = None
) -> QuestionResult:
    """Question ``index`` of the file; ``retrieved`` when its ids were read apart."""
    plain = _plain_question(entry, retrieved)
    if plain is not None:
        return plain
    if retrieved is not None and type(entry) is dict:
        entry = {**entry, "retrieved": list(retrieved)}
    return _question(read, entry, f"questions[{index}]")


def _check_schema(read: FieldReader, data: Any) -> None:
    """Refuse a schema this version cannot read, listing the ones it can."""
    schema = read.get(data, "schema", object, "", optional=True)
    if schema in SUPPORTED_SCHEMAS:
        return
    reads = f"this ragguard {__version__} reads {', '.join(SUPPORTED_SCHEMAS)}"
    if schema is None:
        message = f"missing; not a ragguard results file ({reads})"
    else:
        message = (
            f"results schema {schema!r} is not supported; {reads}; "
            "re-create the file with this version, or upgrade ragguard"
        )
    raise InputError(read.source, message, key="schema")


_ID = attrgetter("id")


def _check_unique_ids(questions: tuple[QuestionResult, ...], source: str | Path) -> None:
    """Compare pairs questions by id: a repeated id would silently drop one of them."""
    if len(set(map(_ID, questions))) == len(questions):
        return
    first: dict[str, int] = {}
    for index, question in enumerate(questions):
        if question.id in first:
            raise InputError(
                source,
                f"duplicate question id {question.id!r} (first at questions[{first[question.id]}]); "
                "the file is damaged, re-create it",
                key=f"questions[{index}].id",
            )
        first[question.id] = index


def _shard(read: FieldReader, entry: Any, size: int) -> ShardInfo | None:
    """The optional ``shard`` object; absent in unsharded (and older) results files."""
    if entry is None:
        return None
    index = read.get(entry, "index", int, "shard")
    count = read.get(entry, "count", int, "shard")
    testset_size = read.get(entry, "testset_size", int, "shard")
    positions = read.get(entry, "positions", list, "shard")
    if not 1 <= index <= count:
        raise InputError(read.source, f"index {index} is not in 1..{count}", key="shard.index")
    if len(positions) != size or not all(
        isinstance(p, int) and not isinstance(p, bool) and 0 <= p < testset_size for p in positions
    ):
        raise InputError(
            read.source,
            f"expected one position in 0..{testset_size - 1} per question ({size})",
            key="shard.positions",
        )
    return ShardInfo(index, count, testset_size, tuple(positions))


def _summary(read: FieldReader, entry: Any, path: str) -> MetricSummary:
    ci = read.get(entry, "ci", list, path)
    if len(ci) != 2 or not all(is_finite_number(v) for v in ci):
        raise InputError(read.source, "expected [low, high]", key=f"{path}.ci")
    return MetricSummary(
        value=read.get(entry, "value", float, path),
        n=read.get(entry, "n", int, path),
        low=float(ci[0]),
        high=float(ci[1]),
    )


_OPTIONAL_TEXT = {str, type(None)}
_FLOAT, _INT = {float}, {int}
# The types of id, question, status, fingerprint, answerable, critical, metrics, relevant, tags.
_PLAIN_KINDS = (str, str, str, str, bool, bool, dict, dict, list)


def _plain_question(entry: Any, retrieved: Sequence[str] | None = None) -> QuestionResult | None:
    """The question as ragguard writes it, checked in bulk; None when anything differs
    (then :func:`_question` reads it field by field and names what is wrong).
    ``retrieved``: its ids, already read and checked (then the entry has none)."""
    if (
        type(entry) is not dict
        or entry.get("sentences")
        or "evidence" in entry
        or "judgments" in entry
        or "usage" in entry
        or "repeats" in entry
    ):
        return None  # verdicts, evidence labels and repeats: the checking reader
    get = entry.get
    try:
        texts = (entry["id"], entry["question"], entry["status"], entry["fingerprint"])
        flags = (entry["answerable"], entry["critical"])
        metrics, relevant, tags = entry["metrics"], entry["relevant"], entry["tags"]
        if retrieved is None:
            retrieved = _plain_ids(entry["retrieved"])
        optional = (get("reference_answer"), get("answer"), get("error"))
        latency = get("latency_ms")
        plain = (  # in order: each check only when the ones before it passed
            (*map(type, texts), *map(type, flags), type(metrics), type(relevant), type(tags))
            == _PLAIN_KINDS
            and texts[2] in STATUSES
            and retrieved is not None
            and set(map(type, metrics.values())) <= _FLOAT
            and all(map(math.isfinite, metrics.values()))
            and set(map(type, relevant.values())) <= _INT
            and min(relevant.values(), default=0) >= 0
            and set(map(type, optional)) <= _OPTIONAL_TEXT
            and (latency is None or (type(latency) is float and math.isfinite(latency)))
        )
        if not plain:
            return None
        "".join(tags)  # every item a string: checked in C
    except (KeyError, TypeError, OverflowError):  # any doubt: the checking reader decides
        return None
    return question_result(
        id=texts[0],
        question=texts[1],
        status=sys.intern(texts[2]),
        metrics=metrics,
        retrieved=retrieved,
        relevant=relevant,
        fingerprint=texts[3],
        answerable=flags[0],
        critical=flags[1],
        tags=tuple(map(sys.intern, tags)) if tags else (),
        reference_answer=optional[0],
        answer=optional[1],
        sentences=(),
        latency_ms=latency,
        error=optional[2],
        evidence={},
        judgments={},
        usage=None,
        repeats=(),
    )


# Each field's slot setter: a frozen dataclass's __init__ sets every field through
# object.__setattr__, three times slower (a third of reading a large file's questions).
_SLOT_SETTERS = tuple(
    (field.name, QuestionResult.__dict__[field.name].__set__) for field in fields(QuestionResult)
)


def question_result(**values: Any) -> QuestionResult:
    """``QuestionResult(**values)`` for checked values of every field (each one given),
    its slots set directly: for the bulk paths, reading a results file and scoring a run."""
    question = object.__new__(QuestionResult)
    for name, set_slot in _SLOT_SETTERS:
        set_slot(question, values[name])
    return question


def question_results(columns: Mapping[str, Iterable[Any]], count: int) -> list[QuestionResult]:
    """:func:`question_result` column-wise: ``count`` questions from checked values given
    field by field (every field: a column of at least ``count`` values, or
    ``itertools.repeat`` of one), each slot set by ``map`` in C; a 100,000-question file
    would otherwise call about 2 million setters from Python."""
    questions = list(map(object.__new__, repeat(QuestionResult, count)))
    for name, set_slot in _SLOT_SETTERS:
        deque(map(set_slot, questions, columns[name]), maxlen=0)
    return questions


def _plain_ids(ids: Any) -> tuple[str, ...] | None:
    """A list of strings as a tuple (checked in C), or None."""
    if type(ids) is not list:
        return None
    "".join(ids)  # TypeError unless every item is a string
    return tuple(ids)


def _question(read: FieldReader, entry: Any, path: str) -> QuestionResult:
    status = _status(read, entry, path)
    metrics = _metrics(read, entry, path)
    sentences = tuple(
        SentenceVerdict(
            id=read.get(s, "id", str, f"{path}.sentences[{i}]"),
            text=read.get(s, "text", str, f"{path}.sentences[{i}]"),
            supported=read.get(s, "supported", bool, f"{path}.sentences[{i}]", optional=True),
            score=read.get(s, "score", float, f"{path}.sentences[{i}]", optional=True),
            evidence=read.get(s, "evidence", str, f"{path}.sentences[{i}]", optional=True),
            note=read.get(s, "note", str, f"{path}.sentences[{i}]", optional=True),
        )
        for i, s in enumerate(read.get(entry, "sentences", list, path, optional=True) or [])
    )
    return QuestionResult(
        id=read.get(entry, "id", str, path),
        question=read.get(entry, "question", str, path),
        status=status,
        metrics=metrics,
        retrieved=read.strings(entry, "retrieved", path, intern=False),
        relevant=read.grades(entry, "relevant", path),
        fingerprint=read.get(entry, "fingerprint", str, path),
        answerable=read.get(entry, "answerable", bool, path),
        critical=read.get(entry, "critical", bool, path),
        tags=read.strings(entry, "tags", path),
        reference_answer=read.get(entry, "reference_answer", str, path, optional=True),
        answer=read.get(entry, "answer", str, path, optional=True),
        sentences=sentences,
        latency_ms=read.get(entry, "latency_ms", float, path, optional=True),
        error=read.get(entry, "error", str, path, optional=True),
        evidence=read.grades(entry, "evidence", path) if "evidence" in entry else {},
        judgments=read.grades(entry, "judgments", path) if "judgments" in entry else {},
        usage=usage_from_results(entry.get("usage"), read.source, path),
        repeats=repeats_from(read, entry, path),
    )


def _status(read: FieldReader, entry: Any, path: str) -> str:
    status = sys.intern(read.get(entry, "status", str, path))
    if status not in STATUSES:
        raise InputError(read.source, f"unknown status {status!r}", key=f"{path}.status")
    return status


def _metrics(read: FieldReader, entry: Any, path: str) -> dict[str, float]:
    metrics = read.get(entry, "metrics", dict, path)
    for name, value in metrics.items():
        if not is_finite_number(value):
            raise InputError(
                read.source,
                f"metric values must be finite numbers, found {described_number(value)}",
                key=f"{path}.metrics.{name}",
            )
    return {name: float(value) for name, value in metrics.items()}


def repeats_from(read: FieldReader, entry: Any, path: str) -> tuple[RepeatRun, ...]:
    runs = read.get(entry, "repeats", list, path, optional=True) or []
    return tuple(
        RepeatRun(
            status=_status(read, run, where),
            metrics=_metrics(read, run, where),
            error=read.get(run, "error", str, where, optional=True),
            latency_ms=read.get(run, "latency_ms", float, where, optional=True),
        )
        for i, run in enumerate(runs)
        for where in (f"{path}.repeats[{i}]",)
    )
