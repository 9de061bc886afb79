"""Test sets written by ragas and deepeval, read as questions with reference contexts.

The shapes are the files those libraries save (docs/formats.md, "Importing ragas and
deepeval test sets"), checked against files written by ragas 0.4.3 and deepeval 4.3.1:

- ragas ``EvaluationDataset`` / ``Testset`` ``to_jsonl`` and ``to_csv``: ``user_input``,
  ``reference_contexts``, ``reference`` (``retrieved_contexts`` and ``response`` are a run's
  output, not labels, and are ignored). In CSV a list is written as a Python literal
  (``['a', 'b']``). The ragas 0.1 test set generator's ``question``, ``contexts`` and
  ``ground_truth`` are read too when no 0.2 key is there.
- deepeval ``EvaluationDataset.save_as`` (json, jsonl, csv) goldens: ``input``,
  ``context`` (a list, or one string joined with ``|`` in jsonl and csv),
  ``expected_output``, ``name``, ``source_file``, ``additional_metadata``.

A multi-turn entry (ragas ``MultiTurnSample``, deepeval ``ConversationalGolden``) in the same
files is read as a conversation by :mod:`ragguard.testset.formats.foreign_turns`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import (
    iter_csv_rows,
    iter_jsonl_objects,
    parse_json_value,
    read_text,
    type_name,
)
from ragguard.core.surrogates import LoneSurrogate
from ragguard.testset.formats.foreign_turns import (
    ForeignConversation,
    deepeval_conversation,
    is_deepeval_conversation,
    is_ragas_conversation,
    ragas_conversation,
)
from ragguard.testset.formats.foreign_values import (
    context_list,
    deepeval_contexts,
    optional_text,
    python_literal,
    required_text,
)

FLAVOURS = ("ragas", "deepeval")


@dataclass(frozen=True)
class ForeignQuestion:
    """One question of another tool's test set, before it has an id and labels."""

    question: str
    contexts: tuple[str, ...]
    where: Where
    reference_answer: str | None = None
    name: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def id_text(self) -> str:
        """The text an id is made from when the file names none."""
        return self.question


ForeignItem = ForeignQuestion | ForeignConversation


@dataclass(frozen=True)
class _Keys:
    question: str
    contexts: str
    reference: str


_RAGAS = _Keys("user_input", "reference_contexts", "reference")
_RAGAS_01 = _Keys("question", "contexts", "ground_truth")
_DEEPEVAL = _Keys("input", "context", "expected_output")


def read_foreign(path: str | Path, flavour: str) -> list[ForeignItem]:
    """The questions and conversations of a ragas or deepeval file (.jsonl, .json or .csv)."""
    path = Path(path)
    entries = list(_entries(path))
    if not entries:
        raise InputError(path, f"holds no {flavour} question")
    read = _ragas_item if flavour == "ragas" else _deepeval_item
    return [read(entry, where) for entry, where in entries]


def _ragas_item(entry: Mapping[str, Any], where: Where) -> ForeignItem:
    if is_ragas_conversation(entry):
        return ragas_conversation(entry, where)
    return _ragas_question(entry, where)


def _deepeval_item(entry: Mapping[str, Any], where: Where) -> ForeignItem:
    if is_deepeval_conversation(entry):
        return deepeval_conversation(entry, where)
    return _deepeval_question(entry, where)


def _entries(path: Path) -> Iterator[tuple[Mapping[str, Any], Where]]:
    suffix = path.suffix.lower()
    text = read_text(path, what="test set")
    if suffix in (".jsonl", ".ndjson"):
        for number, obj in iter_jsonl_objects(text, path):
            yield obj, Where(path, number)
    elif suffix == ".json":
        yield from _json_list(text, path)
    elif suffix == ".csv":
        for number, row in iter_csv_rows(text, path):
            yield _csv_values(row), Where(path, number)
    else:
        raise InputError(
            path, f"unknown format {suffix or '(no extension)'!r}; use .jsonl, .json or .csv"
        )


def _json_list(text: str, path: Path) -> Iterator[tuple[Mapping[str, Any], Where]]:
    try:
        data = parse_json_value(text)
    except ValueError as exc:
        line = exc.lineno if isinstance(exc, LoneSurrogate) else None
        raise InputError(path, f"invalid JSON: {exc}", line=line) from None
    if not isinstance(data, list):
        raise InputError(path, f"expected a JSON list of questions, found {type_name(data)}")
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError(path, f"expected an object, found {type_name(item)}", key=f"[{index}]")
        yield item, _ItemWhere(path, index)


class _ItemWhere(Where):
    """A place in a JSON list, which has no useful line: errors name the item."""

    def __init__(self, path: Path, index: int) -> None:
        super().__init__(path)
        self.index = index

    @property
    def place(self) -> str:
        return f"{self.source} [{self.index}]"

    def error(self, message: str, key: str | None = None) -> InputError:
        place = f"[{self.index}]" + (f".{key}" if key else "")
        return InputError(self.source, message, key=place)


def _csv_values(row: Mapping[str, str]) -> dict[str, Any]:
    """A CSV row with empty cells as missing values."""
    return {key: value for key, value in row.items() if value.strip()}


def _ragas_question(entry: Mapping[str, Any], where: Where) -> ForeignQuestion:
    keys = _RAGAS if _RAGAS.question in entry or _RAGAS_01.question not in entry else _RAGAS_01
    meta = {k: entry[k] for k in ("synthesizer_name", "evolution_type") if k in entry}
    return ForeignQuestion(
        question=required_text(entry, keys.question, where),
        contexts=_ragas_contexts(entry.get(keys.contexts), keys.contexts, where),
        where=where,
        reference_answer=optional_text(entry, keys.reference, where),
        meta=meta,
    )


def _ragas_contexts(value: Any, key: str, where: Where) -> tuple[str, ...]:
    if isinstance(value, str):
        value = python_literal(value, key, where)
    return context_list(value, key, where)


def _deepeval_question(entry: Mapping[str, Any], where: Where) -> ForeignQuestion:
    meta = {k: entry[k] for k in ("source_file", "additional_metadata") if entry.get(k)}
    return ForeignQuestion(
        question=required_text(entry, _DEEPEVAL.question, where),
        contexts=deepeval_contexts(entry.get(_DEEPEVAL.contexts), where),
        where=where,
        reference_answer=optional_text(entry, _DEEPEVAL.reference, where),
        name=optional_text(entry, "name", where),
        meta=meta,
    )
