"""Reading the fields of a parsed results document: typed, each error naming its key path.

:func:`results_from_header` checks the header and builds :class:`~ragguard.results.model.Results`;
:func:`question_from_dict` reads one question, a plain one (as ragguard writes it: no
verdicts, evidence labels, usage or repeats) checked in bulk, any other field by field.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from operator import attrgetter
from pathlib import Path
from typing import Any

from ragguard import __version__
from ragguard.core.errors import InputError
from ragguard.core.sources import described_number, is_finite_number, shown, type_name
from ragguard.results.agent import agent_from_results
from ragguard.results.judging import judge_costs_from
from ragguard.results.model import (
    STATUSES,
    SUPPORTED_SCHEMAS,
    MetricSummary,
    QuestionResult,
    RepeatRun,
    Results,
    SentenceVerdict,
    ShardInfo,
    question_result,
)
from ragguard.results.usage import usage_from_results


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
        judge=judge_costs_from(data.get("judge"), str(source)),
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


SHARD_LIMIT = 999_999_999  # `--shard i/n` takes at most 9 digits


def _shard(read: FieldReader, entry: Any, size: int) -> ShardInfo | None:
    """The optional ``shard`` object; absent in unsharded (and older) results files."""
    if entry is None:
        return None
    index = read.get(entry, "index", int, "shard")
    count = read.get(entry, "count", int, "shard")
    testset_size = read.get(entry, "testset_size", int, "shard")
    positions = read.get(entry, "positions", list, "shard")
    for key, value in (("count", count), ("testset_size", testset_size)):
        if not 0 <= value <= SHARD_LIMIT:  # hundreds of digits would overflow when merged
            raise InputError(
                read.source,
                f"{shown_int(value)} is not a whole number from 0 to {SHARD_LIMIT:,}",
                key=f"shard.{key}",
            )
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
        or "agent" in entry
        or "conversation" in entry
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
        agent=None,
        conversation=None,
    )


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
        agent=agent_from_results(entry.get("agent"), read.source, path),
        conversation=read.get(entry, "conversation", str, path, optional=True),
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


def shown_int(value: int) -> str:
    """A whole number in an error line: as written, or its length when it is long."""
    text = str(value) if abs(value) < 10**30 else None
    return text if text is not None else f"a number of {len(str(abs(value))):,} digits"
