"""The smallest drop each gated metric's test can see in this comparison (ragguard/power.py).

The noise is the comparison's own (discordant pairs, the spread of the deltas). With the
gated metrics adjusted together (``multiple_testing: max_t``), each is sized at alpha over
the family's size (Bonferroni): the max-T adjustment is at least about as powerful, so the
drop shown is an upper bound, never an optimistic one.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragguard.compare.detectable import (
    Detectable,
    detectable,
    noise_from_pairs,
    noise_from_runs,
    noise_from_values,
)
from ragguard.compare.metrics import PairList, can_fail_on_a_drop, is_binary_metric
from ragguard.compare.model import FAILED_STATUSES, MetricComparison
from ragguard.config.sections.gate import GateRules
from ragguard.results.model import QuestionResult, Results, run_count, runs_of


def gated_alpha(rules: GateRules, names: Sequence[str]) -> dict[str, float]:
    """Each gated metric's alpha as its power is sized: alpha over the family's size
    when the family is adjusted together, else its own."""
    gated = [name for name in names if can_fail_on_a_drop(rules.rule_for(name))]
    share = len(gated) if rules.multiple_testing != "off" and len(gated) >= 2 else 1
    return {name: (rules.rule_for(name).alpha or 0.0) / share for name in gated}


def comparison_power(
    metrics: Sequence[MetricComparison], pairs: PairList, rules: GateRules
) -> tuple[Detectable, ...]:
    """The detectable drop of every gated metric with a paired test, in the metrics' order."""
    alphas = gated_alpha(rules, [m.name for m in metrics if m.p_value is not None])
    found = []
    for metric in metrics:
        if metric.name not in alphas:
            continue
        both = [
            (b.metrics[metric.name], h.metrics[metric.name])
            for b, h in pairs
            if metric.name in b.metrics and metric.name in h.metrics
        ]
        before = [b for b, _ in both]
        after = [h for _, h in both]
        noise = noise_from_pairs(before, after, is_binary_metric(before, after))
        found.append(
            detectable(
                metric.name,
                len(both),
                alphas[metric.name],
                noise,
                rules.rule_for(metric.name).max_drop,
                limit=sum(before) / len(before),
            )
        )
    return tuple(found)


def results_power(results: Results, rules: GateRules) -> tuple[Detectable, ...]:
    """The detectable drops from one results file: the noise assumed (no baseline), or,
    when its questions were asked several times, measured between their runs."""
    alphas = gated_alpha(rules, list(results.metrics))
    found = []
    for name in results.metrics:
        if name not in alphas:
            continue
        values = [q.metrics[name] for q in results.questions if name in q.metrics]
        if not values:
            continue
        noise = (
            noise_from_runs([_run_values(q, name) for q in results.questions])
            if is_repeated(results)
            else noise_from_values(values, is_binary_metric(values, values))
        )
        found.append(
            detectable(
                name,
                len(values),
                alphas[name],
                noise,
                rules.rule_for(name).max_drop,
                limit=sum(values) / len(values),
            )
        )
    return tuple(found)


def is_repeated(results: Results) -> bool:
    """Whether any question was asked more than once (``system.repeat``)."""
    return any(run_count(question) > 1 for question in results.questions)


def _run_values(question: QuestionResult, name: str) -> list[float]:
    return [
        run.metrics[name]
        for run in runs_of(question)
        if run.status not in FAILED_STATUSES and name in run.metrics
    ]
