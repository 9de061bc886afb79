"""The evaluation a CI run makes: the suite's system run over its test set and scored."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from ragguard.ci.outputs import append_summary
from ragguard.config.model import Config
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

    from ragguard.pipeline.evaluate import RunFiles, evaluate
    from ragguard.pipeline.reporter import LogReporter

    started = time.monotonic()
    evaluation = evaluate(
        config,
        LogReporter(),  # the job log names the failed questions, grouped by error
        git=dict(git),
        cache_dir=cache_dir,
        shard=shard,
        only=only,
        records=RunFiles(out / "run.jsonl"),
        system_log=out / "system.log",
    )
    if evaluation.judge:  # the judge's calls and tokens, as `ragguard run` prints them
        print(f"ragguard: {evaluation.judge.line()}", file=sys.stderr)
    if evaluation.outcome.repeat > 1:
        cost = evaluation.cost_line(time.monotonic() - started)
        print(f"ragguard: {cost}", file=sys.stderr)
        append_summary(summary_file, f"ragguard {config.suite}: {cost}\n")
    return evaluation.results
