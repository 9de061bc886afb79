"""Calibration items from human verdicts that a test set carries on a recorded run's answers.

A question's ``meta.human`` holds ``faithful: true|false`` (the whole answer) and/or
``sentences: {s1: true, s3: false}`` (statements by segment id, as in results.json). Its
errors name the test set's line (the key's own line in YAML); a run whose chunks have no text
and no corpus to look them up in is refused as ``ragguard score`` refuses it for faithfulness.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragguard.core.errors import InputError, Where
from ragguard.core.yaml_lines import LineDict
from ragguard.judge.calibrate import CalibrationItem, InAnswer
from ragguard.judge.setup import check_chunk_text
from ragguard.metrics.generation import context_of
from ragguard.metrics.text import segment
from ragguard.results.records import Run
from ragguard.testset.model import TestSet


def items_from_run(
    testset: TestSet, run: Run, corpus: Mapping[str, str] | None = None
) -> list[CalibrationItem]:
    """Calibration items from the test set's ``meta.human`` verdicts on the run's answers.

    Questions without ``meta.human``, or without an answer in the run, are skipped.
    """
    source = testset.source or "test set"
    items: list[CalibrationItem] = []
    for question in testset:
        human = question.meta.get("human") if question.meta else None
        record = run.records.get(question.id)
        if human is None or record is None or record.error or not record.answer:
            continue
        line = testset.lines.get(question.id)
        if not isinstance(human, Mapping):
            raise InputError(
                source,
                f"question {question.id!r}: meta.human must be a mapping",
                line=_line_of(human, None, line),
                key="meta.human",
            )
        check_chunk_text({question.id: record}, corpus, run.source or "run", run.lines)
        context = context_of(record, corpus)
        at = Where(source, _line_of(human, None, line))
        items += _human_items(question.id, question.question, record.answer, human, context, at)
    if not items:
        raise InputError(
            source, "no question carries meta.human verdicts for an answered question in the run"
        )
    return items


def _line_of(value: Any, key: str | None, default: int | None) -> int | None:
    """The line YAML gave ``value`` (or its ``key``), else ``default`` (the question's)."""
    if isinstance(value, LineDict):
        return value.key_lines.get(key, value.line) if key is not None else value.line
    return default


def _human_items(
    question_id: str,
    question: str,
    answer: str,
    human: Mapping[str, Any],
    context: tuple[tuple[str, str], ...],
    where: Where,
) -> list[CalibrationItem]:
    items = []
    unknown = set(human) - {"faithful", "sentences"}
    if unknown:
        raise where.error(
            f"question {question_id!r}: unknown key {sorted(unknown)[0]!r} in meta.human; "
            "allowed: faithful, sentences",
            key="meta.human",
        )
    if "faithful" in human:
        if not isinstance(human["faithful"], bool):
            raise where.error(
                f"question {question_id!r}: faithful must be true or false", key="meta.human"
            )
        items.append(
            CalibrationItem(
                f"{question_id}", "answer", answer, human["faithful"], context, "answer", question
            )
        )
    labels = human.get("sentences") or {}
    if not isinstance(labels, Mapping):
        raise where.error(
            f"question {question_id!r}: sentences must map ids to true/false", key="meta.human"
        )
    segments = {s.id: s.text for s in segment(answer)}
    for sentence_id, verdict in labels.items():
        if sentence_id not in segments or not isinstance(verdict, bool):
            raise InputError(
                where.source,
                f"question {question_id!r}: sentence {sentence_id!r} must be one of the answer's "
                f"ids ({', '.join(segments) or 'none'}) with true or false",
                line=_line_of(labels, str(sentence_id), where.line),
                key="meta.human",
            )
        items.append(
            CalibrationItem(
                f"{question_id}#{sentence_id}",
                "sentence",
                segments[sentence_id],
                verdict,
                context,
                "sentence",
                question,
                InAnswer(question_id, answer, sentence_id),
            )
        )
    return items
