"""Repeats in a comparison: how often each side asked its questions, what that cost, and
which questions were stable (passed or failed in every run) or flaky (both).

Whether a question passes is decided per run and by majority (compare/questions.py); this
module only summarises. Flakiness changes ("3 questions became flaky") are information, not
a reason for a verdict: under pure noise some questions change class on every run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ragguard.compare.model import (
    ADDED,
    FAILED_STATUSES,
    FLAKY,
    REMOVED,
    STABILITY_CLASSES,
    QuestionDiff,
    Repeats,
    RunTally,
)
from ragguard.compare.questions import id_order
from ragguard.results.model import Results, run_count, runs_of


def repeat_summary(
    baseline: Results | None, head: Results, questions: Sequence[QuestionDiff]
) -> Repeats | None:
    """The summary, or None when every question was asked once on both sides."""
    head_counts = [run_count(q) for q in head.questions] or [1]
    baseline_counts = [1]
    if baseline is not None:
        baseline_counts = [run_count(q) for q in baseline.questions] or [1]
    if max(head_counts) <= 1 and max(baseline_counts) <= 1:
        return None
    latencies = [
        run.latency_ms
        for question in head.questions
        for run in runs_of(question)
        if run.latency_ms is not None
    ]
    repeated_baseline = baseline is not None and min(baseline_counts) > 1
    paired = [q for q in questions if q.kind not in (ADDED, REMOVED)]
    return Repeats(
        head_runs=(min(head_counts), max(head_counts)),
        baseline_runs=(min(baseline_counts), max(baseline_counts)) if baseline else None,
        head_calls=sum(run_count(q) for q in head.questions),
        head_system_ms=sum(latencies) if latencies else None,
        head_classes=_classes(q.head_runs for q in questions if q.kind != REMOVED),
        baseline_classes=_classes(q.baseline_runs for q in questions if q.kind != ADDED)
        if repeated_baseline
        else None,
        became_flaky=_ids(q for q in paired if _changed(q, to_flaky=True)),
        became_stable=_ids(q for q in paired if _changed(q, to_flaky=False)),
        head_failed_calls=sum(
            1
            for question in head.questions
            for run in runs_of(question)
            if run.status in FAILED_STATUSES
        ),
    )


def stability(tally: RunTally | None) -> str | None:
    """A question's class; None for one asked once (one run shows no flakiness)."""
    return tally.stability if tally is not None and tally.runs > 1 else None


def _classes(tallies: Iterable[RunTally | None]) -> dict[str, int]:
    counts = dict.fromkeys(STABILITY_CLASSES, 0)
    for tally in tallies:
        found = stability(tally)
        if found is not None:
            counts[found] += 1
    return counts


def _changed(question: QuestionDiff, to_flaky: bool) -> bool:
    before, now = stability(question.baseline_runs), stability(question.head_runs)
    if before is None or now is None:
        return False
    return (now == FLAKY and before != FLAKY) if to_flaky else (before == FLAKY and now != FLAKY)


def _ids(questions: Iterable[QuestionDiff]) -> tuple[str, ...]:
    return tuple(sorted((q.id for q in questions), key=id_order))
