"""Ask the system every question of a pass: worker threads, timeouts, retries, early stop.

Every failure is captured for its question (``RunRecord.error``) and the pass goes on; it
stops early on Ctrl-C (the questions already answered are kept) and once more questions have
failed than the run's :class:`EarlyStop` allows (the rest are recorded as not run, as
errors). The clock, the sleep and the random source are parameters, so tests run without
waiting.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from itertools import count
from queue import Empty, Queue
from typing import cast

from ragguard.config.model import RunSettings
from ragguard.core import interrupts
from ragguard.render.failures import NOT_RUN
from ragguard.results.records import RunRecord
from ragguard.system.base import (
    Adapter,
    Answer,
    BatchAdapter,
    TransientFailure,
    describe_failure,
    error_record,
    record_for,
)
from ragguard.system.deadlines import Deadlines, InPlaceAdapter
from ragguard.system.outcome import RunOutcome, allowed_failures, stopped_early_message
from ragguard.system.progress import Clock, NoProgress, Progress
from ragguard.system.turns import ask_in_turn, asked_together, later_turns, not_asked_turn
from ragguard.testset.model import Question

BACKOFF_BASE = 0.5
BACKOFF_CAP = 30.0
MAX_RETRY_AFTER = 120.0
TICK_SECONDS = 0.5
INTERRUPTED_MESSAGE = f"{NOT_RUN} the run was interrupted"

Sleep = Callable[[float], object]


def run_questions(
    adapter: Adapter | BatchAdapter,
    questions: Sequence[Question],
    settings: RunSettings,
    *,
    progress: Progress | None = None,
    clock: Clock = time.monotonic,
    sleep: Sleep | None = None,
    rng: random.Random | None = None,
    on_record: Callable[[RunRecord], object] | None = None,
    early_stop: EarlyStop | None = None,
) -> RunOutcome:
    """Run every question through the adapter; Ctrl-C returns what is done, flagged.

    ``on_record`` is called (on the calling thread) with each record as it arrives, e.g.
    to append it to disk. With ``early_stop``, the run stops asking once more questions
    failed than it allows; the questions not answered then are recorded as not run.
    """
    stop = threading.Event()
    done = _Records(on_record)
    report = progress or NoProgress()
    try:
        if isinstance(adapter, BatchAdapter):
            interrupted = _run_batch(adapter, questions, settings, done, report, stop, early_stop)
        else:
            ask = _Asker(adapter, settings, clock, sleep or stop.wait, rng or random.Random(), stop)
            interrupted = _run_pool(ask, questions, settings, done, report, stop, early_stop)
    finally:
        report.close()
    ordered = {q.id: done.by_id[q.id] for q in questions if q.id in done}
    stopped = early_stop.message if early_stop is not None and early_stop.stopped else None
    return RunOutcome(ordered, len(questions), settings.max_error_rate, interrupted, stopped)


@dataclass
class EarlyStop:
    """Stop asking once more than ``budget`` of the questions being run failed.

    ``message`` is the error recorded for each question not asked by then. A question already
    in the system's hands gets its answer (its retries are cut short); a batch process is
    stopped, and the questions it had not answered are recorded as not run.
    """

    budget: int
    message: str
    stopped: bool = False

    def due(self, done: _Records) -> bool:
        """True once, when the failures first exceed the budget."""
        if self.stopped or done.errors <= self.budget:
            return False
        self.stopped = True
        return True


def early_stop_for(
    total: int, max_error_rate: float, earlier_failures: int = 0, unit: str = "questions"
) -> EarlyStop | None:
    """The early stop of a run of ``total`` questions (``earlier_failures`` of them failed in
    an earlier, resumed part, or an earlier pass); ``None`` when no number of failures can
    exceed the rate."""
    allowed = allowed_failures(total, max_error_rate)
    if allowed >= total:
        return None
    failed = allowed + 1
    return EarlyStop(
        allowed - earlier_failures, stopped_early_message(failed, total, max_error_rate, unit)
    )


class _Records:
    """The records so far, the first per question; each is handed to ``on_record`` as it is
    added, and the errors are counted as they come (progress asks after every record).

    Thread-safe: the thread that got an answer adds it, so it is journalled before that
    thread asks the next question (a system that then kills the process loses nothing).
    After :meth:`freeze` (the run was interrupted) later answers are ignored.
    """

    def __init__(self, on_record: Callable[[RunRecord], object] | None) -> None:
        self.by_id: dict[str, RunRecord] = {}
        self.errors = 0
        self.on_record = on_record
        self._lock = threading.Lock()
        self._frozen = False

    def add(self, record: RunRecord) -> None:
        with self._lock:
            if self._frozen or record.id in self.by_id:
                return
            if self.on_record is not None:
                self.on_record(record)
            self.by_id[record.id] = record
            self.errors += bool(record.error)

    def freeze(self) -> None:
        with self._lock:
            self._frozen = True

    def __contains__(self, question_id: object) -> bool:
        return question_id in self.by_id

    def __len__(self) -> int:
        return len(self.by_id)


def _run_pool(
    ask: _Asker,
    questions: Sequence[Question],
    settings: RunSettings,
    done: _Records,
    progress: Progress,
    stop: threading.Event,
    early_stop: EarlyStop | None = None,
) -> bool:
    """Daemon worker threads take questions from a queue; the main thread collects.

    Daemon threads, so that after Ctrl-C the process can exit without waiting for a
    question that is still in the system's hands.
    """
    todo: Queue[tuple[Question, ...]] = Queue()
    units = asked_together(questions)
    for unit in units:
        todo.put(unit)
    later = later_turns(units)
    finished: Queue[str] = Queue()  # wakes the main thread after each record
    failures: list[BaseException] = []

    def record(record: RunRecord) -> bool:
        """Journal a record before this thread asks anything else; False when that failed."""
        try:
            done.add(record)
        except BaseException as exc:  # e.g. the records file cannot be written
            failures.append(exc)
            stop.set()
            return False
        finally:
            finished.put(record.id)
        return True

    def work() -> None:
        while not stop.is_set():
            try:
                unit = todo.get_nowait()
            except Empty:
                return
            if not ask_in_turn(unit, ask, record):
                return

    started = count()

    def start_worker() -> None:
        name = f"ragguard-question-{next(started)}"
        threading.Thread(target=work, name=name, daemon=True).start()

    deadlines = ask.deadlines
    tick = TICK_SECONDS if deadlines is None else deadlines.check_every(TICK_SECONDS)
    try:  # a Ctrl-C while the workers start (the first answers may be in) is an interrupt too
        for _ in range(min(settings.concurrency, len(units))):
            start_worker()
        while len(done) < len(questions) and not failures:
            if early_stop is not None and early_stop.due(done):
                ask.not_run_message = early_stop.message
                stop.set()
                _record_not_asked(todo, done, early_stop.message)
            with suppress(Empty):
                finished.get(timeout=tick)
            for question, seconds in deadlines.overdue() if deadlines else ():
                done.add(error_record(question.id, deadlines.message, round(seconds * 1000, 3)))
                turn, rest = later.get(question.id, (0, ()))
                for waiting in rest:  # its worker is stuck: no one else would ask them
                    done.add(not_asked_turn(waiting, turn, "timed out"))
                start_worker()  # in place of the one still in the overrunning call
            progress.update(len(done), done.errors)
        progress.update(len(done), done.errors)
    except KeyboardInterrupt:
        stop.set()
        done.freeze()
        interrupts.kill_children()
        return True
    if failures:
        done.freeze()
        raise failures[0]
    return False


def _record_not_asked(todo: Queue[tuple[Question, ...]], done: _Records, message: str) -> None:
    """Record the questions still waiting in the queue as not run (the workers take no more)."""
    while True:
        try:
            unit = todo.get_nowait()
        except Empty:
            return
        for question in unit:
            done.add(error_record(question.id, message))


def _run_batch(
    adapter: BatchAdapter,
    questions: Sequence[Question],
    settings: RunSettings,
    done: _Records,
    progress: Progress,
    stop: threading.Event,
    early_stop: EarlyStop | None = None,
) -> bool:
    """Run a batch adapter in a thread; the main thread collects records and shows progress."""
    known = {q.id for q in questions}
    arrived: Queue[str] = Queue()  # wakes the main thread after each record
    failure: list[BaseException] = []

    def emit(record: RunRecord) -> None:
        """Journal the record before the batch reads the next answer."""
        if record.id in known:
            done.add(record)
        arrived.put(record.id)

    def work() -> None:
        try:
            adapter.run_batch(questions, settings.timeout, emit, stop)
        except BaseException as exc:  # reported below, for every unanswered question
            failure.append(exc)

    worker = threading.Thread(target=work, name="ragguard-batch", daemon=True)
    try:  # a Ctrl-C while the batch starts is an interrupt too
        worker.start()
        while worker.is_alive() or not arrived.empty():
            if early_stop is not None and early_stop.due(done):
                for question in questions:  # the first record of a question wins
                    done.add(error_record(question.id, early_stop.message))
                stop.set()
            with suppress(Empty):
                arrived.get(timeout=TICK_SECONDS)
            progress.update(len(done), done.errors)
    except KeyboardInterrupt:
        stop.set()
        done.freeze()
        interrupts.kill_children()
        if worker.is_alive():
            worker.join(timeout=5)
        return True
    if failure:
        message = f"the system failed: {describe_failure(failure[0])}"
        for question in questions:
            done.add(error_record(question.id, message))
    return False


class _Asker:
    """Ask one question with retries on transient failures, measuring the latency."""

    def __init__(
        self,
        adapter: Adapter,
        settings: RunSettings,
        clock: Clock,
        sleep: Sleep,
        rng: random.Random,
        stop: threading.Event,
    ) -> None:
        self.adapter = adapter
        self.settings = settings
        self.clock = clock
        self.sleep = sleep
        self.rng = rng
        self.stop = stop
        self.rng_lock = threading.Lock()
        self.not_run_message = INTERRUPTED_MESSAGE  # why a question taken after a stop is not run
        # A python function is called on the worker itself; the collecting thread keeps time.
        self.deadlines = (
            Deadlines(settings.timeout, clock) if isinstance(adapter, InPlaceAdapter) else None
        )

    def _ask(self, question: Question) -> Answer:
        if self.deadlines is None:
            return self.adapter.ask(question, self.settings.timeout)
        in_place = cast(InPlaceAdapter, self.adapter)
        return self.deadlines.call(
            question, lambda: in_place.ask_in_place(question, self.settings.timeout)
        )

    def __call__(self, question: Question) -> RunRecord:
        if self.stop.is_set():
            return error_record(question.id, self.not_run_message)
        attempt = 0
        while True:
            started = self.clock()
            try:
                answer = self._ask(question)
            except TransientFailure as exc:
                latency = self._ms_since(started)
                delay = self._retry_delay(exc, attempt)
                if delay is not None:
                    self.sleep(delay)  # stop.wait by default: a stop ends the wait
                if delay is None or self.stop.is_set():
                    tries = f" (after {attempt + 1} attempts)" if attempt else ""
                    return error_record(question.id, f"{exc}{tries}", latency)
                attempt += 1
                continue
            except Exception as exc:
                return error_record(question.id, describe_failure(exc), self._ms_since(started))
            record = record_for(question.id, answer, self._ms_since(started))
            if attempt:
                record = replace(record, meta={**record.meta, "attempts": attempt + 1})
            return record

    def _ms_since(self, started: float) -> float:
        return round((self.clock() - started) * 1000.0, 3)

    def _retry_delay(self, exc: TransientFailure, attempt: int) -> float | None:
        """Seconds to wait before the next attempt, or ``None`` to give up."""
        if attempt >= self.settings.retries:
            return None
        if exc.retry_after is not None:
            return exc.retry_after if exc.retry_after <= MAX_RETRY_AFTER else None
        with self.rng_lock:
            jitter = self.rng.uniform(0.5, 1.0)
        return min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt) * jitter
