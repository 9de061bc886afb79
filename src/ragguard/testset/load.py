"""Loading a test set: a YAML list, JSON Lines (one question object a line) or CSV with a
header row, every entry checked and every error naming the file and the line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import (
    ascii_int,
    iter_csv_rows,
    iter_jsonl_objects,
    read_text,
    same_after_normalising,
    shown,
    span_of,
    type_name,
    unknown_key_message,
)
from ragguard.core.yaml_lines import LineDict, LineList, parse_yaml
from ragguard.testset.model import MAX_GRADE, Evidence, Question, TestSet, grade_too_high

QUESTION_KEYS = (
    "id",
    "question",
    "relevant",
    "reference_answer",
    "answerable",
    "critical",
    "tags",
    "meta",
)


def load_testset(path: str | Path) -> TestSet:
    """Load a test set, choosing the format by the file's extension."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return _load_yaml(path)
    if suffix in (".jsonl", ".ndjson"):
        return _load_jsonl(path)
    if suffix == ".csv":
        return _load_csv(path)
    raise InputError(
        path, f"unknown test set format {suffix or '(no extension)'!r}; use .yaml, .jsonl or .csv"
    )


def _load_yaml(path: Path) -> TestSet:
    data = parse_yaml(read_text(path, what="test set"), path)
    if isinstance(data, LineDict) and "questions" in data:
        data = data["questions"]
    if not isinstance(data, LineList):
        raise InputError(
            path, f"expected a list of questions (or a 'questions:' list), found {type_name(data)}"
        )
    entries = []
    for index, entry in enumerate(data):
        line = data.item_lines[index]
        if not isinstance(entry, LineDict):
            raise InputError(
                path, f"expected a question mapping, found {type_name(entry)}", line=line
            )
        entries.append((entry, entry.where(path)))
    return _build(path, entries)


def _load_jsonl(path: Path) -> TestSet:
    text = read_text(path, what="test set")
    entries = [(obj, Where(path, number)) for number, obj in iter_jsonl_objects(text, path)]
    return _build(path, entries)


def _load_csv(path: Path) -> TestSet:
    text = read_text(path, what="test set")
    entries = []
    for number, row in iter_csv_rows(text, path):
        entries.append((_csv_entry(row, Where(path, number)), Where(path, number)))
    return _build(path, entries)


def _csv_entry(row: dict[str, str], where: Where) -> dict[str, Any]:
    """Turn a CSV row into the mapping form.

    ``relevant`` is ``chunk:grade`` items (or bare chunk ids, grade 1) separated by ``;``;
    ``tags`` is separated by ``;``; booleans are true/false/yes/no/1/0.
    """
    entry: dict[str, Any] = {}
    for key, raw in row.items():
        value = raw.strip()
        if not value and key in QUESTION_KEYS:
            continue  # an empty cell is a missing value (an unknown column is still refused)
        if key in ("relevant", "tags"):
            items = _csv_items(value, key, where)
            if key == "tags":
                entry[key] = items
            else:
                entry[key] = _csv_labels(items, where)
        elif key in ("answerable", "critical"):
            entry[key] = _csv_bool(value, key, where)
        else:
            entry[key] = value
    return entry


def _csv_items(value: str, key: str, where: Where) -> list[str]:
    """Split a ``;``-separated cell; a comma inside is refused (it is a wrong separator)."""
    if "," in value:
        raise where.error(f"{value!r}: separate items with ';', not ',' (e.g. a:2;b)", key=key)
    return [item.strip() for item in value.split(";") if item.strip()]


def _csv_labels(items: list[str], where: Where) -> dict[str, Any]:
    labels: dict[str, Any] = {}
    for item in items:
        chunk, sep, grade = item.rpartition(":")
        if not sep:
            chunk, grade = item, "1"
        chunk = chunk.strip()
        grade = grade.strip()
        if not chunk:
            raise where.error(
                f"{item!r} has no chunk id; write chunk:grade items separated by ';'",
                key="relevant",
            )
        if chunk in labels:
            raise where.error(f"chunk {chunk!r} is listed twice", key="relevant")
        number = ascii_int(grade)
        labels[chunk] = grade if number is None else number
    return labels


def _csv_bool(value: str, key: str, where: Where) -> bool:
    lowered = value.lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise where.error(f"expected true or false, found {value!r}", key=key)


def _build(path: Path, entries: Iterable[tuple[Mapping[str, Any], Where]]) -> TestSet:
    questions: list[Question] = []
    lines: dict[str, int | None] = {}
    for entry, where in entries:
        question = question_from_mapping(entry, where)
        if question.id in lines:
            first = lines[question.id]
            at = f" (first at line {first})" if first else ""
            raise where.error(f"duplicate id {question.id!r}{at}; ids must be unique", key="id")
        lines[question.id] = where.line
        questions.append(question)
    if not questions:
        raise InputError(path, "test set has no questions")
    twins = same_after_normalising(lines)
    if twins:
        raise InputError(
            path,
            f"ids {twins[0]!r} and {twins[1]!r} differ only in Unicode normalisation (NFC); "
            "write them the same way, or give them different ids",
            line=lines[twins[1]],
            key="id",
        )
    return TestSet(tuple(questions), source=str(path))


def question_from_mapping(entry: Mapping[str, Any], where: Where) -> Question:
    """Validate one question entry and build the :class:`Question`."""
    for key in entry:
        if key not in QUESTION_KEYS:
            raise where.error(unknown_key_message(key, QUESTION_KEYS), key=str(key))
    question_id = _identifier(entry.get("id"), "id", where)
    text = _question_text(entry.get("question"), where)
    answerable = _optional_bool(entry, "answerable", True, where)
    relevant, evidence = _labels(entry.get("relevant"), where)
    has_relevant = any(grade >= 1 for grade in relevant.values()) or any(
        e.grade >= 1 for e in evidence
    )
    if answerable and not has_relevant:
        raise where.error(
            f"question {question_id!r} has no relevant chunk (grade >= 1); label one, "
            "or set answerable: false if the docs cannot answer it",
            key="relevant",
        )
    if not answerable and has_relevant:
        raise where.error(
            f"question {question_id!r} is answerable: false but lists relevant chunks; "
            "remove the labels or the answerable flag",
            key="relevant",
        )
    reference = entry.get("reference_answer")
    if reference is not None and not isinstance(reference, str):
        raise where.error(
            f"expected a string, found {type_name(reference)}", key="reference_answer"
        )
    meta = entry.get("meta") or {}
    if not isinstance(meta, Mapping):
        raise where.error(f"expected a mapping, found {type_name(meta)}", key="meta")
    return Question(
        id=question_id,
        question=text,
        relevant=relevant,
        reference_answer=reference,
        answerable=answerable,
        critical=_optional_bool(entry, "critical", False, where),
        tags=_tags(entry.get("tags"), where),
        meta=dict(meta),
        evidence=evidence,
    )


def _question_text(text: Any, where: Where) -> str:
    if isinstance(text, str) and text.strip():
        return text.strip()
    if text is None:
        found = "missing"
    elif isinstance(text, str):
        found = "found an empty string"
    else:
        found = f"found {type_name(text)}"
    raise where.error(f"question text is required ({found})", key="question")


def _identifier(value: Any, key: str, where: Where) -> str:
    """An id: a non-empty string, or a whole number taken as its digits."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    if value is None:
        needed = "a stable id for this question" if key == "id" else "a chunk id, not null"
        raise where.error(f"is required ({needed})", key=key)
    if isinstance(value, str):
        raise where.error("is empty; give a non-empty id", key=key)
    raise where.error(f"expected a non-empty string, found {type_name(value)}; quote it", key=key)


def _optional_bool(entry: Mapping[str, Any], key: str, default: bool, where: Where) -> bool:
    value = entry.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise where.error(f"expected true or false, found {type_name(value)}", key=key)
    return value


def _labels(value: Any, where: Where) -> tuple[dict[str, int], tuple[Evidence, ...]]:
    """Graded chunk labels and evidence labels.

    ``relevant`` is a mapping of chunk id to grade, a single chunk id, or a list whose items
    are chunk ids (grade 1) or evidence mappings (``{doc: ..., quote: ..., grade: 2}``).
    Errors point at the line of the offending label when the YAML gives it.
    """
    if value is None:
        return {}, ()
    if isinstance(value, str):
        if "," in value:
            raise where.error(
                f"{value!r} is one chunk id; list several as [a, b] or {{a: 2, b: 1}}",
                key="relevant",
            )
        value = [value]
    evidence: list[Evidence] = []
    if isinstance(value, list):
        items = []
        for index, item in enumerate(value):
            at = _item_where(value, index, where)
            if isinstance(item, Mapping):
                evidence.append(_evidence(item, index, at))
            else:
                items.append((item, 1, at))
    elif isinstance(value, Mapping):
        items = [(chunk, grade, _key_where(value, chunk, where)) for chunk, grade in value.items()]
    else:
        raise where.error(
            "expected a mapping of chunk id to grade, or a list of chunk ids and evidence; "
            f"found {type_name(value)}",
            key="relevant",
        )
    labels: dict[str, int] = {}
    for chunk, grade, at in items:
        chunk_id = _identifier(chunk, "relevant", at)
        if chunk_id in labels:
            raise at.error(f"chunk {chunk_id!r} is listed twice", key="relevant")
        labels[chunk_id] = _grade(grade, repr(chunk_id), at, "relevant")
    return labels, _unique_evidence(evidence, where)


EVIDENCE_KEYS = ("doc", "quote", "chars", "lines", "grade")


def _evidence(item: Mapping[str, Any], index: int, where: Where) -> Evidence:
    """One evidence label: ``{doc, grade?}`` and at most one of quote, chars, lines."""
    key = f"relevant[{index}]"
    for name in item:
        if name not in EVIDENCE_KEYS:
            raise where.error(f"{name!r}: {unknown_key_message(name, EVIDENCE_KEYS)}", key=key)
    doc = _identifier(item.get("doc"), f"{key}.doc", where)
    spans = [name for name in ("quote", "chars", "lines") if item.get(name) is not None]
    if len(spans) > 1:
        raise where.error(f"give one of quote, chars or lines, not {' and '.join(spans)}", key=key)
    quote = item.get("quote")
    if quote is not None and not (isinstance(quote, str) and quote.strip()):
        raise where.error(
            f"quote must be a non-empty string of the document's text, found {shown(quote)}",
            key=f"{key}.quote",
        )
    grade = _grade(item.get("grade", 1), f"the evidence in {doc!r}", where, f"{key}.grade")
    return Evidence(
        doc=doc,
        grade=grade,
        quote=quote.strip() if isinstance(quote, str) else None,
        chars=_span(item.get("chars"), f"{key}.chars", where, first=0),
        lines=_span(item.get("lines"), f"{key}.lines", where, first=1),
    )


def _span(value: Any, key: str, where: Where, *, first: int) -> tuple[int, int] | None:
    """A ``[start, end]`` pair of whole numbers, start <= end, start >= ``first``."""
    if value is None:
        return None
    span = span_of(value, first)
    if span is None:
        unit = "characters, end excluded" if first == 0 else "lines, both included"
        raise where.error(
            f"expected [start, end] with {first} <= start <= end ({unit}), found {shown(value)}",
            key=key,
        )
    return span


def _unique_evidence(evidence: list[Evidence], where: Where) -> tuple[Evidence, ...]:
    keys: set[str] = set()
    for item in evidence:
        if item.key in keys:
            raise where.error(f"evidence {item.key} is listed twice", key="relevant")
        keys.add(item.key)
    return tuple(evidence)


def _grade(grade: Any, what: str, at: Where, key: str) -> int:
    if isinstance(grade, bool) or not isinstance(grade, int) or grade < 0:
        raise at.error(
            f"grade of {what} must be a non-negative integer (0, 1, 2, ...), found {shown(grade)}",
            key=key,
        )
    if grade > MAX_GRADE:
        raise at.error(grade_too_high(what, grade), key=key)
    return grade


def _item_where(items: list[Any], index: int, where: Where) -> Where:
    if isinstance(items, LineList) and items.item_lines[index] != where.line:
        return Where(where.source, items.item_lines[index])
    return where


def _key_where(mapping: Mapping[Any, Any], key: Any, where: Where) -> Where:
    line = mapping.key_lines.get(str(key)) if isinstance(mapping, LineDict) else None
    return Where(where.source, line) if line else where


def _tags(value: Any, where: Where) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(
        isinstance(tag, str) and tag.strip() for tag in value
    ):
        raise where.error("expected a list of non-empty strings", key="tags")
    return tuple(dict.fromkeys(tag.strip() for tag in value))
