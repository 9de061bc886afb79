"""One metric compared: paired delta, its interval, the significance test and the verdict."""

from __future__ import annotations

from collections.abc import Sequence

from ragguard.compare.model import EPSILON, FAIL, PASS, WARN, MetricComparison
from ragguard.compare.pairing import retrieval_spec
from ragguard.gate import MetricRule
from ragguard.results import QuestionResult, Results
from ragguard.stats import Bootstrap, mean, paired_test


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
    binary = _is_binary(name, before, after)
    test = paired_test(before, after, binary)
    interval = _bootstrap(len(deltas)).interval(deltas)
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


def _bootstrap(n: int) -> Bootstrap:
    """A Bootstrap per n, reused (its resamples depend only on n and the fixed seed)."""
    if n not in _BOOTSTRAPS:
        _BOOTSTRAPS[n] = Bootstrap(n)
    return _BOOTSTRAPS[n]


def _is_binary(name: str, before: Sequence[float], after: Sequence[float]) -> bool:
    spec = retrieval_spec(name)
    if spec is not None and spec.is_binary:
        return True
    return all(v in (0.0, 1.0) for v in (*before, *after))


def metric_verdict(
    delta: float | None, p_value: float | None, head_value: float | None, rule: MetricRule
) -> tuple[str, tuple[str, ...]]:
    """pass / warn / fail for one metric, with the notes that explain a warn or fail."""
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
            fails.append(_drop_note(drop, "max_drop", rule.max_drop, rule.alpha))
        elif significant and rule.warn_drop is not None and drop > rule.warn_drop + EPSILON:
            warns.append(_drop_note(drop, "warn_drop", rule.warn_drop, rule.alpha))
    if fails:
        return FAIL, tuple(fails + warns)
    return (WARN, tuple(warns)) if warns else (PASS, ())


def _drop_note(drop: float, key: str, limit: float, alpha: float | None) -> str:
    why = f"p < alpha {alpha:g}" if alpha is not None else "alpha off"
    return f"dropped {drop:.3f} (more than {key} {limit:g}; {why})"
