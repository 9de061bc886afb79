"""Each compared metric per tag, so a reviewer sees which topic broke."""

from __future__ import annotations

from collections.abc import Sequence

from ragguard.compare.model import (
    NEWLY_FAILING,
    MetricComparison,
    QuestionDiff,
    TagBreakdown,
    TagMetric,
)
from ragguard.metrics.stats import mean
from ragguard.results.model import QuestionResult


def tag_breakdown(
    pairs: Sequence[tuple[QuestionResult, QuestionResult]],
    questions: Sequence[QuestionDiff],
    metrics: Sequence[MetricComparison],
) -> tuple[TagBreakdown, ...]:
    """Each compared metric per tag, the tags where a regression concentrates first."""
    newly = {q.id for q in questions if q.kind == NEWLY_FAILING}
    compared = [m.name for m in metrics if m.delta is not None]
    tags = sorted({tag for _, h in pairs for tag in h.tags})
    breakdowns = []
    for tag in tags:
        tagged = [(b, h) for b, h in pairs if tag in h.tags]
        rows = []
        for name in compared:
            both = [
                (b.metrics[name], h.metrics[name])
                for b, h in tagged
                if name in b.metrics and name in h.metrics
            ]
            if both:
                before = mean([b for b, _ in both])
                after = mean([h for _, h in both])
                rows.append(TagMetric(name, before, after, after - before))
        failing = sum(1 for _, h in tagged if h.id in newly)
        breakdowns.append(TagBreakdown(tag, len(tagged), failing, tuple(rows)))
    return tuple(sorted(breakdowns, key=lambda t: (-t.newly_failing, t.worst_delta, t.tag)))
