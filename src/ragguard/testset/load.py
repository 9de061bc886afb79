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
    type_name,
    unknown_key_message,
)
from ragguard.core.yaml_lines import LineDict, LineList, parse_yaml
from ragguard.testset.agentic import parse_hops, parse_tool_order, parse_tools, union_of_hops
from ragguard.testset.conversations import conversation_turns, is_conversation
from ragguard.testset.labels import identifier, parse_labels, parse_status, parse_tags
from ragguard.testset.model import Question, TestSet

QUESTION_KEYS = (
    "id",
    "question",
    "relevant",
    "reference_answer",
    "answerable",
    "critical",
    "tags",
    "meta",
    "hops",
    "expected_tools",
    "tool_order",
    "status",
    "kind",
    "source",
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


ENTRY_EXAMPLES = {
    "yaml": 'a question looks like "- {id: q1, question: How do I rotate a key?, '
    'relevant: [auth-keys]}" (docs/formats.md)',
    "jsonl": 'a line looks like {"id": "q1", "question": "How do I rotate a key?", '
    '"relevant": ["auth-keys"]} (docs/formats.md)',
    "csv": 'under the header "id,question,relevant" a row looks like '
    '"q1,How do I rotate a key?,auth-keys" (docs/formats.md)',
}


def _read_testset(path: Path, kind: str) -> str:
    """The test set's text; an empty file is refused with an entry of its format to copy."""
    advice = f"check the path, or write its questions: {ENTRY_EXAMPLES[kind]}"
    return read_text(path, what="test set", empty_advice=advice)


def _load_yaml(path: Path) -> TestSet:
    return testset_from_yaml_text(_read_testset(path, "yaml"), path)


def yaml_entries(text: str, path: str | Path) -> LineList:
    """A YAML test set's entries as written (a list, or a mapping's ``questions:`` list)."""
    data = parse_yaml(text, path)
    if isinstance(data, LineDict) and "questions" in data:
        data = data["questions"]
    if not isinstance(data, LineList):
        raise InputError(
            path, f"expected a list of questions (or a 'questions:' list), found {type_name(data)}"
        )
    return data


def testset_from_yaml_text(text: str, path: str | Path) -> TestSet:
    """The test set a YAML text holds, its errors naming ``path`` (``ragguard testset review``
    checks an edit this way before it writes the file)."""
    data = yaml_entries(text, path)
    entries = []
    for index, entry in enumerate(data):
        line = data.item_lines[index]
        if not isinstance(entry, LineDict):
            raise InputError(
                path, f"expected a question mapping, found {type_name(entry)}", line=line
            )
        entries.append((entry, entry.where(path)))
    return testset_from_entries(path, entries, example=ENTRY_EXAMPLES["yaml"])


def _load_jsonl(path: Path) -> TestSet:
    text = _read_testset(path, "jsonl")
    entries = [(obj, Where(path, number)) for number, obj in iter_jsonl_objects(text, path)]
    return testset_from_entries(path, entries, example=ENTRY_EXAMPLES["jsonl"])


def _load_csv(path: Path) -> TestSet:
    text = _read_testset(path, "csv")
    entries = []
    for number, row in iter_csv_rows(text, path):
        entries.append((_csv_entry(row, Where(path, number)), Where(path, number)))
    return testset_from_entries(path, entries, example=ENTRY_EXAMPLES["csv"])


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


def testset_from_entries(
    path: str | Path,
    entries: Iterable[tuple[Mapping[str, Any], Where]],
    *,
    example: str = "",
) -> TestSet:
    """The test set of question entries, each checked; errors name the entry's place.

    The loaders call it with the file's entries and ``example``, an entry of the file's
    format shown when it holds none; ``ragguard import`` with the entries it would write,
    placed in the file they come from, so a refusal names that file.
    """
    questions: list[Question] = []
    wheres: dict[str, Where] = {}
    for entry, where in entries:
        for question in questions_of(entry, where):
            if question.id in wheres:
                first = wheres[question.id].line
                at = f" (first at line {first})" if first else ""
                raise where.error(f"duplicate id {question.id!r}{at}; ids must be unique", key="id")
            wheres[question.id] = where
            questions.append(question)
    if not questions:
        raise InputError(path, "test set has no questions" + (f"; {example}" if example else ""))
    twins = same_after_normalising(wheres)
    if twins:
        raise wheres[twins[1]].error(
            f"ids {twins[0]!r} and {twins[1]!r} differ only in Unicode normalisation (NFC); "
            "write them the same way, or give them different ids",
            key="id",
        )
    lines = {question_id: where.line for question_id, where in wheres.items()}
    return TestSet(tuple(questions), source=str(path), lines=lines)


def questions_of(entry: Mapping[str, Any], where: Where) -> list[Question]:
    """An entry's question, or a conversation's turns."""
    if is_conversation(entry):
        return conversation_turns(entry, where, question_from_mapping)
    return [question_from_mapping(entry, where)]


def question_from_mapping(entry: Mapping[str, Any], where: Where) -> Question:
    """Validate one question entry and build the :class:`Question`."""
    for key in entry:
        if key not in QUESTION_KEYS:
            raise where.error(unknown_key_message(key, QUESTION_KEYS), key=str(key))
    question_id = identifier(entry.get("id"), "id", where)
    text = _question_text(entry.get("question"), where)
    answerable = _optional_bool(entry, "answerable", True, where)
    relevant, evidence = parse_labels(entry.get("relevant"), where)
    hops = parse_hops(entry.get("hops"), where)
    if hops and entry.get("relevant") is None:
        relevant, evidence = union_of_hops(hops)
    tools = parse_tools(entry.get("expected_tools"), where)
    has_relevant = any(grade >= 1 for grade in relevant.values()) or any(
        e.grade >= 1 for e in evidence
    )
    if answerable and not has_relevant and not tools:
        raise where.error(
            f"question {question_id!r} has no relevant chunk (grade >= 1); label one, "
            "or set answerable: false if the docs cannot answer it (or give expected_tools "
            "for a question answered by tool calls alone)",
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
        tags=parse_tags(entry.get("tags"), where),
        meta=dict(meta),
        evidence=evidence,
        hops=hops,
        expected_tools=tools,
        tool_order=parse_tool_order(entry.get("tool_order"), bool(tools), where),
        status=parse_status(entry.get("status"), where),
        kind=_optional_text(entry, "kind", where),
        source=_optional_text(entry, "source", where),
    )


def _optional_text(entry: Mapping[str, Any], key: str, where: Where) -> str | None:
    """An optional free-text field (``kind``, ``source``): a non-empty string, kept as is."""
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise where.error(f"expected a non-empty string, found {shown(value)}", key=key)
    return value.strip()


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


def _optional_bool(entry: Mapping[str, Any], key: str, default: bool, where: Where) -> bool:
    value = entry.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise where.error(f"expected true or false, found {type_name(value)}", key=key)
    return value
