"""The small interface every adapter implements, and the shared output validation.

An :class:`Adapter` answers one question at a time (the runner calls it from several
threads, retries transient failures and measures latency). A :class:`BatchAdapter` takes all
the questions at once (a command in batch mode, a recorded run) and emits a
:class:`~ragguard.results.records.RunRecord` per question as they come.

A failure of the system on one question is a :class:`SystemFailure` whose message lands in
that question's ``RunRecord.error``; :class:`TransientFailure` marks the ones worth a retry.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import type_name
from ragguard.core.surrogates import escape_surrogates, surrogate_in
from ragguard.results.chunks import Chunk
from ragguard.results.records import RunRecord, record_from_mapping
from ragguard.results.steps import Step
from ragguard.results.usage import Usage
from ragguard.testset.model import Question

OUTPUT_KEYS = ("retrieved", "answer", "meta", "usage", "steps")
USAGE_ATTRIBUTES = ("prompt_tokens", "completion_tokens", "total_tokens", "cost")


class SystemFailure(Exception):
    """The system under test failed on one question; the message is recorded for it."""


class TransientFailure(SystemFailure):
    """A failure worth retrying (connection error, 429, 5xx).

    ``retry_after`` is the wait in seconds the system asked for, if it said.
    """

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class Answer:
    """What the system returned for one question."""

    retrieved: tuple[Chunk, ...] = ()
    answer: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    usage: Usage | None = None
    steps: tuple[Step, ...] = ()


@runtime_checkable
class Adapter(Protocol):
    """Answers one question; raises :class:`SystemFailure` when the system fails on it."""

    def identity(self) -> dict[str, Any]:
        """The settings that say which system this is (kind and target), for results."""
        ...

    def ask(self, question: Question, timeout: float) -> Answer: ...


@runtime_checkable
class BatchAdapter(Protocol):
    """Answers many questions in one go, emitting a record for each as it is done."""

    def identity(self) -> dict[str, Any]: ...

    def run_batch(
        self,
        questions: Sequence[Question],
        timeout: float,
        emit: Callable[[RunRecord], None],
        stop: threading.Event,
    ) -> None:
        """Emit one record per question (an error record when it failed), until ``stop``."""
        ...


def adapter_notes(adapter: Adapter | BatchAdapter) -> tuple[str, ...]:
    """The lines an adapter has for the user once it has run (``notes``, when it has them:
    what a trace reader skipped)."""
    notes = getattr(adapter, "notes", ())
    return tuple(notes) if isinstance(notes, (tuple, list)) else ()


def close_adapter(adapter: Adapter | BatchAdapter) -> None:
    """Let an adapter release what it holds for the run (``close``, when it has one: a
    traced command's OTLP receiver)."""
    close = getattr(adapter, "close", None)
    if callable(close):
        close()


def answer_from_output(value: Any, what: str = "the result") -> Answer:
    """Validate what a system returned: a mapping or an object with retrieved and answer.

    ``retrieved`` is a list in rank order of chunk ids, or of mappings/objects with ``id``
    and optionally ``text`` and ``score``. Anything else raises :class:`SystemFailure`
    naming what was wrong.
    """
    if isinstance(value, Mapping):
        unknown = [str(key) for key in value if key not in OUTPUT_KEYS]
        if unknown:
            raise SystemFailure(
                f"{what} has unknown key {unknown[0]!r}; expected {', '.join(OUTPUT_KEYS)}"
            )
        fields = dict(value)
    elif hasattr(value, "retrieved") or hasattr(value, "answer"):
        fields = {key: getattr(value, key) for key in OUTPUT_KEYS if hasattr(value, key)}
    else:
        raise SystemFailure(
            f"{what} is {type_name(value)}; expected a mapping or an object with "
            "'retrieved' (chunk ids in rank order) and 'answer'"
        )
    retrieved = fields.get("retrieved")
    if retrieved is not None and not isinstance(retrieved, (list, tuple)):
        raise SystemFailure(
            f"{what}: 'retrieved' is {type_name(retrieved)}; expected a list in rank order"
        )
    fields["steps"] = _steps_value(fields.get("steps"))
    if retrieved is not None or not fields["steps"]:
        fields["retrieved"] = [_chunk_value(item) for item in retrieved or ()]
    fields["usage"] = _usage_value(fields.get("usage"))
    _refuse_surrogates(fields, what)
    record = _validated({"id": "-", **fields}, what)
    return Answer(record.retrieved, record.answer, record.meta, record.usage, record.steps)


def _steps_value(steps: Any) -> Any:
    """Steps given as a tuple, or as :class:`Step` objects, become the list of mappings."""
    if not isinstance(steps, (list, tuple)):
        return steps
    return [step.to_dict() if isinstance(step, Step) else step for step in steps]


def _usage_value(usage: Any) -> Any:
    """A usage object (an SDK's ``CompletionUsage``, with token attributes) becomes a mapping."""
    if usage is None or isinstance(usage, Mapping):
        return usage
    found = {key: getattr(usage, key) for key in USAGE_ATTRIBUTES if hasattr(usage, key)}
    return found or usage


def _chunk_value(item: Any) -> Any:
    """A chunk given as an object (with id/text/score/doc/chars/lines attributes) becomes
    a mapping."""
    if isinstance(item, (str, int, Mapping)) or not hasattr(item, "id"):
        return item
    fields = {
        key: getattr(item, key)
        for key in ("id", "text", "score", "doc", "chars", "lines")
        if getattr(item, key, None) is not None
    }
    return {key: list(v) if isinstance(v, tuple) else v for key, v in fields.items()}


def _refuse_surrogates(fields: dict[str, Any], what: str) -> None:
    """A lone surrogate anywhere in the output fails the question: no writer could write it
    (docs/formats.md, "Decisions the formats leave open"). A JSON reply's escapes were
    refused when it was parsed; this finds what a python system returned."""
    found = surrogate_in(fields)
    if found is not None:
        where, code = found
        raise SystemFailure(
            f"{what}: {where} holds a lone surrogate {code}, half of a UTF-16 pair and not "
            "a character; return whole characters"
        )


def _validated(fields: dict[str, Any], what: str) -> RunRecord:
    try:
        return record_from_mapping(fields, Where(what))
    except InputError as exc:
        key = f"'{exc.key}' " if exc.key else ""
        raise SystemFailure(f"{what}: {key}{exc.message}") from None


def record_for(question_id: str, answer: Answer, latency_ms: float | None) -> RunRecord:
    return RunRecord(
        id=question_id,
        retrieved=answer.retrieved,
        answer=answer.answer,
        latency_ms=latency_ms,
        meta=dict(answer.meta),
        usage=answer.usage,
        steps=answer.steps,
    )


def describe_failure(exc: BaseException) -> str:
    """What a failure of the system says in its question's record."""
    if isinstance(exc, SystemFailure):
        return str(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def error_record(question_id: str, message: str, latency_ms: float | None = None) -> RunRecord:
    """A failed question; a surrogate in the message (a python system's exception text) is
    shown as its escape, so the results can be written."""
    return RunRecord(
        id=question_id, latency_ms=latency_ms, error=escape_surrogates(message) or "failed"
    )


def placeholders(question: Question) -> dict[str, Any]:
    """The values a template may reference: {question}, {id}, {tags}, and for a turn of a
    conversation {history} (the messages before it, ``[{"role", "content"}, ...]``)."""
    values: dict[str, Any] = {
        "question": question.question,
        "id": question.id,
        "tags": list(question.tags),
    }
    if question.conversation is not None:
        values["history"] = history_of(question)
    return values


class Messages(list):  # type: ignore[type-arg]
    """A turn's history as a placeholder value: a list in a JSON template, its JSON text in
    a command's argument or a URL."""


def history_of(question: Question) -> Messages:
    """A turn's messages before it, as chat APIs write them."""
    return Messages(message.to_dict() for message in question.history)


def fill_text(template: str, values: Mapping[str, Any], quote: Callable[[str], str] = str) -> str:
    """Replace ``{name}`` for each known name; other braces are left alone."""
    text = template
    for name, value in values.items():
        text = text.replace("{" + name + "}", quote(_as_text(value)))
    return text


def _as_text(value: Any) -> str:
    """A placeholder's text: tags joined by commas, a history as its JSON text."""
    if isinstance(value, Messages):
        return json.dumps(value, ensure_ascii=False)
    return ",".join(value) if isinstance(value, list) else str(value)


def fill_template(template: Any, values: Mapping[str, Any]) -> Any:
    """Fill a JSON-like template: a string that is exactly ``{name}`` takes the value itself
    (so ``"{tags}"`` stays a list); other strings get text substitution."""
    if isinstance(template, str):
        for name, value in values.items():
            if template == "{" + name + "}":
                return value
        return fill_text(template, values)
    if isinstance(template, Mapping):
        return {key: fill_template(item, values) for key, item in template.items()}
    if isinstance(template, list):
        return [fill_template(item, values) for item in template]
    return template


def format_seconds(seconds: float) -> str:
    """``30s``, ``0.5s``, ``2m`` — how a duration appears in messages."""
    if seconds >= 60 and seconds % 60 == 0:
        return f"{int(seconds // 60)}m"
    return f"{seconds:g}s"
