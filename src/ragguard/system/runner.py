"""Drive the system under test over a test set: concurrency, timeouts, retries, progress.

Every failure is captured for its question (``RunRecord.error``) and the run goes on; it
stops early on Ctrl-C (the questions already answered are kept) and once more questions have
failed than ``max_error_rate`` allows over the whole test set (the rest are recorded as not
run, as errors). The clock, the sleep and the random source are parameters, so tests run
without waiting.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import partial
from itertools import count
from pathlib import Path
from queue import Empty, Queue
from typing import IO, TYPE_CHECKING, Any, Protocol, cast

import click

from ragguard.config.model import Config, RunSettings
from ragguard.core import interrupts
from ragguard.judge.settings import generation_settings_of
from ragguard.judge.setup import GenerationSetup, check_repeats_budget, generation_setup
from ragguard.metrics.settings import GenerationSettings
from ragguard.render.failures import NOT_RUN, failure_lines, group_failures
from ragguard.render.text import duration
from ragguard.results.model import Results
from ragguard.results.records import RunRecord, corpus_texts
from ragguard.scoring.labels import corpus_origins, unmatched_label_warning
from ragguard.scoring.repeats import combine_repeats
from ragguard.scoring.score import score_run
from ragguard.system import build_adapter
from ragguard.system.base import (
    Adapter,
    Answer,
    BatchAdapter,
    SystemFailure,
    TransientFailure,
    error_record,
    record_for,
)
from ragguard.system.deadlines import Deadlines, GivenUp, InPlaceAdapter
from ragguard.system.recorded import RecordedAdapter
from ragguard.testset.load import load_testset
from ragguard.testset.model import Question, TestSet
from ragguard.testset.shards import Shard, ShardSelection, mark_shard, select_shard

if TYPE_CHECKING:  # the client (and requests) is imported when a judge is built
    from ragguard.judge.client import Usage as JudgeUsage

VERDICT_OK = "ok"
VERDICT_ERROR = "error"

BACKOFF_BASE = 0.5
BACKOFF_CAP = 30.0
MAX_RETRY_AFTER = 120.0
TICK_SECONDS = 0.5
LOG_EVERY_SECONDS = 10.0
INTERRUPTED_MESSAGE = f"{NOT_RUN} the run was interrupted"

RECORDED_REPEAT = (
    "a recorded run gives the same answers every time, so asking it again measures nothing; "
    "set repeat to 1, or score several recorded runs as repeats with "
    "`ragguard score --run a.jsonl --run b.jsonl`"
)

Clock = Callable[[], float]
Sleep = Callable[[float], object]


@dataclass(frozen=True)
class RunOutcome:
    """The records of a run (in test-set order) and whether it may be trusted.

    With ``system.repeat`` N the test set is asked N times: ``records`` holds the first pass
    and ``later_passes`` the others (a pass not started, after Ctrl-C, is absent). The
    error rate and the early stop are then over all N x ``total`` calls.
    """

    records: dict[str, RunRecord]
    total: int  # questions in one pass
    max_error_rate: float
    interrupted: bool = False
    early_stop_message: str | None = None  # the run stopped early: the not-run questions' error
    later_passes: tuple[dict[str, RunRecord], ...] = ()
    repeat: int = 1

    @property
    def passes(self) -> tuple[dict[str, RunRecord], ...]:
        return (self.records, *self.later_passes)

    @property
    def calls(self) -> int:
        """The system calls the run was to make: every question once per pass."""
        return self.total * self.repeat

    @property
    def unit(self) -> str:
        return "questions" if self.repeat == 1 else "calls"

    @property
    def stopped_early(self) -> bool:
        return self.early_stop_message is not None

    @property
    def not_run(self) -> int:
        """The questions (calls, with repeats) not made because the run stopped early."""
        message = self.early_stop_message
        records = (record for records in self.passes for record in records.values())
        return sum(1 for record in records if message and record.error == message)

    def stopped_early_line(self) -> str:
        failed = self.errors - self.not_run
        not_made = "questions were not run" if self.repeat == 1 else "calls were not made"
        return (
            f"stopped early: {failed} of {self.calls} {self.unit} failed{self._asked()}, more "
            f"than max_error_rate {self.max_error_rate:.1%} allows, so the verdict is error "
            f"whatever the rest does; {self.not_run} {not_made} (recorded as errors)"
        )

    def _asked(self) -> str:
        if self.repeat == 1:
            return ""
        return f" ({self.total} questions asked {self.repeat} times)"

    @property
    def errors(self) -> int:
        return sum(1 for records in self.passes for record in records.values() if record.error)

    @property
    def error_rate(self) -> float:
        return self.errors / self.calls if self.calls else 0.0

    @property
    def verdict(self) -> str:
        """``error`` when more questions failed than ``max_error_rate`` allows."""
        return VERDICT_ERROR if self.error_rate > self.max_error_rate else VERDICT_OK

    def verdict_line(self) -> str:
        share = f"{self.errors}/{self.calls} {self.unit} failed ({self.error_rate:.1%})"
        share += self._asked()
        limit = f"max_error_rate {self.max_error_rate:.1%}"
        if self.verdict == VERDICT_ERROR:
            return f"run verdict: error: {share}, above {limit}"
        return f"run verdict: ok: {share}, within {limit}"

    @property
    def done(self) -> int:
        """The calls with a record (all of them unless interrupted)."""
        return sum(len(records) for records in self.passes)


def allowed_failures(total: int, max_error_rate: float) -> int:
    """The most questions of ``total`` that may fail with the verdict still ``ok`` (the same
    comparison as :attr:`RunOutcome.verdict`, so the two cannot disagree by rounding)."""
    allowed = int(max_error_rate * total)
    while allowed < total and (allowed + 1) / total <= max_error_rate:
        allowed += 1
    while allowed > 0 and allowed / total > max_error_rate:
        allowed -= 1
    return allowed


def stopped_early_message(
    failed: int, total: int, max_error_rate: float, unit: str = "questions"
) -> str:
    """The error of a question not asked because the run's verdict was already certain."""
    return (
        f"{NOT_RUN} the run stopped early after {failed} of {total} {unit} failed, "
        f"more than max_error_rate {max_error_rate:.1%} allows"
    )


class Progress(Protocol):
    def update(self, done: int, errors: int) -> None: ...

    def close(self) -> None: ...


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
    report = progress or _NoProgress()
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
    todo: Queue[Question] = Queue()
    for question in questions:
        todo.put(question)
    finished: Queue[str] = Queue()  # wakes the main thread after each record
    failures: list[BaseException] = []

    def work() -> None:
        while not stop.is_set():
            try:
                question = todo.get_nowait()
            except Empty:
                return
            try:
                record = ask(question)
            except GivenUp:  # recorded as timed out by the collecting thread, replaced
                return
            except BaseException as exc:  # never lose a question, whatever escaped
                record = error_record(question.id, _describe(exc))
            try:
                done.add(record)  # journalled before this thread takes the next question
            except BaseException as exc:  # e.g. the records file cannot be written
                failures.append(exc)
                stop.set()
            finished.put(question.id)

    started = count()

    def start_worker() -> None:
        name = f"ragguard-question-{next(started)}"
        threading.Thread(target=work, name=name, daemon=True).start()

    deadlines = ask.deadlines
    tick = TICK_SECONDS if deadlines is None else deadlines.check_every(TICK_SECONDS)
    try:  # a Ctrl-C while the workers start (the first answers may be in) is an interrupt too
        for _ in range(min(settings.concurrency, len(questions))):
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


def _record_not_asked(todo: Queue[Question], done: _Records, message: str) -> None:
    """Record the questions still waiting in the queue as not run (the workers take no more)."""
    while True:
        try:
            question = todo.get_nowait()
        except Empty:
            return
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
        message = f"the system failed: {_describe(failure[0])}"
        for question in questions:
            done.add(error_record(question.id, message))
    return False


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemFailure):
        return str(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


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
                return error_record(question.id, _describe(exc), self._ms_since(started))
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


class _NoProgress:
    def update(self, done: int, errors: int) -> None:
        pass

    def close(self) -> None:
        pass


class BarProgress:
    """click's progress bar, for a terminal: n/N, the share, the failures so far and an ETA."""

    def __init__(self, total: int, stream: IO[str]) -> None:
        self._errors = 0
        self._bar = click.progressbar(
            length=total,
            label="questions",
            file=stream,
            show_pos=True,
            show_eta=True,
            item_show_func=self._failures,
        )
        self._bar.__enter__()
        self._shown = 0

    def _failures(self, _item: object) -> str | None:
        return f"{self._errors} failed" if self._errors else None

    def update(self, done: int, errors: int) -> None:
        if done > self._shown:
            self._errors = errors
            self._bar.update(done - self._shown, current_item=errors)
            self._shown = done
        elif errors != self._errors:  # click draws only on a step: draw the new count now
            self._errors = errors
            self._bar.render_progress()

    def close(self) -> None:
        self._bar.__exit__(None, None, None)


class LogProgress:
    """Plain lines for CI logs (no carriage returns): one at the start, then one when
    ``every`` seconds have passed or another tenth of the questions is done, and one at the
    end; each with n/N, the failures and an estimate of the time left."""

    def __init__(
        self,
        total: int,
        stream: IO[str],
        *,
        concurrency: int = 1,
        every: float = LOG_EVERY_SECONDS,
        clock: Clock = time.monotonic,
    ) -> None:
        self.total = total
        self.stream = stream
        self.every = every
        self.clock = clock
        self.started = clock()
        self.last = self.started
        self.done = 0
        self.errors = 0
        self.tenths = 0
        self.shown: tuple[int, int] | None = None  # (done, errors) of the last progress line
        self._write(f"ragguard: running {total} questions with concurrency {concurrency}")

    def update(self, done: int, errors: int) -> None:
        self.done, self.errors = done, errors
        tenths = done * 10 // self.total if self.total else 10
        if tenths > self.tenths or self.clock() - self.last >= self.every:
            self.tenths = max(self.tenths, tenths)
            self._line()

    def close(self) -> None:
        if self.shown != (self.done, self.errors):  # not the line just written again
            self._line(final=True)

    def _line(self, final: bool = False) -> None:
        self.last = self.clock()
        self.shown = (self.done, self.errors)
        elapsed = self.last - self.started
        line = f"ragguard: {self.done}/{self.total} questions done, {self.errors} failed, "
        line += f"{elapsed:.1f}s"
        if not final and 0 < self.done < self.total:
            line += f", about {duration(elapsed / self.done * (self.total - self.done))} left"
        self._write(line)

    def _write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()


def make_progress(total: int, stream: IO[str] | None = None, concurrency: int = 1) -> Progress:
    """A bar on a terminal, periodic lines otherwise."""
    stream = stream or sys.stderr
    if stream.isatty():
        return BarProgress(total, stream)
    return LogProgress(total, stream, concurrency=concurrency)


def cost_line(outcome: RunOutcome, judge: JudgeUsage | None, seconds: float) -> str:
    """What a repeated run cost: ``asked 40 questions 3 times: 120 system calls (3 failed),
    45 judge calls (75 answered from the cache), 2m 10s`` (judge calls are requests, retries
    and re-asks included)."""
    made = outcome.done - outcome.not_run
    calls = f"{made} system calls ({outcome.errors - outcome.not_run} failed"
    calls += f", {outcome.not_run} not made)" if outcome.not_run else ")"
    judged = "no judge calls"
    if judge is not None:
        judged = f"{judge.requests} judge calls ({judge.cached} answered from the cache)"
    times = "once" if outcome.repeat == 1 else f"{outcome.repeat} times"
    return f"asked {outcome.total} questions {times}: {calls}, {judged}, {duration(seconds)}"


def run_failure_lines(records: Iterable[RunRecord]) -> list[str]:
    """The failed questions of a run, grouped by error (:mod:`ragguard.render.failures`)."""
    failed = ((record.id, "error", record.error) for record in records if record.error)
    return failure_lines(group_failures(failed))


def pass_failure_lines(outcome: RunOutcome) -> list[str]:
    """The failed calls of every pass, grouped by error, each named ``q7 (pass 2)``."""
    failed = (
        (f"{record.id} (pass {index + 1})", "error", record.error)
        for index, records in enumerate(outcome.passes)
        for record in records.values()
        if record.error
    )
    return failure_lines(group_failures(failed))


def end_log_with_failures(log: LineLog, outcome: RunOutcome) -> list[str]:
    """The run's grouped failure lines (with repeats, of every pass), also written at the
    end of the system log when the system wrote to it (next to the stderr that explains
    them)."""
    if outcome.repeat > 1:
        lines = pass_failure_lines(outcome)
    else:
        lines = run_failure_lines(outcome.records.values())
    if log.written:
        for line in lines:
            log(line)
    return lines


class LineLog:
    """A log file opened on the first line (thread-safe); stderr of commands goes here.

    A log left by an earlier run at the same path is removed, so it cannot be mistaken for
    this run's.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        path.unlink(missing_ok=True)
        self._lock = threading.Lock()
        self._file: IO[str] | None = None

    def __call__(self, line: str) -> None:
        with self._lock:
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = self.path.open("w", encoding="utf-8")
            self._file.write(line.rstrip("\n") + "\n")
            self._file.flush()

    @property
    def written(self) -> bool:
        return self._file is not None

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()


@dataclass(frozen=True)
class SuiteRun:
    """A config's test set run through its system, and the generation settings (typed from
    the config before the run) that it is to be scored with."""

    testset: TestSet
    outcome: RunOutcome
    identity: dict[str, Any]
    generation: GenerationSettings
    shard: ShardSelection | None = None


def run_config(
    config: Config,
    *,
    progress_stream: IO[str] | None = None,
    log: Callable[[str], None],
    shard: Shard | None = None,
    done: Sequence[Mapping[str, RunRecord]] = (),
    on_record: Callable[[int, RunRecord], object] | None = None,
    only: frozenset[str] | None = None,
) -> SuiteRun:
    """Load the test set, build the adapter and run every question (Ctrl-C keeps what is done).

    The generation settings are typed first (from the loaded config; the file is not read
    again), so that a config mistake there does not cost a run of the system. With
    ``shard``, only that shard's questions are run. With ``only``, just those questions
    are run (a recheck of newly failing questions).

    With ``system.repeat`` N the questions are asked N times, pass after pass
    (:func:`run_passes`); ``done[i]`` holds pass ``i``'s records from a resumed run (not
    asked again) and ``on_record(i, record)`` gets each new record of pass ``i`` (from 0).
    """
    if config.system.kind == "recorded" and config.system.run.repeat > 1:
        raise config.system.error(RECORDED_REPEAT, "repeat")
    whole = load_testset(config.testset)
    selection = select_shard(whole, shard) if shard else None
    testset = selection.testset if selection else whole
    if only is not None:
        testset = replace(testset, questions=tuple(q for q in testset.questions if q.id in only))
    generation = generation_settings_of(config)
    adapter = build_adapter(config, log=log)
    if isinstance(adapter, RecordedAdapter):
        adapter.check_known(whole.questions)
    outcome = run_passes(
        adapter,
        testset.questions,
        config.system.run,
        done=done,
        on_record=on_record,
        progress_stream=progress_stream,
    )
    return SuiteRun(testset, outcome, adapter.identity(), generation, selection)


def run_passes(
    adapter: Adapter | BatchAdapter,
    questions: Sequence[Question],
    settings: RunSettings,
    *,
    done: Sequence[Mapping[str, RunRecord]] = (),
    on_record: Callable[[int, RunRecord], object] | None = None,
    progress_stream: IO[str] | None = None,
) -> RunOutcome:
    """Ask every question ``settings.repeat`` times: one pass over the questions after
    another, each through :func:`run_questions`.

    The early stop is over all the passes' calls: the failures of earlier passes (and of a
    resumed run's records in ``done``) count, and once the budget is spent the remaining
    calls of every pass are recorded as not run without asking. Ctrl-C ends the run in the
    pass it interrupts; later passes are not started.
    """
    repeat = settings.repeat
    unit = "questions" if repeat == 1 else "calls"
    kept = [dict(done[i]) if i < len(done) else {} for i in range(repeat)]
    failures = sum(1 for records in kept for record in records.values() if record.error)
    budget = early_stop_for(len(questions) * repeat, settings.max_error_rate, failures, unit)
    message = budget.message if budget is not None else None
    passes: list[dict[str, RunRecord]] = []
    interrupted = stopped = False
    for index in range(repeat):
        todo = [question for question in questions if question.id not in kept[index]]
        record_to: Callable[[RunRecord], object] | None = None
        if on_record is not None:
            record_to = partial(on_record, index)
        if index and budget is not None and budget.budget < 0:
            stopped = True  # the last pass's last answers spent the budget: ask no more
        if stopped and message is not None:
            fresh = {q.id: _not_asked(q.id, message, record_to) for q in todo}
        else:
            outcome = _run_pass(adapter, todo, settings, index, progress_stream, record_to, budget)
            fresh, interrupted = outcome.records, outcome.interrupted
            stopped = outcome.stopped_early
        records = {**kept[index], **fresh}
        passes.append({q.id: records[q.id] for q in questions if q.id in records})
        if interrupted:
            break
        failures += sum(1 for record in fresh.values() if record.error)
        if budget is not None and not stopped:
            budget = early_stop_for(
                len(questions) * repeat, settings.max_error_rate, failures, unit
            )
    return RunOutcome(
        passes[0],
        len(questions),
        settings.max_error_rate,
        interrupted,
        message if stopped else None,
        tuple(passes[1:]),
        repeat,
    )


def _run_pass(
    adapter: Adapter | BatchAdapter,
    todo: Sequence[Question],
    settings: RunSettings,
    index: int,
    progress_stream: IO[str] | None,
    on_record: Callable[[RunRecord], object] | None,
    early_stop: EarlyStop | None,
) -> RunOutcome:
    if settings.repeat > 1:
        (progress_stream or sys.stderr).write(f"ragguard: pass {index + 1} of {settings.repeat}\n")
    concurrency = 1 if isinstance(adapter, BatchAdapter) else settings.concurrency
    return run_questions(
        adapter,
        todo,
        settings,
        progress=make_progress(len(todo), progress_stream, min(concurrency, len(todo)) or 1),
        on_record=on_record,
        early_stop=early_stop,
    )


def _not_asked(
    question_id: str, message: str, on_record: Callable[[RunRecord], object] | None
) -> RunRecord:
    """A call not made because the run stopped early in an earlier pass (journalled too)."""
    record = error_record(question_id, message)
    if on_record is not None:
        on_record(record)
    return record


def score_suite_run(
    config: Config,
    suite_run: SuiteRun,
    git: Mapping[str, str | None] | None = None,
    cache_dir: Path | None = None,
    warn: Callable[[str], None] | None = None,
) -> tuple[Results, GenerationSetup]:
    """Score a run with the config's metrics, generation settings and corpus.

    Only the questions the system answered are checked for what generation metrics need
    (answers, chunk text): a failed question is already an error, not bad input.
    ``warn`` gets the line naming labels that match no chunk (:mod:`ragguard.scoring.labels`).

    A repeated run is scored pass by pass, as one run is, and the passes are combined
    (:func:`ragguard.scoring.repeats.combine_repeats`). Every pass is checked (and its judge calls
    counted against ``judge.max_calls``, :func:`check_repeats_budget`) before any is judged.
    The passes share the first pass's judge client, so the setup returned counts the judge
    calls of every pass; an answer given again is judged from the reply cache.
    """
    origins = corpus_origins(suite_run.testset, config.metrics, config.corpus)
    corpus: Mapping[str, str] | Path | None = config.corpus  # read once, by the first pass
    if origins is not None:
        corpus = corpus_texts(origins)
    setups: list[GenerationSetup] = []
    for records in suite_run.outcome.passes:
        answered = {qid: record for qid, record in records.items() if not record.error}
        setup = generation_setup(
            suite_run.generation,
            config.metrics,
            suite_run.testset,
            answered,
            corpus=corpus,
            run_source="the system's output",
            cache_dir=cache_dir,
        )
        corpus = setup.corpus  # loaded by the first pass
        setups.append(setup)
    first = setups[0]
    if len(setups) > 1:
        check_repeats_budget(first, [item for setup in setups for item in setup.items])
    corpus_ids = frozenset(first.corpus) if first.corpus is not None else None
    first_pass, *later_passes = suite_run.outcome.passes
    warning = unmatched_label_warning(
        suite_run.testset, first_pass, origins, corpus_ids, later_passes=later_passes
    )
    if warning and warn is not None:
        warn(warning)
    scored: list[Results] = []
    for records, setup in zip(suite_run.outcome.passes, setups, strict=True):
        results = score_run(
            suite_run.testset,
            records,
            config.metrics,
            suite=config.suite,
            config={**results_settings(suite_run.identity), **setup.fingerprint},
            git=git,
            origins=origins,
            min_coverage=config.min_coverage,
            **replace(setup, judge=first.judge).score_kwargs(),
        )
        scored.append(results)
    results = combine_repeats(scored)
    if suite_run.shard is not None:
        results = mark_shard(results, suite_run.shard)
    return results, first


def results_settings(identity: dict[str, Any]) -> dict[str, Any]:
    """``Results.config``: what makes two runs comparable — which system was measured.

    The system's tunable knobs (k, chunking, prompts) are left out on purpose: changing them
    is what a pull request does, and its results must stay comparable with the baseline.
    """
    return {"system": dict(identity)}
