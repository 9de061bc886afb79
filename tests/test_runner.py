"""The runner: concurrency (proven with a barrier), retries, timeouts, errors, Ctrl-C, progress."""

from __future__ import annotations

import io
import random
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from ragguard.config.model import RunSettings
from ragguard.results.chunks import Chunk
from ragguard.results.records import RunRecord
from ragguard.system.base import Answer, SystemFailure, TransientFailure
from ragguard.system.outcome import (
    VERDICT_ERROR,
    VERDICT_OK,
    RunOutcome,
    allowed_failures,
    run_failure_lines,
)
from ragguard.system.pool import BACKOFF_BASE, MAX_RETRY_AFTER, early_stop_for, run_questions
from ragguard.system.progress import BarProgress, LogProgress, make_progress
from ragguard.system.runner import LineLog
from ragguard.testset.model import Question


def questions(n: int) -> list[Question]:
    return [Question(id=f"q{i}", question=f"question {i}", relevant={"c": 1}) for i in range(n)]


class FunctionAdapter:
    """An adapter whose answer comes from a function of the question (a test double)."""

    def __init__(self, answer: Callable[[Question], Answer]) -> None:
        self.answer = answer
        self.calls: list[str] = []
        self.lock = threading.Lock()

    def identity(self) -> dict[str, Any]:
        return {"kind": "test"}

    def ask(self, question: Question, timeout: float) -> Answer:
        with self.lock:
            self.calls.append(question.id)
        return self.answer(question)


def ok(question: Question) -> Answer:
    return Answer(retrieved=(Chunk("c"),), answer=f"answer to {question.id}")


class RecordingSleep:
    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def test_n_questions_are_in_flight_at_once() -> None:
    concurrency = 6
    barrier = threading.Barrier(concurrency, timeout=10)
    in_flight = 0
    most = 0
    lock = threading.Lock()

    def answer(question: Question) -> Answer:
        nonlocal in_flight, most
        with lock:
            in_flight += 1
            most = max(most, in_flight)
        barrier.wait()  # breaks (BrokenBarrierError) unless `concurrency` calls wait together
        with lock:
            in_flight -= 1
        return ok(question)

    outcome = run_questions(
        FunctionAdapter(answer), questions(24), RunSettings(concurrency=concurrency)
    )
    assert [record.error for record in outcome.records.values()] == [None] * 24
    assert most == concurrency


def test_fewer_workers_than_the_barrier_needs_cannot_pass_it() -> None:
    barrier = threading.Barrier(3, timeout=0.5)

    def answer(question: Question) -> Answer:
        barrier.wait()
        return ok(question)

    outcome = run_questions(FunctionAdapter(answer), questions(2), RunSettings(concurrency=2))
    assert all(record.error == "BrokenBarrierError" for record in outcome.records.values())


def test_records_follow_test_set_order_and_keep_the_answer() -> None:
    outcome = run_questions(FunctionAdapter(ok), questions(10), RunSettings(concurrency=4))
    assert list(outcome.records) == [f"q{i}" for i in range(10)]
    assert outcome.records["q3"].answer == "answer to q3"
    assert outcome.records["q3"].retrieved_ids == ["c"]


def test_latency_is_measured_per_question_with_the_given_clock() -> None:
    now = [100.0]

    def answer(question: Question) -> Answer:
        now[0] += 0.25 if question.id == "q0" else 1.5
        return ok(question)

    outcome = run_questions(
        FunctionAdapter(answer), questions(2), RunSettings(concurrency=1), clock=lambda: now[0]
    )
    assert outcome.records["q0"].latency_ms == 250.0
    assert outcome.records["q1"].latency_ms == 1500.0


def flaky(failures: Sequence[Exception]) -> Callable[[Question], Answer]:
    remaining = list(failures)

    def answer(question: Question) -> Answer:
        if remaining:
            raise remaining.pop(0)
        return ok(question)

    return answer


def test_transient_failures_are_retried_with_exponential_backoff_and_jitter() -> None:
    sleep = RecordingSleep()
    adapter = FunctionAdapter(flaky([TransientFailure("HTTP 503"), TransientFailure("HTTP 502")]))
    outcome = run_questions(
        adapter,
        questions(1),
        RunSettings(concurrency=1, retries=2),
        sleep=sleep,
        rng=random.Random(1),
    )
    record = outcome.records["q0"]
    assert record.error is None
    assert record.meta == {"attempts": 3}
    assert adapter.calls == ["q0", "q0", "q0"]
    first, second = sleep.delays
    assert BACKOFF_BASE * 0.5 <= first <= BACKOFF_BASE
    assert BACKOFF_BASE * 2 * 0.5 <= second <= BACKOFF_BASE * 2
    # jitter: two runs with different seeds wait differently
    other = RecordingSleep()
    run_questions(
        FunctionAdapter(flaky([TransientFailure("x")])),
        questions(1),
        RunSettings(concurrency=1),
        sleep=other,
        rng=random.Random(2),
    )
    assert other.delays[0] != first


def test_retry_after_is_honoured() -> None:
    sleep = RecordingSleep()
    adapter = FunctionAdapter(flaky([TransientFailure("HTTP 429", retry_after=7.0)]))
    outcome = run_questions(adapter, questions(1), RunSettings(concurrency=1), sleep=sleep)
    assert outcome.records["q0"].error is None
    assert sleep.delays == [7.0]


def test_a_retry_after_beyond_the_limit_gives_up_at_once() -> None:
    sleep = RecordingSleep()
    adapter = FunctionAdapter(
        flaky([TransientFailure("HTTP 429", retry_after=MAX_RETRY_AFTER + 1)] * 3)
    )
    outcome = run_questions(adapter, questions(1), RunSettings(concurrency=1), sleep=sleep)
    assert outcome.records["q0"].error == "HTTP 429"
    assert sleep.delays == []


def test_retries_run_out_and_the_failure_is_recorded_with_the_attempts() -> None:
    sleep = RecordingSleep()
    adapter = FunctionAdapter(flaky([TransientFailure("connection refused")] * 5))
    outcome = run_questions(
        adapter, questions(1), RunSettings(concurrency=1, retries=2), sleep=sleep
    )
    assert outcome.records["q0"].error == "connection refused (after 3 attempts)"
    assert len(sleep.delays) == 2
    assert len(adapter.calls) == 3


def test_permanent_failures_and_bugs_are_not_retried_and_never_abort_the_run() -> None:
    def answer(question: Question) -> Answer:
        if question.id == "q1":
            raise SystemFailure("HTTP 400 Bad Request: no such field")
        if question.id == "q2":
            raise KeyError("contexts")
        return ok(question)

    adapter = FunctionAdapter(answer)
    outcome = run_questions(
        adapter, questions(4), RunSettings(concurrency=2), sleep=RecordingSleep()
    )
    errors = {qid: record.error for qid, record in outcome.records.items()}
    assert errors == {
        "q0": None,
        "q1": "HTTP 400 Bad Request: no such field",
        "q2": "KeyError: 'contexts'",
        "q3": None,
    }
    assert sorted(adapter.calls) == ["q0", "q1", "q2", "q3"]


@pytest.mark.parametrize(
    ("failing", "limit", "verdict"),
    [
        (1, 0.05, VERDICT_OK),
        (2, 0.05, VERDICT_ERROR),
        (0, 0.0, VERDICT_OK),
        (1, 0.0, VERDICT_ERROR),
    ],
)
def test_max_error_rate_decides_the_run_verdict(failing: int, limit: float, verdict: str) -> None:
    def answer(question: Question) -> Answer:
        if int(question.id[1:]) < failing:
            raise SystemFailure("down")
        return ok(question)

    outcome = run_questions(
        FunctionAdapter(answer), questions(20), RunSettings(concurrency=3, max_error_rate=limit)
    )
    assert outcome.errors == failing
    assert outcome.error_rate == failing / 20
    assert outcome.verdict == verdict
    assert outcome.verdict_line().startswith(f"run verdict: {verdict}")


class InterruptAfter:
    """A progress reporter that presses Ctrl-C once `after` questions are done."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.closed = False

    def update(self, done: int, errors: int) -> None:
        if done >= self.after:
            raise KeyboardInterrupt

    def close(self) -> None:
        self.closed = True


def test_ctrl_c_keeps_what_is_done() -> None:
    release = threading.Event()
    started = threading.Semaphore(0)

    def answer(question: Question) -> Answer:
        if question.id != "q0":
            started.release()
            release.wait(timeout=10)
        return ok(question)

    progress = InterruptAfter(1)
    outcome = run_questions(
        FunctionAdapter(answer), questions(20), RunSettings(concurrency=2), progress=progress
    )
    release.set()
    assert outcome.interrupted
    assert progress.closed
    assert "q0" in outcome.records
    assert outcome.records["q0"].error is None
    assert len(outcome.records) < 20


def test_an_interrupted_question_stops_retrying() -> None:
    adapter = FunctionAdapter(flaky([TransientFailure("HTTP 503")] * 50))
    outcome = run_questions(
        adapter,
        questions(1),
        RunSettings(concurrency=1, retries=10),
        progress=InterruptAfter(0),  # Ctrl-C at the first progress tick
        sleep=lambda seconds: time.sleep(0.2),  # 10 retries would take 2 s
    )
    assert outcome.interrupted
    for thread in threading.enumerate():
        if thread.name.startswith("ragguard-question"):
            thread.join(timeout=5)
    assert 1 <= len(adapter.calls) < 11


class FakeBatch:
    """A batch adapter that emits records for the first `answered` questions then crashes."""

    def __init__(self, answered: int, crash: BaseException | None = None) -> None:
        self.answered = answered
        self.crash = crash

    def identity(self) -> dict[str, Any]:
        return {"kind": "batch-test"}

    def run_batch(self, qs, timeout, emit, stop) -> None:
        for question in qs[: self.answered]:
            emit(RunRecord(id=question.id, retrieved=(Chunk("c"),), answer="a"))
        emit(RunRecord(id="not-in-the-test-set", answer="ignored"))
        if self.crash:
            raise self.crash


def test_batch_adapter_records_are_collected_in_order() -> None:
    outcome = run_questions(FakeBatch(3), questions(3), RunSettings())
    assert list(outcome.records) == ["q0", "q1", "q2"]
    assert outcome.errors == 0


def test_a_crashing_batch_adapter_fails_the_unanswered_questions_with_its_message() -> None:
    outcome = run_questions(FakeBatch(2, RuntimeError("pipe broke")), questions(4), RunSettings())
    assert outcome.records["q1"].error is None
    assert outcome.records["q2"].error == "the system failed: RuntimeError: pipe broke"
    assert outcome.records["q3"].error == "the system failed: RuntimeError: pipe broke"


def test_log_progress_starts_with_a_line_then_every_few_seconds_and_at_the_end() -> None:
    now = [0.0]
    stream = io.StringIO()
    progress = LogProgress(100, stream, concurrency=4, every=5.0, clock=lambda: now[0])
    for done, at in (
        (1, 1.0),
        (2, 4.9),
        (3, 5.0),
        (4, 6.0),
        (10, 6.5),
        (11, 7.0),
        (15, 11.5),
        (16, 11.8),
    ):
        now[0] = at
        progress.update(done, errors=1)
    now[0] = 12.0
    progress.close()
    assert stream.getvalue().splitlines() == [
        "ragguard: running 100 questions with concurrency 4",
        "ragguard: 3/100 questions done, 1 failed, 5.0s, about 2m 42s left",
        "ragguard: 15/100 questions done, 1 failed, 11.5s, about 1m 05s left",
        "ragguard: 16/100 questions done, 1 failed, 12.0s",
    ]


def test_log_progress_of_a_run_that_takes_no_time_is_the_start_and_the_end() -> None:
    stream = io.StringIO()
    progress = LogProgress(1000, stream, concurrency=8, clock=lambda: 0.0)
    for done in range(1, 1001):
        progress.update(done, errors=done // 100)
    progress.close()
    assert stream.getvalue().splitlines() == [
        "ragguard: running 1000 questions with concurrency 8",
        "ragguard: 1000/1000 questions done, 10 failed, 0.0s",
    ]


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_progress_bar_and_a_log_gets_lines() -> None:
    terminal = FakeTerminal()
    progress = make_progress(4, terminal)
    assert isinstance(progress, BarProgress)
    outcome = run_questions(FunctionAdapter(ok), questions(4), RunSettings(), progress=progress)
    assert outcome.errors == 0
    assert "questions" in terminal.getvalue()
    assert "4/4" in terminal.getvalue() or "100%" in terminal.getvalue()
    assert isinstance(make_progress(4, io.StringIO()), LogProgress)


def test_line_log_opens_on_the_first_line_and_replaces_an_old_log(tmp_path) -> None:
    path = tmp_path / "out" / "results.log"
    path.parent.mkdir()
    path.write_text("from an earlier run\n")
    log = LineLog(path)
    assert not path.exists()
    assert not log.written
    log("first")
    log("second\n")
    log.close()
    assert path.read_text() == "first\nsecond\n"


@pytest.mark.parametrize("concurrency", [1, 3])
def test_each_answer_is_journalled_before_its_thread_asks_the_next_question(
    concurrency: int,
) -> None:
    """A system that kills the process while answering loses no earlier answer: the thread
    that got an answer hands it to on_record before it takes another question."""
    journalled: list[str] = []
    lock = threading.Lock()
    asked_by: dict[str, list[str]] = {}

    def answer(question: Question) -> Answer:
        name = threading.current_thread().name
        with lock:
            earlier = asked_by.setdefault(name, [])
            missing = [qid for qid in earlier if qid not in journalled]
            earlier.append(question.id)
        assert not missing, f"{question.id} asked before {missing} was journalled"
        return ok(question)

    def on_record(record: RunRecord) -> None:
        with lock:
            journalled.append(record.id)

    adapter = FunctionAdapter(answer)
    outcome = run_questions(
        adapter, questions(12), RunSettings(concurrency=concurrency), on_record=on_record
    )

    assert outcome.errors == 0, [r.error for r in outcome.records.values() if r.error]
    assert sorted(journalled) == sorted(f"q{i}" for i in range(12))


@pytest.mark.parametrize(
    ("total", "rate", "allowed"),
    [(200, 0.05, 10), (3, 1 / 3, 1), (10, 0.0, 0), (10, 1.0, 10), (7, 0.1, 0), (100, 0.07, 7)],
)
def test_allowed_failures_agree_with_the_verdict(total: int, rate: float, allowed: int) -> None:
    assert allowed_failures(total, rate) == allowed
    assert allowed / total <= rate
    assert allowed == total or (allowed + 1) / total > rate


def test_no_early_stop_when_every_question_may_fail_and_earlier_failures_count() -> None:
    assert early_stop_for(10, 1.0) is None
    stop = early_stop_for(100, 0.05, earlier_failures=5)
    assert stop is not None and stop.budget == 0
    assert stop.message == (
        "not run: the run stopped early after 6 of 100 questions failed, "
        "more than max_error_rate 5.0% allows"
    )


class DownAfter:
    """Fails every question; from call ``failing + 1`` on, holds it until released: the
    run's verdict is certain while a question is still in the system's hands."""

    def __init__(self, failing: int) -> None:
        self.failing = failing
        self.calls: list[str] = []
        self.release = threading.Event()

    def identity(self) -> dict[str, Any]:
        return {"kind": "test"}

    def ask(self, question: Question, timeout: float) -> Answer:
        self.calls.append(question.id)
        if len(self.calls) > self.failing:
            self.release.wait(30)
        raise SystemFailure("connection refused")


class ReleaseAt:
    """Progress that releases the held question once ``done`` questions have records."""

    def __init__(self, adapter: DownAfter, done: int) -> None:
        self.adapter = adapter
        self.at = done

    def update(self, done: int, errors: int) -> None:
        if done >= self.at:
            self.adapter.release.set()

    def close(self) -> None:
        self.adapter.release.set()


def test_the_run_stops_asking_once_max_error_rate_is_certainly_exceeded() -> None:
    adapter = DownAfter(failing=3)
    settings = RunSettings(concurrency=1, max_error_rate=0.1)  # 20 questions: 2 may fail
    outcome = run_questions(
        adapter,
        questions(20),
        settings,
        progress=ReleaseAt(adapter, 19),  # q3 is held until the 16 not asked are recorded
        early_stop=early_stop_for(20, 0.1),
    )
    assert adapter.calls == ["q0", "q1", "q2", "q3"]
    assert outcome.stopped_early and not outcome.interrupted
    assert list(outcome.records) == [f"q{i}" for i in range(20)]
    assert outcome.errors == 20 and outcome.verdict == VERDICT_ERROR
    assert outcome.records["q3"].error == "connection refused"  # asked: its own answer
    not_run = "not run: the run stopped early after 3 of 20 questions failed, more than "
    assert (outcome.records["q4"].error or "").startswith(not_run)
    assert outcome.not_run == 16
    assert outcome.stopped_early_line() == (
        "stopped early: 4 of 20 questions failed, more than max_error_rate 10.0% allows, so the "
        "verdict is error whatever the rest does; 16 questions were not run (recorded as errors)"
    )


def test_without_an_early_stop_every_question_is_asked() -> None:
    adapter = DownAfter(failing=20)
    outcome = run_questions(adapter, questions(20), RunSettings(max_error_rate=0.1))
    assert len(adapter.calls) == 20 and not outcome.stopped_early
    assert outcome.not_run == 0


class FailingBatch:
    """A batch adapter whose first ``failing`` answers are errors; then it waits to be stopped."""

    def __init__(self, failing: int) -> None:
        self.failing = failing
        self.stopped = False

    def identity(self) -> dict[str, Any]:
        return {"kind": "batch-test"}

    def run_batch(self, qs, timeout, emit, stop) -> None:
        for question in qs[: self.failing]:
            emit(RunRecord(id=question.id, error="bad line"))
        self.stopped = stop.wait(30)


def test_a_batch_run_stops_early_too() -> None:
    batch = FailingBatch(failing=2)
    outcome = run_questions(
        batch, questions(10), RunSettings(max_error_rate=0.1), early_stop=early_stop_for(10, 0.1)
    )
    assert batch.stopped
    assert outcome.stopped_early and outcome.not_run == 8 and outcome.errors == 10
    assert outcome.records["q1"].error == "bad line"


def test_the_failed_questions_of_a_run_are_grouped_by_error() -> None:
    records = [RunRecord(id=f"q{i}", error="command exited with status 1: boom") for i in range(3)]
    records.append(RunRecord(id="q9", answer="fine"))
    assert run_failure_lines(records) == [
        "error (3 questions): command exited with status 1: boom",
        "  q0, q1, q2",
    ]


def test_the_terminal_bar_shows_n_of_n_and_the_failures() -> None:
    terminal = FakeTerminal()
    progress = make_progress(10, terminal)
    progress.update(3, 0)
    progress.update(3, 1)  # the count of failures is drawn even without a step
    progress.update(10, 2)
    progress.close()
    frames = terminal.getvalue().split("\r")
    assert any(frame.endswith("3/10  1 failed") for frame in frames), frames
    assert "10/10  2 failed" in frames[-1]


def test_an_interrupted_run_counts_the_questions_it_never_asked() -> None:
    """Stopped after 24 of 60 questions, none failed: 36 have no answer, so the verdict is
    error (it said "ok: 0/60 questions failed" beside "36 missing")."""
    answered = {f"q{i}": RunRecord(f"q{i}", (), "an answer") for i in range(24)}
    outcome = RunOutcome(answered, total=60, max_error_rate=0.05, interrupted=True)

    assert outcome.verdict == VERDICT_ERROR
    assert outcome.verdict_line() == (
        "run verdict: error: 36/60 questions without a good answer (60.0%: 0 failed, "
        "36 missing), above max_error_rate 5.0%"
    )
