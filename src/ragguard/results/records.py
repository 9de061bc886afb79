"""The recorded run: what the system under test returned for each question.

Every adapter produces these records, and ``ragguard score`` reads them from JSON Lines::

    {"id": "q1", "retrieved": ["c1", {"id": "c2", "text": "...", "score": 0.8}],
     "answer": "...", "latency_ms": 412, "error": null,
     "usage": {"prompt_tokens": 812, "completion_tokens": 96, "cost": 0.0031}}

``retrieved`` is in rank order; scores are kept but never re-sort it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import (
    is_finite_number,
    iter_jsonl_objects,
    iter_lines,
    same_after_normalising,
    shown,
    type_name,
    unknown_key_message,
)
from ragguard.results.chunks import Chunk, chunk_origin, chunk_to_dict, ranking_from_list
from ragguard.results.steps import Step, steps_from_list, union_of_retrievals, usage_of_steps
from ragguard.results.usage import Usage, usage_from_mapping

RECORD_KEYS = ("id", "retrieved", "answer", "latency_ms", "error", "meta", "usage", "steps")


@dataclass(frozen=True, slots=True)
class RunRecord:
    """The system's output for one question, or the error that stopped it."""

    id: str
    retrieved: tuple[Chunk, ...] = ()
    answer: str | None = None
    latency_ms: float | None = None
    error: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    usage: Usage | None = None
    steps: tuple[Step, ...] = ()  # an agent's retrievals, tool and model calls (steps.py)

    @property
    def retrieved_ids(self) -> list[str]:
        return [chunk.id for chunk in self.retrieved]

    def to_dict(self) -> dict[str, Any]:
        retrieved: list[Any] = [
            chunk.id if chunk.is_bare else chunk_to_dict(chunk) for chunk in self.retrieved
        ]
        data: dict[str, Any] = {
            "id": self.id,
            "retrieved": retrieved,
            "answer": self.answer,
            "latency_ms": self.latency_ms,
            "error": self.error,
        }
        if self.meta:
            data["meta"] = dict(self.meta)
        if self.usage is not None:
            data["usage"] = self.usage.to_dict()
        if self.steps:
            data["steps"] = [step.to_dict() for step in self.steps]
        return data


@dataclass(frozen=True)
class Run:
    """Records by question id, with the line each came from (for error messages), and the
    notes its reader has for the user (what a trace file's reader skipped, one line each)."""

    records: dict[str, RunRecord]
    source: str = ""
    lines: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def check_known(self, known_ids: Iterable[str]) -> None:
        """Refuse records for questions the test set does not have."""
        known = set(known_ids)
        for question_id in self.records:
            if question_id not in known:
                raise InputError(
                    self.source or "run",
                    f"run entry for unknown question id {question_id!r}; "
                    + _why_unknown(question_id, known),
                    line=self.lines.get(question_id),
                )


def _why_unknown(question_id: str, known: set[str]) -> str:
    twin = same_after_normalising([question_id, *known])
    if twin and question_id in twin:
        other = twin[0] if twin[1] == question_id else twin[1]
        return (
            f"the test set has {other!r}, which differs only in Unicode normalisation (NFC); "
            "ids are compared exactly, so write it the same way"
        )
    return "it is not in the test set (a typo, or a stale run file?)"


def load_run(path: str | Path) -> Run:
    """Load a recorded run in JSON Lines, streamed: one line is held at a time. A results
    file given instead is named as such."""
    from ragguard.results.kinds import is_results_file, results_given_as_run

    path = Path(path)
    try:
        return parse_run_jsonl(iter_lines(path, what="run file"), path)
    except InputError:
        if is_results_file(path):
            raise results_given_as_run(path) from None
        raise


def parse_run_jsonl(text: str | Iterable[tuple[int, str]], source: str | Path) -> Run:
    """A run from JSON Lines text, or from numbered lines (as :func:`iter_lines` streams)."""
    records: dict[str, RunRecord] = {}
    lines: dict[str, int] = {}
    for number, obj in iter_jsonl_objects(text, source):
        where = Where(source, number)
        record = record_from_mapping(obj, where)
        if record.id in records:
            raise where.error(
                f"second entry for question {record.id!r} (first at line {lines[record.id]})",
                key="id",
            )
        records[record.id] = record
        lines[record.id] = number
    return Run(records, source=str(source), lines=lines)


def record_from_mapping(obj: Mapping[str, Any], where: Where) -> RunRecord:
    """Validate one run record."""
    for key in obj:
        if key not in RECORD_KEYS:
            raise where.error(unknown_key_message(key, RECORD_KEYS), key=str(key))
    question_id = obj.get("id")
    if isinstance(question_id, int) and not isinstance(question_id, bool):
        question_id = str(question_id)
    if not isinstance(question_id, str) or not question_id:
        raise where.error("every run entry needs the question id as a string", key="id")
    steps = steps_from_list(obj.get("steps"), where)
    chunks = ranking_from_list(obj.get("retrieved"), where)
    if obj.get("retrieved") is None and steps:
        chunks = union_of_retrievals(steps)
    answer = obj.get("answer")
    if answer is not None and not isinstance(answer, str):
        raise where.error(f"expected a string or null, found {type_name(answer)}", key="answer")
    latency = obj.get("latency_ms")
    if latency is not None and not (is_finite_number(latency) and latency >= 0):
        raise where.error(
            f"expected a non-negative number, found {shown(latency)}", key="latency_ms"
        )
    error = obj.get("error")
    if error is not None and not isinstance(error, str):
        error = json.dumps(error)
    meta = obj.get("meta") or {}
    if not isinstance(meta, Mapping):
        raise where.error(f"expected a mapping, found {type_name(meta)}", key="meta")
    return RunRecord(
        id=question_id,
        retrieved=chunks,
        answer=answer,
        latency_ms=float(latency) if latency is not None else None,
        error=error or None,
        meta=dict(meta),
        usage=_usage(obj, steps, where),
        steps=steps,
    )


def _usage(obj: Mapping[str, Any], steps: tuple[Step, ...], where: Where) -> Usage | None:
    """The record's ``usage``, else the sum of its model calls' (steps.py)."""
    if obj.get("usage") is None and steps:
        return usage_of_steps(steps)
    return usage_from_mapping(obj.get("usage"), where)


def dump_run(records: Iterable[RunRecord]) -> str:
    """Serialise records as JSON Lines (the inverse of :func:`parse_run_jsonl`)."""
    return "".join(
        json.dumps(record.to_dict(), ensure_ascii=False, allow_nan=False) + "\n"
        for record in records
    )


def load_corpus(path: str | Path) -> dict[str, str]:
    """Load chunk text from JSON Lines ``{"id": ..., "text": ...}`` (BEIR's ``_id`` too)."""
    return corpus_texts(load_corpus_chunks(path))


def corpus_texts(chunks: Mapping[str, Chunk]) -> dict[str, str]:
    """The text of each corpus chunk by id (what generation metrics read)."""
    return {chunk_id: chunk.text or "" for chunk_id, chunk in chunks.items()}


def chunks_placing_labels(path: Path | None) -> dict[str, Chunk]:
    """The chunk corpus's chunks by id, which place chunk-id labels in their documents
    (coverage, drafting, the corpus note); none without a chunk file."""
    return load_corpus_chunks(path) if path is not None else {}


def load_corpus_chunks(path: str | Path) -> dict[str, Chunk]:
    """The corpus as chunks: text, and ``doc``/``chars``/``lines`` when an entry gives them."""
    path = Path(path)
    corpus: dict[str, Chunk] = {}
    for number, obj in iter_jsonl_objects(iter_lines(path, what="corpus"), path):
        where = Where(path, number)
        chunk_id = obj.get("id", obj.get("_id"))
        if isinstance(chunk_id, int) and not isinstance(chunk_id, bool):
            chunk_id = str(chunk_id)
        if not isinstance(chunk_id, str) or not chunk_id:
            raise where.error("every corpus entry needs a string id", key="id")
        body = obj.get("text")
        if not isinstance(body, str):
            raise where.error(
                f"expected the chunk text as a string, found {type_name(body)}", key="text"
            )
        title = obj.get("title")
        if isinstance(title, str) and title.strip():
            body = f"{title.strip()}\n{body}"
        if chunk_id in corpus:
            raise where.error(f"duplicate chunk id {chunk_id!r}", key="id")
        corpus[chunk_id] = Chunk(chunk_id, body, None, *chunk_origin(obj, where, "doc"))
    return corpus
