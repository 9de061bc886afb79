"""The evaluation a CI run makes: the suite's system run over its test set and scored."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from ragguard.ci.outputs import append_summary
from ragguard.config.model import Config
from ragguard.core.files import write_report
from ragguard.results.model import Results
from ragguard.testset.shards import Shard


def evaluate_config(
    config: Config,
    git: Mapping[str, str | None],
    out: Path,
    cache_dir: Path | None = None,
    shard: Shard | None = None,
    only: frozenset[str] | None = None,
    summary_file: Path | None = None,
) -> Results:
    """Run the suite's system over its test set (or one shard of it, or ``only`` those
    questions) and score it. With ``system.repeat`` N, pass ``i``'s records go to
    ``run.jsonl`` (the first) or ``run.<i>.jsonl``, and the run's cost goes to the job log
    and the job summary (``summary_file``)."""
    import time

    from ragguard.results.records import dump_run
    from ragguard.system.journal import pass_records_path
    from ragguard.system.runner import (
        LineLog,
        cost_line,
        end_log_with_failures,
        run_config,
        score_suite_run,
    )

    started = time.monotonic()
    log = LineLog(out / "system.log")
    try:
        suite_run = run_config(config, progress_stream=sys.stderr, log=log, shard=shard, only=only)
        failures = end_log_with_failures(log, suite_run.outcome)
    finally:
        log.close()
    outcome = suite_run.outcome
    if outcome.stopped_early:
        print(f"ragguard: {outcome.stopped_early_line()}", file=sys.stderr)
    for line in failures:  # the job log names the failed questions, grouped by error
        print(f"ragguard: {line}", file=sys.stderr)
    for index, records in enumerate(outcome.passes):
        write_report(pass_records_path(out / "run.jsonl", index), dump_run(records.values()))
    results, generation = score_suite_run(
        config,
        suite_run,
        git=dict(git),
        cache_dir=cache_dir,
        warn=lambda line: print(f"ragguard: warning: {line}", file=sys.stderr),
    )
    if generation.judge:  # the judge's calls and tokens, as `ragguard run` prints them
        print(f"ragguard: {generation.judge.usage.line()}", file=sys.stderr)
    if outcome.repeat > 1:
        usage = generation.judge.usage if generation.judge else None
        cost = cost_line(outcome, usage, time.monotonic() - started)
        print(f"ragguard: {cost}", file=sys.stderr)
        append_summary(summary_file, f"ragguard {config.suite}: {cost}\n")
    return results
