"""One metric compared: paired delta, its interval, the significance test and the verdict;
and the gated metrics' p-values adjusted together, so that the gate as a whole, not each
metric alone, fails on noise with probability at most alpha."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ragguard.compare.model import EPSILON, FAIL, PASS, WARN, MetricComparison
from ragguard.compare.questions import id_order
from ragguard.config.sections.gate import GateRules, MetricRule
from ragguard.metrics.stats import (
    JOINT_MAX_QUESTIONS,
    Bootstrap,
    holm_adjusted,
    max_t_adjusted,
    mean,
    paired_test,
)
from ragguard.results.model import QuestionResult, Results

PairList = Sequence[tuple[QuestionResult, QuestionResult]]


def overall_value(results: Results, name: str) -> float | None:
    summary = results.summary.get(name)
    if summary is not None:
        return summary.value
    values = [q.metrics[name] for q in results.questions if name in q.metrics]
    return mean(values) if values else None


def head_only_metric(name: str, head: Results, rule: MetricRule) -> MetricComparison:
    value = overall_value(head, name)
    n = sum(1 for q in head.questions if name in q.metrics)
    verdict, notes = metric_verdict(None, None, value, rule)
    summary = head.summary.get(name)
    return MetricComparison(
        name,
        n,
        None,
        value,
        verdict=verdict,
        notes=notes,
        only_in="head",
        head_overall=value,
        head_interval=(summary.low, summary.high) if summary else None,
    )


def compare_metric(
    name: str,
    baseline: Results,
    head: Results,
    pairs: Sequence[tuple[QuestionResult, QuestionResult]],
    rule: MetricRule,
) -> MetricComparison:
    if name not in head.metrics:
        value = overall_value(baseline, name)
        return MetricComparison(name, 0, value, None, verdict=PASS, only_in="baseline")
    if name not in baseline.metrics:
        return head_only_metric(name, head, rule)
    both = [
        (b.metrics[name], h.metrics[name])
        for b, h in pairs
        if name in b.metrics and name in h.metrics
    ]
    head_overall = overall_value(head, name)
    if not both:
        verdict, notes = metric_verdict(None, None, head_overall, rule)
        return MetricComparison(
            name, 0, None, head_overall, verdict=verdict, notes=notes, head_overall=head_overall
        )
    before = [b for b, _ in both]
    after = [h for _, h in both]
    deltas = [h - b for b, h in both]
    binary = is_binary_metric(before, after)
    test = paired_test(before, after, binary)
    interval = bootstrap_for(len(deltas)).interval(deltas)
    delta = mean(after) - mean(before)
    verdict, notes = metric_verdict(delta, test.p_value, head_overall, rule)
    return MetricComparison(
        name=name,
        n=len(both),
        baseline=mean(before),
        head=mean(after),
        delta=delta,
        low=interval.low,
        high=interval.high,
        p_value=test.p_value,
        test=test.method,
        verdict=verdict,
        notes=notes,
        head_overall=head_overall,
    )


_BOOTSTRAPS: dict[int, Bootstrap] = {}


def bootstrap_for(n: int) -> Bootstrap:
    """A Bootstrap per n, reused (its resamples depend only on n and the fixed seed)."""
    if n not in _BOOTSTRAPS:
        _BOOTSTRAPS[n] = Bootstrap(n)
    return _BOOTSTRAPS[n]


def is_binary_metric(before: Sequence[float], after: Sequence[float]) -> bool:
    """Whether every paired value is 0 or 1 (McNemar's test). A 0/1 metric such as hit@k
    asked several times (``system.repeat``) holds per-question rates, tested with the sign-flip
    test on their deltas, which uses the size of each change and not only its sign."""
    return all(v in (0.0, 1.0) for v in (*before, *after))


def family_adjusted(
    metrics: Sequence[MetricComparison], pairs: PairList, rules: GateRules
) -> tuple[MetricComparison, ...]:
    """The metrics with family-adjusted p-values and the verdicts they give.

    The family is every metric with a paired p-value whose rule can fail on a drop
    (``alpha`` set, ``max_drop`` below 1): seven or more of them each tested at alpha would
    fail a merge on pure noise far more often than alpha. The adjustment is the joint
    sign-flip max-T (:func:`~ragguard.metrics.stats.max_t_adjusted`, signs drawn by question id),
    or Holm's above ``JOINT_MAX_QUESTIONS`` questions that differ; an adjusted p-value is
    never below the metric's own. ``multiple_testing: off`` leaves each metric at its alpha.
    """
    family = [
        i
        for i, metric in enumerate(metrics)
        if metric.p_value is not None and can_fail_on_a_drop(rules.rule_for(metric.name))
    ]
    if rules.multiple_testing == "off" or len(family) < 2:
        return tuple(metrics)
    raw = [metrics[i].p_value or 0.0 for i in family]
    rows = _delta_rows([metrics[i].name for i in family], pairs)
    if rows and len(rows[0]) <= JOINT_MAX_QUESTIONS:
        adjusted, how = max_t_adjusted(rows), "max-T p"
    else:
        adjusted, how = holm_adjusted(raw), "Holm p"
    result = list(metrics)
    for i, own, p_value in zip(family, raw, adjusted, strict=True):
        metric = metrics[i]
        p_value = max(own, p_value)
        verdict, notes = metric_verdict(
            metric.delta, p_value, metric.head_overall, rules.rule_for(metric.name), how
        )
        result[i] = replace(metric, p_adjusted=p_value, verdict=verdict, notes=notes)
    return tuple(result)


def _delta_rows(names: Sequence[str], pairs: PairList) -> list[list[float]]:
    """Per metric, the paired deltas of the questions where any of them differs, in
    question-id order (0.0 where a metric does not apply to a question)."""
    columns = []
    for baseline, head in sorted(pairs, key=lambda pair: id_order(pair[1].id)):
        column = [
            head.metrics[name] - baseline.metrics[name]
            if name in head.metrics and name in baseline.metrics
            else 0.0
            for name in names
        ]
        if any(column):
            columns.append(column)
    return [list(row) for row in zip(*columns, strict=True)] if columns else []


def can_fail_on_a_drop(rule: MetricRule) -> bool:
    return rule.alpha is not None and rule.max_drop < 1.0 - EPSILON


def metric_verdict(
    delta: float | None,
    p_value: float | None,
    head_value: float | None,
    rule: MetricRule,
    p_name: str = "p",
) -> tuple[str, tuple[str, ...]]:
    """pass / warn / fail for one metric, with the notes that explain a warn or fail.

    ``p_value`` is the one-sided p-value of a drop (``p_name`` says which: the metric's own
    or its Holm-adjusted one)."""
    fails: list[str] = []
    warns: list[str] = []
    if head_value is not None and rule.min is not None and head_value < rule.min - EPSILON:
        fails.append(f"below the floor min {rule.min:g}")
    elif (
        head_value is not None
        and rule.warn_min is not None
        and head_value < rule.warn_min - EPSILON
    ):
        warns.append(f"below warn_min {rule.warn_min:g}")
    if delta is not None and p_value is not None:
        drop = -delta
        significant = rule.alpha is None or p_value < rule.alpha
        if significant and drop > rule.max_drop + EPSILON:
            fails.append(_drop_note(drop, "max_drop", rule.max_drop, rule.alpha, p_name))
        elif significant and rule.warn_drop is not None and drop > rule.warn_drop + EPSILON:
            warns.append(_drop_note(drop, "warn_drop", rule.warn_drop, rule.alpha, p_name))
    if fails:
        return FAIL, tuple(fails + warns)
    return (WARN, tuple(warns)) if warns else (PASS, ())


def _drop_note(drop: float, key: str, limit: float, alpha: float | None, p_name: str) -> str:
    why = f"{p_name} < alpha {alpha:g}" if alpha is not None else "alpha off"
    return f"dropped {drop:.3f} (more than {key} {limit:g}; {why})"
