"""Repeats: every question asked N times (``system.repeat``), the N runs combined into one result.

One run of a noisy system (sampling temperature, query rewriting, a rebuilt ANN index)
decides a question by chance; N runs give each question a rate instead of a coin toss, and
the paired comparison then works on those rates (docs/compare.md, "Repeats").

A combined question keeps every run (:class:`~ragguard.results.model.RepeatRun`: status, metric
values, error, latency) and sets its own fields from them:

- ``metrics``: each metric's mean over the runs that have it. A run where the system failed
  has its retrieval metrics at 0, as a question asked once does (scoring.py), so a question
  cannot score better by crashing in some runs. For a 0/1 metric the mean is the share of
  runs that hit (``hallucination_free``: the share of answers with no unsupported
  statement), so the comparison's paired test becomes the sign-flip test on per-question
  rates.
- ``status``, ``error``, and what the comment and ``explain`` show (ranking, answer,
  sentence verdicts, usage): those of the *worst* evaluated run (most unsupported
  sentences, then the lowest mean of its metric values, then the earliest), so a
  hallucination in any run is shown. When no run was evaluated, the first run.
- ``latency_ms`` and each ``usage`` key (tokens, cost): the mean over the runs that report
  it, so the cost per answer of a repeated run is that of an average answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ragguard.metrics.stats import mean
from ragguard.results.model import (
    STATUS_ERROR,
    STATUS_JUDGE_ERROR,
    STATUS_MISSING,
    QuestionResult,
    Results,
    as_run,
)
from ragguard.results.usage import USAGE_KEYS, Usage
from ragguard.scoring.score import summarize

NOT_EVALUATED = (STATUS_ERROR, STATUS_MISSING, STATUS_JUDGE_ERROR)


def combine_repeats(runs: Sequence[Results]) -> Results:
    """The results of the same test set run ``len(runs)`` times, as one (the first run's
    header, every question combined); one run is returned as it is."""
    if len(runs) == 1:
        return runs[0]
    if not runs:
        raise ValueError("no runs to combine")
    first = runs[0]
    ids = [question.id for question in first.questions]
    for other in runs[1:]:
        if [question.id for question in other.questions] != ids:
            raise ValueError("repeated runs must hold the same questions in the same order")
    questions = tuple(
        combine_question(same) for same in zip(*(run.questions for run in runs), strict=True)
    )
    return replace(first, questions=questions, summary=summarize(questions, first.metrics))


def combine_question(runs: Sequence[QuestionResult]) -> QuestionResult:
    """One question's runs as one result (the module's docstring says how)."""
    evaluated = [run for run in runs if run.status not in NOT_EVALUATED]
    shown = min(evaluated, key=_badness) if evaluated else runs[0]
    latencies = [run.latency_ms for run in runs if run.latency_ms is not None]
    return replace(
        shown,
        metrics=_mean_metrics(runs),
        latency_ms=mean(latencies) if latencies else None,
        usage=_mean_usage([run.usage for run in runs if run.usage is not None]),
        repeats=tuple(as_run(run) for run in runs),
    )


def _badness(run: QuestionResult) -> tuple[int, float]:
    """Sort key, worst first (``min`` keeps the earliest of equals)."""
    unsupported = sum(1 for sentence in run.sentences if sentence.supported is False)
    values = list(run.metrics.values())
    return (-unsupported, mean(values) if values else 0.0)


def _mean_usage(usages: Sequence[Usage]) -> Usage | None:
    if not usages:
        return None
    means = {}
    for key in USAGE_KEYS:
        values = [value for usage in usages if (value := getattr(usage, key)) is not None]
        means[key] = mean(values) if values else None
    return Usage(**means)


def _mean_metrics(runs: Sequence[QuestionResult]) -> dict[str, float]:
    names = list(dict.fromkeys(name for run in runs for name in run.metrics))
    return {
        name: mean([run.metrics[name] for run in runs if name in run.metrics]) for name in names
    }
