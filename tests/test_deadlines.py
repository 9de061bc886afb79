"""Deadlines of python calls made on the run's own workers: an overrunning call is recorded
as timed out by the collecting thread, its worker replaced and its late answer dropped."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from ragguard.config.model import RunSettings
from ragguard.system.deadlines import Deadlines, GivenUp, InPlaceAdapter
from ragguard.system.pool import run_questions
from ragguard.system.python import PythonAdapter
from ragguard.testset.model import Question


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def question(qid: str, text: str = "fast") -> Question:
    return Question(id=qid, question=text, relevant={"a": 1})


def test_a_call_within_its_deadline_returns_its_value_or_raises_its_error() -> None:
    deadlines = Deadlines(10.0, FakeClock())
    assert deadlines.call(question("q"), lambda: 42) == 42
    with pytest.raises(ValueError, match="bad"):
        deadlines.call(question("q"), lambda: (_ for _ in ()).throw(ValueError("bad")))
    assert deadlines.overdue() == []


def test_an_overdue_call_is_reported_once_and_its_outcome_given_up() -> None:
    clock = FakeClock()
    deadlines = Deadlines(10.0, clock)
    reported: list[list[tuple[Question, float]]] = []

    def overrun() -> str:
        clock.now = 9.0
        reported.append(deadlines.overdue())  # not yet
        clock.now = 12.5
        reported.append(deadlines.overdue())
        reported.append(deadlines.overdue())  # only once
        return "late"

    with pytest.raises(GivenUp):
        deadlines.call(question("slow"), overrun)
    assert reported == [[], [(question("slow"), 12.5)], []]
    assert deadlines.message == "timed out after 10s"
    assert deadlines.check_every(0.5) == 0.5 and Deadlines(0.2, clock).check_every(0.5) == 0.02
    assert Deadlines(0.001, clock).check_every(0.5) == 0.01  # never a spinning check


def test_the_python_adapter_is_called_in_place_by_the_runner() -> None:
    threads: list[str] = []

    def system(text: str) -> dict[str, Any]:
        threads.append(threading.current_thread().name)
        return {"retrieved": ["a"], "answer": text}

    adapter = PythonAdapter("tests:system", system)
    assert isinstance(adapter, InPlaceAdapter)
    outcome = run_questions(adapter, [question("q0"), question("q1")], RunSettings(concurrency=1))
    assert [r.answer for r in outcome.records.values()] == ["fast", "fast"]
    assert threads == ["ragguard-question-0"] * 2  # the worker itself, no helper thread


def test_an_overrunning_python_call_is_timed_out_its_worker_replaced_its_answer_dropped() -> None:
    clock = FakeClock()
    release = threading.Event()
    finished = threading.Event()

    def system(text: str) -> dict[str, Any]:
        if text == "slow":
            clock.now += 60.0  # past the 30 s timeout, as far as the run can tell
            release.wait(timeout=30)
            finished.set()
            return {"retrieved": ["late"], "answer": "late"}
        return {"retrieved": ["a"], "answer": text}

    questions = [question("q0"), question("q1", "slow"), question("q2"), question("q3")]
    settings = RunSettings(concurrency=1, timeout=30.0, retries=0)
    added: list[str | None] = []
    outcome = run_questions(
        PythonAdapter("tests:system", system),
        questions,
        settings,
        clock=clock,
        on_record=lambda record: added.append(record.answer),
    )
    stuck = [t for t in threading.enumerate() if t.name == "ragguard-question-0"]
    release.set()
    assert finished.wait(timeout=30)  # the stuck call ran on, and returned
    for thread in stuck:
        thread.join(timeout=30)
        assert not thread.is_alive()  # it stopped instead of taking another question
    assert added == ["fast", None, "fast", "fast"]  # in order; the late answer was dropped
    assert outcome.records["q1"].error == "timed out after 30s"
    assert outcome.records["q1"].latency_ms == 60_000.0
    assert [outcome.records[q].answer for q in ("q0", "q2", "q3")] == ["fast"] * 3
    assert list(outcome.records) == ["q0", "q1", "q2", "q3"]
    assert outcome.errors == 1
