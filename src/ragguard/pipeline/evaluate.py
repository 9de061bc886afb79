"""Evaluate a suite: load the test set, run the system over it, score the run → Results.

:func:`evaluate` is what ``ragguard run``, ``ragguard ci`` and ``api.run`` do with a
ragguard.yml; :func:`evaluate_system` the same with a system already built (the demo). Both
print nothing themselves: a run's progress, its notes and warnings go to the caller's
:class:`~ragguard.pipeline.reporter.Reporter` as the work goes, and the rest comes back in
an :class:`Evaluation` for the caller to show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragguard.config.model import Config, RunSettings
from ragguard.config.sections.system import MAX_REPEAT
from ragguard.core.files import check_writable
from ragguard.metrics.names import MetricSpec
from ragguard.metrics.settings import GenerationSettings
from ragguard.pipeline.drafts import load_run_testset, run_questions
from ragguard.pipeline.passes import check_judge_key, prepare_passes
from ragguard.pipeline.reporter import Reporter
from ragguard.results.model import Results
from ragguard.results.records import RunRecord
from ragguard.scoring.labels import corpus_origins
from ragguard.scoring.suite import RunPass, results_settings
from ragguard.system.base import Adapter, BatchAdapter, adapter_notes
from ragguard.system.journal import (
    PassJournals,
    pass_records_path,
    read_journal,
    records_to_keep,
    remove_stale_passes,
    write_records,
)
from ragguard.system.outcome import RunOutcome, cost_line, outcome_failure_lines
from ragguard.system.runner import LineLog, end_log_with_failures, run_config, run_passes
from ragguard.testset.model import TestSet
from ragguard.testset.shards import Shard, ShardSelection, mark_shard, select_shard

if TYPE_CHECKING:  # the client (and requests) is imported when a judge is built
    from ragguard.judge.usage import Usage as JudgeUsage


@dataclass(frozen=True)
class RunFiles:
    """Where a run's records go: ``path`` for the first pass, a numbered sibling for each
    further one (:func:`~ragguard.system.journal.pass_records_path`), written when the run
    ends, in test-set order.

    ``journal``: each record is also appended as it arrives, so an unfinished run can be
    continued (``resume``: the records of the earlier, unfinished run are kept and not asked
    again); the files are checked writable before the system is asked anything, and the
    files of passes an earlier, longer run left are removed.
    """

    path: Path
    journal: bool = False
    resume: bool = False

    def paths(self, passes: int) -> list[Path]:
        return [pass_records_path(self.path, index) for index in range(passes)]


@dataclass(frozen=True)
class Evaluation:
    """A suite evaluated: the scored results and the run they came from.

    ``failures`` are the failed calls grouped by error (with repeats, of every pass, each
    named with its pass); ``judge`` the judge's calls and tokens (``None``: no judge);
    ``system_log`` the system's log when the system wrote to it.
    """

    results: Results
    outcome: RunOutcome
    judge: JudgeUsage | None = None
    failures: tuple[str, ...] = ()
    system_log: Path | None = None

    def cost_line(self, seconds: float) -> str:
        """What the run cost: the calls made and failed, the judge's calls, ``seconds``."""
        return cost_line(self.outcome, self.judge, seconds)


def evaluate(
    config: Config,
    reporter: Reporter,
    *,
    git: Mapping[str, str | None] | None = None,
    cache_dir: Path | None = None,
    shard: Shard | None = None,
    only: frozenset[str] | None = None,
    records: RunFiles | None = None,
    system_log: Path | None = None,
    failures_in_log: bool = True,
    include_drafts: bool = False,
) -> Evaluation:
    """Run the suite's system over its test set (``shard``: one shard of it; ``only``: just
    those questions) and score it with the config's metrics, generation settings and corpus.
    Drafted questions are left out unless ``include_drafts`` (:mod:`ragguard.pipeline.drafts`).

    Ctrl-C keeps what is done (``outcome.interrupted``). The run's records go to ``records``
    (none written without), the system's stderr to ``system_log`` with the failed questions
    at its end (not with ``failures_in_log=False``, as ``api.run`` has it). ``git`` is
    recorded in the results; ``cache_dir`` overrides ``judge.cache``.
    """
    passes = config.system.run.repeat
    if system_log is not None:
        check_writable(system_log)  # a folder or an unwritable place: one line, before any run
    testset = load_run_testset(config.testset, reporter, include_drafts=include_drafts)
    check_judge_key(testset, config.metrics, config.generation)
    done, journals = _journalled(records, passes, testset, shard, reporter)
    log = LineLog(system_log) if system_log is not None else None
    try:
        suite_run = run_config(
            config,
            testset,
            progress_stream=reporter.progress_stream,
            log=log or _unlogged,
            shard=shard,
            done=done,
            on_record=journals,
            only=only,
        )
        failures = end_log_with_failures(log if failures_in_log else None, suite_run.outcome)
    finally:
        if log is not None:
            log.close()
        if journals is not None:
            journals.close()
    outcome = suite_run.outcome
    _after_run(outcome, failures, reporter, suite_run.notes)
    if records is not None:
        _write_records(records, passes, outcome)
    results, judge = _score(
        suite_run.testset,
        outcome,
        config.metrics,
        suite_run.generation,
        suite=config.suite,
        identity=suite_run.identity,
        corpus=config.corpus,
        min_coverage=config.min_coverage,
        git=git,
        cache_dir=cache_dir,
        reporter=reporter,
        shard=suite_run.shard,
    )
    logged = log.path if log is not None and log.written else None
    return Evaluation(results, outcome, judge, tuple(failures), logged)


def estimate_judging(
    config: Config,
    reporter: Reporter,
    *,
    cache_dir: Path | None = None,
    shard: Shard | None = None,
    records: RunFiles | None = None,
    include_drafts: bool = False,
) -> tuple[str, ...]:
    """``ragguard run --estimate``: run the suite's system as :func:`evaluate` does (its
    records written, so ``--resume`` then asks it nothing again; drafts left out unless
    ``include_drafts``), then plan the judge's calls over its answers as the scoring would
    make them (the same cache keys) without making any, and without the judge's API key:
    each pass's plan line."""
    passes = config.system.run.repeat
    testset = load_run_testset(config.testset, reporter, include_drafts=include_drafts)
    done, journals = _journalled(records, passes, testset, shard, reporter)
    try:
        suite_run = run_config(
            config,
            testset,
            progress_stream=reporter.progress_stream,
            log=_unlogged,
            shard=shard,
            done=done,
            on_record=journals,
        )
    finally:
        if journals is not None:
            journals.close()
    outcome = suite_run.outcome
    _after_run(outcome, outcome_failure_lines(outcome), reporter, suite_run.notes)
    if records is not None:
        _write_records(records, passes, outcome)
    prepared = prepare_passes(
        suite_run.testset,
        [RunPass(answered, answered_only=True) for answered in outcome.passes],
        config.metrics,
        suite_run.generation,
        corpus=config.corpus,
        origins=corpus_origins(suite_run.testset, config.metrics, config.corpus),
        need_key=False,
        cache_dir=cache_dir,
    )
    return tuple(prepared.plans())


def evaluate_system(
    system: Adapter | BatchAdapter,
    testset: TestSet,
    specs: Sequence[MetricSpec],
    settings: RunSettings,
    generation: GenerationSettings,
    *,
    suite: str,
    reporter: Reporter,
    git: Mapping[str, str | None] | None = None,
) -> Evaluation:
    """Run a system already built over ``testset`` (its drafts left out) and score it with
    ``specs`` and the ``generation`` settings (no corpus, no records written): the demo's
    pipelines."""
    testset = run_questions(testset, reporter, include_drafts=False)
    check_judge_key(testset, specs, generation)
    outcome = run_passes(
        system, testset.questions, settings, progress_stream=reporter.progress_stream
    )
    failures = outcome_failure_lines(outcome)
    _after_run(outcome, failures, reporter, adapter_notes(system))
    results, judge = _score(
        testset,
        outcome,
        tuple(specs),
        generation,
        suite=suite,
        identity=system.identity(),
        corpus=None,
        min_coverage=None,
        git=git,
        cache_dir=None,
        reporter=reporter,
    )
    return Evaluation(results, outcome, judge, tuple(failures))


def _unlogged(_line: str) -> None:
    """The system's stderr when no log is kept."""


def _journalled(
    records: RunFiles | None,
    passes: int,
    testset: TestSet,
    shard: Shard | None,
    reporter: Reporter,
) -> tuple[list[dict[str, RunRecord]], PassJournals | None]:
    """Before a journalled run asks anything: its records files checked writable, the records
    an unfinished run left read back (``resume``), and the journals to append to."""
    if records is None or not records.journal:
        return [], None
    paths = records.paths(passes)
    for path in paths:
        check_writable(path)
    done = _resumed(testset, shard, paths, reporter) if records.resume else []
    return done, PassJournals(records.path, passes, append=records.resume, most=MAX_REPEAT)


def _write_records(records: RunFiles, passes: int, outcome: RunOutcome) -> None:
    """After the run: each pass's records file, whole and in test-set order (journalled: the
    files of passes an earlier, longer run left removed)."""
    for path, written in zip(records.paths(passes), outcome.passes, strict=False):
        write_records(path, written.values())
    if records.journal:
        remove_stale_passes(records.path, passes, MAX_REPEAT)


def _resumed(
    testset: TestSet, shard: Shard | None, paths: Sequence[Path], reporter: Reporter
) -> list[dict[str, RunRecord]]:
    """Each pass's records an unfinished run left that are kept (those without an error)."""
    asked = select_shard(testset, shard).testset if shard else testset
    ids = [q.id for q in asked.questions]
    done = [records_to_keep(read_journal(path), ids, path) for path in paths]
    kept = sum(len(records) for records in done)
    passes = len(paths)
    what = "questions" if passes == 1 else f"calls ({len(ids)} questions x {passes} passes)"
    reporter.note(f"resuming: {kept} of {len(ids) * passes} {what} already done")
    return done


def _after_run(
    outcome: RunOutcome, failures: Sequence[str], reporter: Reporter, notes: Sequence[str] = ()
) -> None:
    """What a run that ended says before it is scored: the adapter's notes (what a trace
    reader skipped), that it stopped early, and (in a log) the failed questions, grouped
    by error."""
    for line in notes:
        reporter.note(line)
    if outcome.stopped_early:
        reporter.note(f"ragguard: {outcome.stopped_early_line()}")
    for line in failures:
        reporter.detail(f"ragguard: {line}")


def _score(
    testset: TestSet,
    outcome: RunOutcome,
    specs: tuple[MetricSpec, ...],
    generation: GenerationSettings,
    *,
    suite: str,
    identity: dict[str, Any],
    corpus: Path | None,
    min_coverage: float | None,
    git: Mapping[str, str | None] | None,
    cache_dir: Path | None,
    reporter: Reporter,
    shard: ShardSelection | None = None,
) -> tuple[Results, JudgeUsage | None]:
    """Score every pass of a live run (only the answered questions are checked for what
    generation metrics need: a failed question is already an error, not bad input)."""
    origins = corpus_origins(testset, specs, corpus)
    passes = [RunPass(records, answered_only=True) for records in outcome.passes]
    prepared = prepare_passes(
        testset,
        passes,
        specs,
        generation,
        corpus=corpus,
        origins=origins,
        cache_dir=cache_dir,
        whole=shard.whole if shard is not None else None,
    )
    warning = prepared.unmatched_labels()
    if warning:
        reporter.warn(warning)
    results = prepared.score(
        suite=suite, config=results_settings(identity), git=git, min_coverage=min_coverage
    )
    if shard is not None:
        results = mark_shard(results, shard)
    first = prepared.first
    return results, first.judge.usage if first is not None and first.judge is not None else None
