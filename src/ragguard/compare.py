"""Compare head results with the baseline: paired deltas, significance, questions, verdict.

Pure: two :class:`~ragguard.results.Results` (the baseline may be ``None``) and the gate
rules in, a :class:`Comparison` out. The same inputs always give the same comparison: every
random draw uses a fixed seed and every list has a fixed order. See docs/compare.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from ragguard.gate import GateRules, MetricRule
from ragguard.metrics.names import MetricNameError, MetricSpec, parse_metric
from ragguard.metrics.retrieval import Labels, relevant_ranks, score_ranking
from ragguard.results import (
    STATUS_ERROR,
    STATUS_JUDGE_ERROR,
    STATUS_MISSING,
    QuestionResult,
    Results,
    SentenceVerdict,
)
from ragguard.stats import Bootstrap, mean, paired_test, percentile

PASS, WARN, FAIL, ERROR, INCOMPARABLE = "pass", "warn", "fail", "error", "incomparable"
VERDICTS = (PASS, WARN, FAIL, ERROR, INCOMPARABLE)
FAILED_STATUSES = (STATUS_ERROR, STATUS_MISSING, STATUS_JUDGE_ERROR)

NEWLY_FAILING, FIXED, STILL_FAILING, PASSING = "newly_failing", "fixed", "still_failing", "passing"
ADDED, REMOVED = "added", "removed"
QUESTION_KINDS = (NEWLY_FAILING, FIXED, STILL_FAILING, PASSING, ADDED, REMOVED)

EPSILON = 1e-9
HALLUCINATION_METRIC = "faithfulness"


@dataclass(frozen=True, slots=True)
class Reason:
    """One thing that moved the verdict away from pass, and how far (warn/fail/error/...).

    ``text`` is ragguard's own words; ``subject`` (a metric name or question id, which may
    come from the evaluated system) is kept apart so a renderer can escape it.
    """

    tier: str
    text: str
    subject: str | None = None


@dataclass(frozen=True)
class MetricComparison:
    """One metric over the paired questions. ``values`` None: in one file only."""

    name: str
    n: int
    baseline: float | None
    head: float | None
    delta: float | None = None
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    test: str = ""
    verdict: str = PASS
    notes: tuple[str, ...] = ()
    only_in: str | None = None
    head_overall: float | None = None
    head_interval: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class RankChange:
    """Where the best relevant chunk sat in the baseline and in the head (None: not retrieved)."""

    chunk: str
    k: int
    baseline_rank: int | None
    head_rank: int | None


@dataclass(frozen=True, slots=True)
class RuleMiss:
    """A per-question rule the head misses: the metric, both values and the threshold."""

    metric: str
    baseline: float | None
    head: float | None
    threshold: float


@dataclass(frozen=True)
class QuestionDiff:
    """One question's change between baseline and head, with the why of a failure."""

    id: str
    question: str
    kind: str
    tags: tuple[str, ...] = ()
    critical: bool = False
    relabelled: bool = False
    baseline_status: str | None = None
    head_status: str | None = None
    error: str | None = None
    misses: tuple[RuleMiss, ...] = ()
    rank_change: RankChange | None = None
    hallucinated: tuple[SentenceVerdict, ...] = ()


@dataclass(frozen=True, slots=True)
class TagMetric:
    name: str
    baseline: float
    head: float
    delta: float


@dataclass(frozen=True)
class TagBreakdown:
    tag: str
    n: int
    newly_failing: int
    metrics: tuple[TagMetric, ...]

    @property
    def worst_delta(self) -> float:
        return min((m.delta for m in self.metrics), default=0.0)


@dataclass(frozen=True, slots=True)
class Latency:
    """Latency percentiles in milliseconds (None: no latencies recorded on that side)."""

    baseline_p50: float | None
    head_p50: float | None
    baseline_p95: float | None
    head_p95: float | None


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where the baseline came from; the CI layer may know better and pass its own."""

    commit: str | None = None
    branch: str | None = None
    created_at: str | None = None
    age: str | None = None


@dataclass(frozen=True, slots=True)
class SettingDiff:
    key: str
    baseline: str
    head: str


@dataclass(frozen=True)
class Comparison:
    suite: str
    verdict: str
    reasons: tuple[Reason, ...]
    metrics: tuple[MetricComparison, ...]
    questions: tuple[QuestionDiff, ...]
    tags: tuple[TagBreakdown, ...]
    latency: Latency
    provenance: Provenance
    rules: GateRules
    per_question_rule: Mapping[str, float]
    baseline_missing: bool = False
    setting_diffs: tuple[SettingDiff, ...] = ()
    n_head: int = 0
    n_baseline: int = 0
    head_errors: int = 0
    baseline_errors: int = 0
    head_sha: str | None = None

    @property
    def incomparable(self) -> bool:
        return bool(self.setting_diffs)

    @property
    def blocks(self) -> bool:
        """Whether the merge should be blocked (fail, error, incomparable set to fail)."""
        if self.verdict == INCOMPARABLE:
            return self.rules.on_incomparable == FAIL
        return self.verdict in (FAIL, ERROR)

    def of_kind(self, kind: str) -> tuple[QuestionDiff, ...]:
        return tuple(q for q in self.questions if q.kind == kind)

    @property
    def relabelled(self) -> tuple[QuestionDiff, ...]:
        return tuple(q for q in self.questions if q.relabelled)

    @property
    def n_paired(self) -> int:
        return sum(1 for q in self.questions if q.kind not in (ADDED, REMOVED))


def compare(
    baseline: Results | None,
    head: Results,
    rules: GateRules,
    *,
    provenance: Provenance | None = None,
) -> Comparison:
    """Compare ``head`` with ``baseline`` (None: no baseline yet) under ``rules``."""
    rule = per_question_rule(rules, baseline, head)
    head_errors = _failed_count(head.questions)
    if baseline is None:
        metrics = tuple(_head_only(name, head, rules.rule_for(name)) for name in head.metrics)
        questions = tuple(_diff(None, q, rule) for q in head.questions)
        return _finish(
            head,
            rules,
            rule,
            metrics,
            questions,
            (),
            Latency(None, _p(head, 50), None, _p(head, 95)),
            Provenance(),
            baseline_missing=True,
            head_errors=head_errors,
        )
    rescored = rescore_baseline(baseline, head)
    pairs = _pairs(rescored, head)
    metrics = tuple(
        _metric(name, baseline, head, pairs, rules.rule_for(name))
        for name in _metric_names(baseline, head)
    )
    questions = _question_diffs(rescored, head, rule, relabelled_ids(baseline, head))
    return _finish(
        head,
        rules,
        rule,
        metrics,
        questions,
        _tag_breakdown(pairs, questions, metrics),
        Latency(_p(baseline, 50), _p(head, 50), _p(baseline, 95), _p(head, 95)),
        provenance or provenance_of(baseline, head),
        setting_diffs=setting_diffs(baseline.config, head.config),
        n_baseline=len(baseline.questions),
        head_errors=head_errors,
        baseline_errors=_failed_count(baseline.questions),
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
        **extra,
    )
    reasons = gate_reasons(draft)
    return replace(draft, verdict=overall_verdict(reasons), reasons=reasons)


# Pairing and re-scoring


def _retrieval_spec(name: str) -> MetricSpec | None:
    try:
        spec = parse_metric(name)
    except MetricNameError:
        return None
    return spec if spec.is_retrieval else None


def rescore_baseline(baseline: Results, head: Results) -> Results:
    """The baseline with relabelled questions re-scored under the head's labels.

    A relabelled question has the same id and a different label fingerprint. The baseline
    kept its retrieved ids, so its retrieval metrics are recomputed with the head's labels:
    fixing a label then changes both sides alike and never shows as a regression.
    """
    head_by_id = head.by_id
    questions = []
    for question in baseline.questions:
        now = head_by_id.get(question.id)
        if now is not None and now.fingerprint != question.fingerprint:
            question = _relabel(question, now)
        questions.append(question)
    return replace(baseline, questions=tuple(questions))


def _relabel(old: QuestionResult, now: QuestionResult) -> QuestionResult:
    specs = [spec for name in old.metrics if (spec := _retrieval_spec(name)) is not None]
    others = {name: v for name, v in old.metrics.items() if _retrieval_spec(name) is None}
    if not now.answerable:
        retrieval: dict[str, float] = {}
    elif old.status in FAILED_STATUSES:
        retrieval = {spec.name: 0.0 for spec in specs}
    else:
        retrieval = score_ranking(list(old.retrieved), Labels.from_grades(now.relevant), specs)
    ordered = {name: retrieval.get(name, others.get(name)) for name in old.metrics}
    metrics = {name: value for name, value in ordered.items() if value is not None}
    return replace(
        old,
        metrics=metrics,
        relevant=dict(now.relevant),
        fingerprint=now.fingerprint,
        answerable=now.answerable,
    )


def relabelled_ids(baseline: Results, head: Results) -> set[str]:
    """Ids in both files whose label fingerprint changed."""
    head_by_id = head.by_id
    return {
        q.id
        for q in baseline.questions
        if q.id in head_by_id and head_by_id[q.id].fingerprint != q.fingerprint
    }


def _pairs(baseline: Results, head: Results) -> list[tuple[QuestionResult, QuestionResult]]:
    baseline_by_id = baseline.by_id
    return [(baseline_by_id[q.id], q) for q in head.questions if q.id in baseline_by_id]


def _metric_names(baseline: Results, head: Results) -> list[str]:
    return list(dict.fromkeys([*head.metrics, *baseline.metrics]))


# Metrics


def _overall(results: Results, name: str) -> float | None:
    summary = results.summary.get(name)
    if summary is not None:
        return summary.value
    values = [q.metrics[name] for q in results.questions if name in q.metrics]
    return mean(values) if values else None


def _head_only(name: str, head: Results, rule: MetricRule) -> MetricComparison:
    value = _overall(head, name)
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


def _metric(
    name: str,
    baseline: Results,
    head: Results,
    pairs: Sequence[tuple[QuestionResult, QuestionResult]],
    rule: MetricRule,
) -> MetricComparison:
    if name not in head.metrics:
        value = _overall(baseline, name)
        return MetricComparison(name, 0, value, None, verdict=PASS, only_in="baseline")
    if name not in baseline.metrics:
        return _head_only(name, head, rule)
    both = [
        (b.metrics[name], h.metrics[name])
        for b, h in pairs
        if name in b.metrics and name in h.metrics
    ]
    head_overall = _overall(head, name)
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
    spec = _retrieval_spec(name)
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


# Questions


def per_question_rule(
    rules: GateRules, baseline: Results | None, head: Results
) -> dict[str, float]:
    """The configured per-question rule, or the default built from the shared metrics.

    Default: ``hit_rate@3: 1`` (else the hit_rate with the smallest k above 1, else any
    hit_rate) and ``faithfulness: 1.0`` where those metrics are present.
    """
    if rules.per_question is not None:
        return dict(rules.per_question)
    names = [n for n in head.metrics if baseline is None or n in baseline.metrics]
    hits = sorted(
        (spec.k or 0, spec.name)
        for n in names
        if (spec := _retrieval_spec(n)) is not None and spec.base == "hit_rate"
    )
    rule: dict[str, float] = {}
    if hits:
        chosen = next((name for k, name in hits if k == 3), None)
        chosen = chosen or next((name for k, name in hits if k > 1), hits[0][1])
        rule[chosen] = 1.0
    if HALLUCINATION_METRIC in names:
        rule[HALLUCINATION_METRIC] = 1.0
    return rule


def passes(question: QuestionResult, rule: Mapping[str, float]) -> bool:
    """A question passes when it was evaluated and meets every threshold that applies."""
    if question.status in FAILED_STATUSES:
        return False
    return all(
        question.metrics[name] >= threshold - EPSILON
        for name, threshold in rule.items()
        if name in question.metrics
    )


def _question_diffs(
    baseline: Results, head: Results, rule: Mapping[str, float], relabelled: set[str]
) -> tuple[QuestionDiff, ...]:
    baseline_by_id = baseline.by_id
    head_ids = {q.id for q in head.questions}
    diffs = [_diff(baseline_by_id.get(q.id), q, rule, q.id in relabelled) for q in head.questions]
    diffs += [
        QuestionDiff(q.id, q.question, REMOVED, q.tags, q.critical, baseline_status=q.status)
        for q in baseline.questions
        if q.id not in head_ids
    ]
    return tuple(sorted(diffs, key=lambda d: (not d.critical, d.id)))


def _diff(
    before: QuestionResult | None,
    now: QuestionResult,
    rule: Mapping[str, float],
    relabelled: bool = False,
) -> QuestionDiff:
    head_ok = passes(now, rule)
    base = QuestionDiff(
        now.id,
        now.question,
        ADDED,
        now.tags,
        now.critical,
        head_status=now.status,
        error=now.error if now.status in FAILED_STATUSES else None,
    )
    if before is None:
        return replace(base, **_why(None, now, rule)) if not head_ok else base
    was_ok = passes(before, rule)
    kind = {
        (True, True): PASSING,
        (True, False): NEWLY_FAILING,
        (False, True): FIXED,
        (False, False): STILL_FAILING,
    }[(was_ok, head_ok)]
    diff = replace(base, kind=kind, baseline_status=before.status, relabelled=relabelled)
    return replace(diff, **_why(before, now, rule)) if not head_ok else diff


def _why(
    before: QuestionResult | None, now: QuestionResult, rule: Mapping[str, float]
) -> dict[str, Any]:
    misses = tuple(
        RuleMiss(name, before.metrics.get(name) if before else None, now.metrics[name], threshold)
        for name, threshold in rule.items()
        if name in now.metrics and now.metrics[name] < threshold - EPSILON
    )
    hallucinated = tuple(s for s in now.sentences if s.supported is False)
    evaluated = now.status not in FAILED_STATUSES
    return {
        "misses": misses,
        "rank_change": _rank_change(before, now, misses) if evaluated else None,
        "hallucinated": hallucinated,
    }


def _rank_change(
    before: QuestionResult | None, now: QuestionResult, misses: Sequence[RuleMiss]
) -> RankChange | None:
    cutoffs = [
        spec.k or len(now.retrieved) or 1
        for miss in misses
        if (spec := _retrieval_spec(miss.metric)) is not None
    ]
    if not cutoffs or not now.relevant:
        return None
    labels = Labels.from_grades(now.relevant)
    chunk, head_rank = _best_relevant(now.retrieved, labels)
    baseline_rank = None
    if before is not None:
        old_chunk, baseline_rank = _best_relevant(before.retrieved, labels)
        if baseline_rank is not None:
            chunk = old_chunk
            head_rank = _rank_of(now.retrieved, chunk)
    if chunk is None:
        chunk = min(labels.relevant, key=lambda c: (-labels.relevant[c], c))
    return RankChange(chunk, min(cutoffs), baseline_rank, head_rank)


def _best_relevant(retrieved: Sequence[str], labels: Labels) -> tuple[str | None, int | None]:
    ranks, _ = relevant_ranks(list(retrieved), labels)
    if not ranks:
        return None, None
    return retrieved[ranks[0] - 1], ranks[0]


def _rank_of(retrieved: Sequence[str], chunk: str) -> int | None:
    return retrieved.index(chunk) + 1 if chunk in retrieved else None


def _failed_count(questions: Iterable[QuestionResult]) -> int:
    return sum(1 for q in questions if q.status in FAILED_STATUSES)


# Tags


def _tag_breakdown(
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


# Latency, provenance, settings


def _p(results: Results, q: float) -> float | None:
    values = [x.latency_ms for x in results.questions if x.latency_ms is not None]
    return percentile(values, q) if values else None


def provenance_of(baseline: Results, head: Results) -> Provenance:
    """Commit, branch and age of the baseline, the age measured against the head run."""
    ref = baseline.git.get("ref") or None
    branch = ref.removeprefix("refs/heads/") if ref else None
    return Provenance(
        commit=baseline.git.get("sha") or None,
        branch=branch,
        created_at=baseline.created_at or None,
        age=describe_age(baseline.created_at, head.created_at),
    )


def describe_age(then: str, now: str) -> str | None:
    """ "3 days" from two ISO timestamps; None if either cannot be read."""
    try:
        start, end = datetime.fromisoformat(then), datetime.fromisoformat(now)
        seconds = (end - start).total_seconds()
    except (TypeError, ValueError):
        return None
    if seconds < 0:
        return "newer than this run"
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'' if count == 1 else 's'}"
    return "less than a minute"


def setting_diffs(baseline: Mapping[str, Any], head: Mapping[str, Any]) -> tuple[SettingDiff, ...]:
    """The settings (dotted keys) whose values differ between the two configs."""
    before, after = _flatten(baseline), _flatten(head)
    return tuple(
        SettingDiff(key, before.get(key, "(not set)"), after.get(key, "(not set)"))
        for key in sorted(before.keys() | after.keys())
        if before.get(key) != after.get(key)
    )


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            flat.update(_flatten(value, path + "."))
        else:
            flat[path] = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return flat


# The verdict


def gate_reasons(comparison: Comparison) -> tuple[Reason, ...]:
    """Every reason for a verdict other than pass, most serious first."""
    reasons: list[Reason] = []
    rules = comparison.rules
    if (
        comparison.n_head
        and comparison.head_errors / comparison.n_head > rules.max_error_rate + EPSILON
    ):
        rate = comparison.head_errors / comparison.n_head
        reasons.append(
            Reason(
                ERROR,
                f"{comparison.head_errors} of {comparison.n_head} questions could not be "
                f"evaluated ({rate:.1%}, more than max_error_rate {rules.max_error_rate:.1%})",
            )
        )
    if comparison.setting_diffs:
        n = len(comparison.setting_diffs)
        reasons.append(
            Reason(
                INCOMPARABLE,
                f"{n} evaluation setting{'s' if n != 1 else ''} differ from the baseline's",
            )
        )
    for metric in comparison.metrics:
        if metric.verdict in (FAIL, WARN):
            reasons.extend(Reason(metric.verdict, note, metric.name) for note in metric.notes)
    known = {metric.name for metric in comparison.metrics}
    ruled = [*rules.metrics, *comparison.per_question_rule]
    for name in dict.fromkeys(n for n in ruled if n not in known):
        reasons.append(Reason(WARN, "has a gate rule but is in neither results file", name))
    if rules.critical_blocks:
        for question in comparison.of_kind(NEWLY_FAILING):
            if question.critical:
                reasons.append(Reason(FAIL, "critical question newly fails", question.id))
    order = {ERROR: 0, INCOMPARABLE: 1, FAIL: 2, WARN: 3}
    return tuple(sorted(reasons, key=lambda r: order[r.tier]))


def overall_verdict(reasons: Sequence[Reason]) -> str:
    tiers = {reason.tier for reason in reasons}
    for tier in (ERROR, INCOMPARABLE, FAIL, WARN):
        if tier in tiers:
            return tier
    return PASS


def exit_code(comparison: Comparison) -> int:
    """0 pass or warn, 1 fail, 3 error or incomparable (when set to fail)."""
    if comparison.verdict == FAIL:
        return 1
    if comparison.verdict == ERROR or comparison.blocks:
        return 3
    return 0
