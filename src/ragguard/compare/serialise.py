"""The JSON form of a comparison (schema ``ragguard.comparison/1``), as comparison.json holds it."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from ragguard.compare.agents import HopRow
from ragguard.compare.detectable import Detectable
from ragguard.compare.model import (
    PASSING,
    QUESTION_KINDS,
    Comparison,
    MetricComparison,
    QuestionDiff,
    Repeats,
)


def comparison_json(comparison: Comparison) -> str:
    """The comparison as JSON: the same inputs give the same bytes."""
    return (
        json.dumps(comparison_to_dict(comparison), indent=1, ensure_ascii=False, allow_nan=False)
        + "\n"
    )


def comparison_to_dict(comparison: Comparison) -> dict[str, Any]:
    rules = comparison.rules
    return {
        "schema": "ragguard.comparison/1",
        "suite": comparison.suite,
        "verdict": comparison.verdict,
        "blocks": comparison.blocks,
        "reasons": [asdict(r) for r in comparison.reasons],
        "baseline_missing": comparison.baseline_missing,
        "questions": {
            "compared": comparison.n_paired,
            "head": comparison.n_head,
            "baseline": comparison.n_baseline,
            "head_errors": comparison.head_errors,
            "baseline_errors": comparison.baseline_errors,
            **{kind: len(comparison.of_kind(kind)) for kind in QUESTION_KINDS},
            "relabelled": len(comparison.relabelled),
        },
        "metrics": {m.name: _metric_dict(m) for m in comparison.metrics},
        "per_question_rule": dict(comparison.per_question_rule),
        "question_changes": [
            _question_dict(q)
            for q in comparison.questions
            if q.kind != PASSING or q.passes_by_relabel
        ],
        "tags": [asdict(t) for t in comparison.tags],
        "latency_ms": asdict(comparison.latency),
        "costs": {m.name: {**_metric_dict(m), "lower_is_better": True} for m in comparison.costs},
        "baseline": asdict(comparison.provenance),
        "head_sha": comparison.head_sha,
        "incomparable_settings": [asdict(d) for d in comparison.setting_diffs],
        "power": {found.metric: _power_dict(found) for found in comparison.power},
        **({"repeats": _repeats_dict(comparison.repeats)} if comparison.repeats else {}),
        **({"hops": [_hop_dict(row) for row in comparison.hops]} if comparison.hops else {}),
        **({"judge": comparison.judge.totals()} if comparison.judge is not None else {}),
        **_recheck_judge(comparison),
        "gate": {
            "default": asdict(rules.default),
            "metrics": {name: asdict(rule) for name, rule in rules.metrics.items()},
            "max_error_rate": rules.max_error_rate,
            "on_incomparable": rules.on_incomparable,
            "critical_blocks": rules.critical_blocks,
            "multiple_testing": rules.multiple_testing,
            "recheck": rules.recheck,
            "recheck_all": rules.recheck_all,
        },
    }


def _recheck_judge(comparison: Comparison) -> dict[str, Any]:
    """``judge_rechecks``: the rechecks' judge totals beside the head run's ``judge`` (the
    reports and the action outputs show their sum); nothing when no recheck was judged."""
    spent = comparison.recheck_judge
    return {"judge_rechecks": spent.totals()} if spent is not None else {}


def _hop_dict(row: HopRow) -> dict[str, Any]:
    return {
        "hop": row.number,
        "questions": row.n,
        "newly_failing": row.newly_lost,
        "metrics": {name: {"baseline": b, "head": h} for name, b, h in row.values},
    }


def _question_dict(question: QuestionDiff) -> dict[str, Any]:
    """A question's change; the run tallies only for a side that asked it more than once
    (the JSON of unrepeated results is as before repeats existed), ``unmarked_critical``
    only when the head unmarked it, ``relabel_kept`` only for a relabelled question whose
    baseline could not be re-scored."""
    data = asdict(question)
    for flag in ("unmarked_critical", "relabel_kept"):
        if not getattr(question, flag):
            data.pop(flag)
    if question.rank_change is not None and not question.rank_change.evidence:
        data["rank_change"].pop("head_chunk")  # only where the evidence moved to
        data["rank_change"].pop("evidence")
    for side in ("baseline_runs", "head_runs"):
        tally = getattr(question, side)
        if tally is None:
            data.pop(side)
        else:
            data[side] = {
                "passed": tally.passed,
                "runs": tally.runs,
                "errored": tally.errored,
                "class": tally.stability,
            }
    return data


def _repeats_dict(repeats: Repeats) -> dict[str, Any]:
    return {
        "head_runs": {"min": repeats.head_runs[0], "max": repeats.head_runs[1]},
        "baseline_runs": None
        if repeats.baseline_runs is None
        else {"min": repeats.baseline_runs[0], "max": repeats.baseline_runs[1]},
        "head_calls": repeats.head_calls,
        "head_failed_calls": repeats.head_failed_calls,
        "head_system_ms": repeats.head_system_ms,
        "head_classes": dict(repeats.head_classes),
        "baseline_classes": None
        if repeats.baseline_classes is None
        else dict(repeats.baseline_classes),
        "flakiness_known": repeats.flakiness_known,
        "became_flaky": list(repeats.became_flaky),
        "became_stable": list(repeats.became_stable),
    }


def _power_dict(found: Detectable) -> dict[str, Any]:
    return {
        "n": found.n,
        "alpha": found.alpha,
        "power": found.power,
        "detectable_drop": found.drop,
        "noise": asdict(found.noise),
        "max_drop": found.max_drop,
        "questions_needed": found.needed,
        "too_small": found.too_small,
    }


def _metric_dict(metric: MetricComparison) -> dict[str, Any]:
    data = asdict(metric)
    data.pop("name")
    return data
