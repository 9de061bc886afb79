"""Compare head results with the baseline: paired deltas, significance, questions, verdict.

Pure: two :class:`~ragguard.results.model.Results` (the baseline may be ``None``) and the gate
rules in, a :class:`Comparison` out. The same inputs always give the same comparison: every
random draw uses a fixed seed and every list has a fixed order. See docs/compare.md.

The package reads like the comparison itself: ``pairing`` (questions paired by id, relabelled
ones re-scored), ``metrics`` (paired delta and significance per metric), ``questions`` (what
changed per question), ``tags``, ``provenance`` (and latency, settings), ``verdict``; ``model``
holds the values they return.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ragguard.compare.agents import hop_breakdown
from ragguard.compare.costs import cost_comparisons
from ragguard.compare.metrics import (
    compare_metric,
    family_adjusted,
    head_only_metric,
    metric_verdict,
)
from ragguard.compare.model import (
    ADDED,
    EPSILON,
    ERROR,
    FAIL,
    FAILED_STATUSES,
    FIXED,
    HALLUCINATION_METRIC,
    INCOMPARABLE,
    NEWLY_FAILING,
    PASS,
    PASSING,
    QUESTION_KINDS,
    REMOVED,
    STILL_FAILING,
    VERDICTS,
    WARN,
    Comparison,
    Latency,
    MetricComparison,
    Provenance,
    QuestionDiff,
    RankChange,
    Reason,
    Repeats,
    RuleMiss,
    RunTally,
    SettingDiff,
    TagBreakdown,
    TagMetric,
    Unlabelled,
)
from ragguard.compare.pairing import (
    metric_names,
    paired_questions,
    relabelled_ids,
    rescore_baseline,
)
from ragguard.compare.power import comparison_power
from ragguard.compare.provenance import (
    describe_age,
    latency_percentile,
    provenance_of,
    setting_diffs,
)
from ragguard.compare.questions import (
    failed_count,
    id_order,
    mark_relabels,
    passes,
    per_question_rule,
    question_diff,
    question_diffs,
)
from ragguard.compare.stability import repeat_summary
from ragguard.compare.tags import tag_breakdown
from ragguard.compare.verdict import exit_code, gate_reasons, overall_verdict
from ragguard.config.sections.gate import GateRules
from ragguard.results.model import Results

__all__ = [
    "ADDED",
    "EPSILON",
    "ERROR",
    "FAIL",
    "FAILED_STATUSES",
    "FIXED",
    "HALLUCINATION_METRIC",
    "INCOMPARABLE",
    "NEWLY_FAILING",
    "PASS",
    "PASSING",
    "QUESTION_KINDS",
    "REMOVED",
    "STILL_FAILING",
    "VERDICTS",
    "WARN",
    "Comparison",
    "Latency",
    "MetricComparison",
    "Provenance",
    "QuestionDiff",
    "RankChange",
    "Reason",
    "Repeats",
    "RuleMiss",
    "RunTally",
    "SettingDiff",
    "TagBreakdown",
    "TagMetric",
    "Unlabelled",
    "compare",
    "describe_age",
    "exit_code",
    "gate_reasons",
    "metric_verdict",
    "overall_verdict",
    "passes",
    "per_question_rule",
    "provenance_of",
    "relabelled_ids",
    "rescore_baseline",
    "setting_diffs",
]


def compare(
    baseline: Results | None,
    head: Results,
    rules: GateRules,
    *,
    provenance: Provenance | None = None,
) -> Comparison:
    """Compare ``head`` with ``baseline`` (None: no baseline yet) under ``rules``."""
    rule = per_question_rule(rules, baseline, head)
    head_errors = failed_count(head.questions)
    if baseline is None:
        metrics = tuple(head_only_metric(name, head, rules.rule_for(name)) for name in head.metrics)
        questions = tuple(question_diff(None, q, rule) for q in head.questions)
        return _finish(
            head,
            rules,
            rule,
            metrics,
            questions,
            (),
            Latency(None, latency_percentile(head, 50), None, latency_percentile(head, 95)),
            Provenance(),
            baseline_missing=True,
            head_errors=head_errors,
            repeats=repeat_summary(None, head, questions),
            costs=cost_comparisons(None, head, (), rules),
        )
    rescored = rescore_baseline(baseline, head)
    # in question-id order: the bootstrap and the sampled tests then do not see file order
    pairs = sorted(paired_questions(rescored, head), key=lambda pair: id_order(pair[1].id))
    metrics = family_adjusted(
        [
            compare_metric(name, baseline, head, pairs, rules.rule_for(name))
            for name in metric_names(baseline, head)
        ],
        pairs,
        rules,
    )
    questions = question_diffs(rescored, head, rule, relabelled_ids(baseline, head))
    questions = mark_relabels(questions, baseline, head, rule)
    return _finish(
        head,
        rules,
        rule,
        metrics,
        questions,
        tag_breakdown(pairs, questions, metrics),
        Latency(
            latency_percentile(baseline, 50),
            latency_percentile(head, 50),
            latency_percentile(baseline, 95),
            latency_percentile(head, 95),
        ),
        provenance or provenance_of(baseline, head),
        setting_diffs=setting_diffs(
            baseline.config, head.config, set(baseline.metrics) ^ set(head.metrics)
        ),
        n_baseline=len(baseline.questions),
        head_errors=head_errors,
        baseline_errors=failed_count(baseline.questions),
        costs=cost_comparisons(baseline, head, pairs, rules),
        power=comparison_power(metrics, pairs, rules),
        repeats=repeat_summary(baseline, head, questions),
        hops=hop_breakdown(
            pairs, [q.hops for q in questions if q.kind == NEWLY_FAILING], head.metrics
        ),
    )


def _finish(
    head: Results,
    rules: GateRules,
    rule: Mapping[str, float],
    metrics: tuple[MetricComparison, ...],
    questions: tuple[QuestionDiff, ...],
    tags: tuple[TagBreakdown, ...],
    latency: Latency,
    provenance: Provenance,
    **extra: Any,
) -> Comparison:
    draft = Comparison(
        suite=head.suite,
        verdict=PASS,
        reasons=(),
        metrics=metrics,
        questions=questions,
        tags=tags,
        latency=latency,
        provenance=provenance,
        rules=rules,
        per_question_rule=rule,
        n_head=len(head.questions),
        head_sha=head.git.get("sha"),
        judge=head.judge,
        **extra,
    )
    reasons = gate_reasons(draft)
    return replace(draft, verdict=overall_verdict(reasons), reasons=reasons)
