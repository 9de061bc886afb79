"""Conversations asked turn by turn: each turn with the messages before it.

A worker takes a question alone, or a conversation's turns together, and asks the turns in
order, each with the history so far (the user's questions and the system's answers). When a
turn fails, the turns after it are not asked: each is recorded as an error naming the turn
that failed, so nothing goes missing and no turn is asked after a conversation it never had.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Container, Sequence

from ragguard.render.failures import NOT_RUN
from ragguard.results.records import RunRecord
from ragguard.system.base import describe_failure, error_record
from ragguard.system.deadlines import GivenUp
from ragguard.testset.model import Message, Question


def asked_together(questions: Sequence[Question]) -> list[tuple[Question, ...]]:
    """Each question alone, and each conversation's turns in one unit, in test-set order."""
    units: dict[str, list[Question]] = {}
    for question in questions:
        units.setdefault(question.conversation or f"\0{question.id}", []).append(question)
    return [tuple(unit) for unit in units.values()]


def with_whole_conversations(
    questions: Sequence[Question], wanted: Container[str]
) -> list[Question]:
    """The questions whose ids are ``wanted``, with every turn of a conversation one of
    whose turns is wanted: a turn is asked after the turns before it, never alone (a
    resumed run, a recheck)."""
    conversations = {q.conversation for q in questions if q.conversation and q.id in wanted}
    return [q for q in questions if q.id in wanted or q.conversation in conversations]


def ask_in_turn(
    unit: Sequence[Question],
    ask: Callable[[Question], RunRecord],
    record: Callable[[RunRecord], bool],
) -> bool:
    """Ask the unit's questions in order and record each; False when the worker must stop
    (its call ran past the deadline and was recorded for it, or a record could not be kept)."""
    history: list[Message] = []
    for position, question in enumerate(unit):
        if question.conversation is not None:
            question = dataclasses.replace(question, history=tuple(history))
        try:
            answer = ask(question)
        except GivenUp:  # recorded as timed out by the collecting thread, replaced
            _not_asked(unit[position + 1 :], position + 1, "timed out", record)
            return False
        except BaseException as exc:  # never lose a question, whatever escaped
            answer = error_record(question.id, describe_failure(exc))
        if not record(answer):
            return False
        if answer.error and position + 1 < len(unit):
            return _not_asked(unit[position + 1 :], position + 1, "failed", record)
        history += [Message("user", question.question), Message("assistant", answer.answer or "")]
    return True


def _not_asked(
    rest: Sequence[Question], turn: int, what: str, record: Callable[[RunRecord], bool]
) -> bool:
    """Record the turns after a failed one as not asked."""
    return all(record(not_asked_turn(question, turn, what)) for question in rest)


def not_asked_turn(question: Question, turn: int, what: str) -> RunRecord:
    """The record of a turn not asked because turn ``turn`` of its conversation ``what``."""
    return error_record(question.id, f"{NOT_RUN} turn {turn} of the conversation {what}")


def later_turns(units: Sequence[Sequence[Question]]) -> dict[str, tuple[int, tuple[Question, ...]]]:
    """For each turn of a conversation that has turns after it: its number and those turns
    (the collecting thread records them when the turn runs past its deadline)."""
    return {
        question.id: (position + 1, tuple(unit[position + 1 :]))
        for unit in units
        for position, question in enumerate(unit[:-1])
        if question.conversation is not None
    }
