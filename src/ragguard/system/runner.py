"""Run a suite's system over its test set: the adapter built, the passes asked, the log kept.

:func:`run_config` loads the test set (or one shard of it), builds the adapter and asks every
question ``system.repeat`` times through :func:`run_passes`, one pass after another
(:mod:`ragguard.system.pool` asks the questions of one pass). The system's stderr goes to a
:class:`LineLog`. Scoring the run is :mod:`ragguard.scoring.suite`'s.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import IO, Any

from ragguard.config.model import Config, RunSettings, check_repeatable
from ragguard.core.streams import shown_only
from ragguard.metrics.settings import GenerationSettings
from ragguard.results.records import RunRecord
from ragguard.system import build_adapter
from ragguard.system.base import (
    Adapter,
    BatchAdapter,
    adapter_notes,
    close_adapter,
    error_record,
)
from ragguard.system.outcome import RunOutcome, outcome_failure_lines
from ragguard.system.pool import EarlyStop, early_stop_for, run_questions
from ragguard.system.progress import NoProgress, Progress, make_progress
from ragguard.system.python import PythonAdapter
from ragguard.system.recorded import RecordedAdapter
from ragguard.system.turns import with_whole_conversations
from ragguard.testset.model import Question, TestSet
from ragguard.testset.shards import Shard, ShardSelection, select_shard


def end_log_with_failures(log: LineLog | None, outcome: RunOutcome) -> list[str]:
    """The run's grouped failure lines (with repeats, of every pass), also written at the
    end of the system log when the system wrote to it (next to the stderr that explains
    them)."""
    lines = outcome_failure_lines(outcome)
    if log is not None and log.written:
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
    notes: tuple[str, ...] = ()  # what the adapter has to say (a trace reader's skips)


def run_config(
    config: Config,
    whole: TestSet,
    *,
    progress_stream: IO[str] | None = None,
    log: Callable[[str], None],
    shard: Shard | None = None,
    done: Sequence[Mapping[str, RunRecord]] = (),
    on_record: Callable[[int, RunRecord], object] | None = None,
    only: frozenset[str] | None = None,
) -> SuiteRun:
    """Build the adapter and run every question of ``whole``, the test set as the run asks it
    (the pipeline has chosen its questions), Ctrl-C keeping what is done.

    The generation settings are typed first (from the loaded config; the file is not read
    again), so that a config mistake there does not cost a run of the system. With
    ``shard``, only that shard's questions are run. With ``only``, just those questions
    are run (a recheck of newly failing questions).

    With ``system.repeat`` N the questions are asked N times, pass after pass
    (:func:`run_passes`); ``done[i]`` holds pass ``i``'s records from a resumed run (not
    asked again) and ``on_record(i, record)`` gets each new record of pass ``i`` (from 0).
    The progress is shown on ``progress_stream`` (none without one).
    """
    check_repeatable(config)  # a Config built by hand has not been through load_config
    selection = select_shard(whole, shard) if shard else None
    testset = selection.testset if selection else whole
    if only is not None:
        chosen = with_whole_conversations(testset.questions, only)
        testset = replace(testset, questions=tuple(chosen))
    generation = config.generation
    adapter = build_adapter(config, log=log)
    if isinstance(adapter, RecordedAdapter):
        adapter.check_known(whole.questions, whole.known_ids)
    if isinstance(adapter, PythonAdapter):
        adapter.check_questions(testset.questions)
    try:
        outcome = run_passes(
            adapter,
            testset.questions,
            config.system.run,
            done=done,
            on_record=on_record,
            progress_stream=progress_stream,
        )
    finally:
        close_adapter(adapter)
    return SuiteRun(
        testset, outcome, adapter.identity(), generation, selection, adapter_notes(adapter)
    )


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
    another, each through :func:`~ragguard.system.pool.run_questions`.

    The early stop is over all the passes' calls: the failures of earlier passes (and of a
    resumed run's records in ``done``) count, and once the budget is spent the remaining
    calls of every pass are recorded as not run without asking. Ctrl-C ends the run in the
    pass it interrupts; later passes are not started. Each pass's progress (with repeats,
    after a ``pass i of N`` line) goes to ``progress_stream``; without one, none is shown.
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
        missing = {q.id for q in questions if q.id not in kept[index]}
        todo = with_whole_conversations(questions, missing)
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
    progress: Progress = NoProgress()
    if progress_stream is not None:
        progress_stream = shown_only(progress_stream)  # a closed pipe must not end the run
        if settings.repeat > 1:
            progress_stream.write(f"ragguard: pass {index + 1} of {settings.repeat}\n")
        concurrency = 1 if isinstance(adapter, BatchAdapter) else settings.concurrency
        progress = make_progress(len(todo), progress_stream, min(concurrency, len(todo)) or 1)
    return run_questions(
        adapter, todo, settings, progress=progress, on_record=on_record, early_stop=early_stop
    )


def _not_asked(
    question_id: str, message: str, on_record: Callable[[RunRecord], object] | None
) -> RunRecord:
    """A call not made because the run stopped early in an earlier pass (journalled too)."""
    record = error_record(question_id, message)
    if on_record is not None:
        on_record(record)
    return record
