"""What a comparison's report says first: the verdict, its headline and reasons, and the
one-line facts beside them (coverage, latency, provenance, the gate rules, errors).

The comment, the job summary and the terminal report all speak with these words.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragguard.compare import (
    ADDED,
    ERROR,
    FAIL,
    FAILED_STATUSES,
    FIXED,
    INCOMPARABLE,
    NEWLY_FAILING,
    PASS,
    REMOVED,
    WARN,
    Comparison,
    MetricComparison,
    QuestionDiff,
    Reason,
)
from ragguard.compare.provenance import NEWER
from ragguard.compare.questions import id_order
from ragguard.compare.verdict import evaluation_errors
from ragguard.config.sections.gate import METRIC_MAX_DROP
from ragguard.render.costs import cost_rows
from ragguard.render.questions import GROUP_IDS_SHOWN, failing_questions, one_line_why
from ragguard.render.text import and_more, code_name, escape_markdown, fmt, milliseconds

VERDICT_ICONS = {"pass": "✅", "warn": "⚠️", "fail": "❌", "error": "🛑", "incomparable": "⛔"}
NO_BASELINE_ICON = "ℹ️"  # a first run with nothing to compare is neither a pass nor a failure
LATENCY_MIN_MS = 50.0
LATENCY_MIN_SHARE = 0.2


def is_quiet(comparison: Comparison) -> bool:
    """A pass where nothing moved: no reason, metric, question, drift, error or latency
    change to show. Its comment is the verdict line and one sentence."""
    return (
        comparison.verdict == PASS
        and not comparison.baseline_missing
        and not comparison.reasons
        and comparison.head_errors == 0
        and not any(metric_moved(m) for m in comparison.metrics)
        and not any(q.kind in (NEWLY_FAILING, FIXED, ADDED, REMOVED) for q in comparison.questions)
        and not comparison.relabelled
        and not latency_matters(comparison)
        and not cost_rows(comparison, compact=True)
    )


def metric_moved(metric: MetricComparison) -> bool:
    """A row the comment shows: it failed or warned, exists on one side only, or its delta
    is not 0.000 at the shown precision."""
    if metric.verdict != PASS or metric.only_in is not None or metric.delta is None:
        return True
    return round(metric.delta, 3) != 0


def verdict_icon(comparison: Comparison) -> str:
    if comparison.baseline_missing and comparison.verdict == PASS:
        return NO_BASELINE_ICON
    return VERDICT_ICONS[comparison.verdict]


def verdict_label(comparison: Comparison) -> str:
    """The bold word of the verdict line: without a baseline, a pass is not a pass."""
    if not comparison.baseline_missing:
        return comparison.verdict
    if comparison.verdict == PASS:
        return "no baseline yet"
    return comparison.verdict


def ordered_reasons(comparison: Comparison) -> list[Reason]:
    """The reasons most serious first; within a tier, critical questions first."""
    critical = {q.id for q in comparison.questions if q.critical}
    tiers = {ERROR: 0, INCOMPARABLE: 1, FAIL: 2, WARN: 3}
    reasons = comparison.reasons
    if comparison.verdict in (ERROR, INCOMPARABLE):  # the rest is not gated: not a reason
        reasons = tuple(r for r in reasons if r.tier in (ERROR, INCOMPARABLE))
    return sorted(
        reasons,
        key=lambda r: (tiers.get(r.tier, 4), r.subject not in critical or r.subject is None),
    )


def headline(comparison: Comparison, quiet: bool = False) -> str:
    """What decided the verdict, in a few words: counts and names, most serious first."""
    if comparison.baseline_missing:
        return _no_baseline_headline(comparison)
    parts = []
    if comparison.verdict == ERROR:
        parts += _error_phrases(comparison)
    if comparison.setting_diffs:
        parts.append("the evaluation settings changed")
    if comparison.verdict in (ERROR, INCOMPARABLE):
        return ", ".join(parts)
    all_critical = [q for q in comparison.of_kind(NEWLY_FAILING) if q.critical]
    critical = [q for q in all_critical if not q.flaky_failure]
    flaky = len(all_critical) - len(critical)
    if critical and comparison.rules.critical_blocks:
        parts.append(
            f"critical question **{escape_markdown(critical[0].id, 60)}** newly fails"
            if len(critical) == 1
            else f"{len(critical)} critical questions newly fail"
        )
    if flaky:
        parts.append(f"{flaky} flaky critical question{'s' if flaky != 1 else ''}")
    parts += _metric_counts(comparison)
    parts += _budget_counts(comparison)
    parts += _test_set_changes(comparison)
    newly = len(comparison.of_kind(NEWLY_FAILING))
    others = newly - len(all_critical)
    if critical and others:
        parts.append(
            f"{others} more question{'s' if others != 1 else ''} newly fail{'s' if others == 1 else ''}"
        )
    elif others:
        parts.append(
            f"{others} question{'s' if others != 1 else ''} newly fail{'s' if others == 1 else ''}"
        )
    if comparison.verdict == PASS:
        prefix = "no change" if quiet else "no regression"
        return prefix + ("" if not parts else "; " + ", ".join(parts))
    return ", ".join(parts) or _first_reason(comparison)


def _first_reason(comparison: Comparison) -> str:
    """The most serious reason in ragguard's words: a verdict other than pass always says
    what decided it, even one no phrase above names."""
    reasons = ordered_reasons(comparison)
    return reason_text(reasons[0], comparison) if reasons else ""


def _errors_phrase(comparison: Comparison) -> str:
    errors, total, unit = evaluation_errors(comparison)
    return f"{errors} of {total} {unit} could not be evaluated"


def _error_phrases(comparison: Comparison) -> list[str]:
    """What made the run untrustworthy: questions that could not be evaluated, and a
    comparison that compared nothing (no question or metric in common)."""
    errors = _errors_phrase(comparison)
    phrases = [errors] if evaluation_errors(comparison)[0] else []
    phrases += [
        r.text
        for r in comparison.reasons
        if r.tier == ERROR and r.subject is None and not r.text.startswith(errors)
    ]
    return phrases or [errors]


def _budget_counts(comparison: Comparison) -> list[str]:
    """Cost and latency metrics over their budgets (``max``, ``max_increase``)."""
    costs = {m.name for m in comparison.costs}
    names = list(dict.fromkeys(r.subject for r in comparison.reasons if r.subject in costs))
    if not names:
        return []
    if len(names) <= 2:
        return [f"{' and '.join(code_name(n) for n in names)} over budget"]
    return [f"{len(names)} costs over budget"]


def _test_set_changes(comparison: Comparison) -> list[str]:
    """Passing questions the change removed, or passes only by relabelling
    (``gate.on_removed``): changing the test set is how a regression would disappear."""
    removed = [q for q in comparison.of_kind(REMOVED) if q.baseline_passed]
    relabelled = [q for q in comparison.questions if q.passes_by_relabel]
    parts = []
    if len(removed) == 1:
        parts.append(f"passing question **{escape_markdown(removed[0].id, 60)}** removed")
    elif removed:
        parts.append(f"{len(removed)} passing questions removed")
    if len(relabelled) == 1:
        question = escape_markdown(relabelled[0].id, 60)
        parts.append(f"**{question}** passes only under its new labels")
    elif relabelled:
        parts.append(f"{len(relabelled)} questions pass only under their new labels")
    return parts


def _metric_counts(comparison: Comparison) -> list[str]:
    known = {m.name for m in comparison.metrics}
    costs = {m.name for m in comparison.costs}
    parts = []
    for tier, one, many in ((FAIL, "fails", "fail"), (WARN, "warns", "warn")):
        names = list(
            dict.fromkeys(
                r.subject for r in comparison.reasons if r.tier == tier and r.subject in known
            )
        )
        if len(names) == 1:
            parts.append(f"{code_name(names[0])} {one}")
        elif len(names) == 2:
            parts.append(f"{code_name(names[0])} and {code_name(names[1])} {many}")
        elif names:
            parts.append(f"{len(names)} metrics {many}")
    unknown = sum(
        1
        for r in comparison.reasons
        if r.subject is not None
        and r.tier == WARN
        and r.subject not in known | costs
        and r.subject not in {q.id for q in comparison.questions}
    )
    if unknown:
        parts.append(
            f"{unknown} gate rule{'s' if unknown != 1 else ''} name{'s' if unknown == 1 else ''} no metric"
        )
    return parts


def _no_baseline_headline(comparison: Comparison) -> str:
    failing = failing_questions(comparison)
    critical = sum(1 for q in failing if q.critical)
    parts = _metric_counts(comparison)
    if comparison.verdict == ERROR:
        parts.insert(0, _errors_phrase(comparison))
    if failing:
        verb = "fails" if len(failing) == 1 else "fail"
        parts.append(
            f"{len(failing)} of {comparison.n_head} questions {verb}"
            + (f" ({critical} critical)" if critical else "")
        )
    else:
        parts.append(f"all {comparison.n_head} questions pass")
    return ", ".join(parts)


def _critical_state(question: QuestionDiff) -> str:
    """ "newly fails", or what its rechecks or repeats showed: flaky, or failing in most runs."""
    runs = question.decided_by
    if runs is None:
        return "newly fails"
    if question.flaky_failure:
        return f"is flaky ({runs.line()}), not counted as a regression"
    return f"newly fails ({runs.line()})"


def reason_text(reason: Reason, comparison: Comparison | None = None) -> str:
    """ragguard's own words, after the escaped subject (a metric name or question id); a
    metric's values come first when the comparison is given."""
    if reason.subject is None:
        return reason.text
    metric = None
    if comparison is not None:
        metric = next((m for m in comparison.metrics if m.name == reason.subject), None)
    if metric is None and comparison is not None:
        question = next((q for q in comparison.questions if q.id == reason.subject), None)
        if question is not None and question.critical:
            return (
                f"critical question **{escape_markdown(question.id, 120)}** "
                f"{_critical_state(question)}: {one_line_why(question)}"
            )
    if metric is None:
        return f"{code_name(reason.subject)}: {reason.text}"
    values = (
        fmt(metric.head)
        if metric.baseline is None
        else f"{fmt(metric.baseline)} → {fmt(metric.head)}"
    )
    return f"{code_name(reason.subject)} {values}: {reason.text}"


def coverage_line(comparison: Comparison) -> str:
    if comparison.baseline_missing:
        return f"{comparison.n_head} questions evaluated."
    drift = [
        f"{len(items)} {name}"
        for name, items in (
            ("added", comparison.of_kind(ADDED)),
            ("removed", comparison.of_kind(REMOVED)),
            ("relabelled", comparison.relabelled),
        )
        if items
    ]
    if not drift:
        return f"Compared {comparison.n_paired} questions (the same set in both runs)."
    return (
        f"Compared {comparison.n_paired} questions present in both runs "
        f"({comparison.n_head} in this run, {comparison.n_baseline} in the baseline; "
        f"{', '.join(drift)})."
    )


def in_id_order(questions: Sequence[QuestionDiff]) -> list[QuestionDiff]:
    return sorted(questions, key=lambda q: id_order(q.id))


def error_lines(comparison: Comparison) -> list[str]:
    """Questions that could not be evaluated, those with the same error grouped."""
    groups: dict[tuple[str, str], list[QuestionDiff]] = {}
    for question in in_id_order(comparison.questions):
        if question.head_status in FAILED_STATUSES:
            key = (question.head_status or "", question.error or "no detail")
            groups.setdefault(key, []).append(question)
    lines = []
    for (status, error), group in groups.items():
        shown = [f"**{escape_markdown(q.id, 120)}**" for q in group[:GROUP_IDS_SHOWN]]
        who = and_more(shown, len(group))
        if len(group) == 1:
            lines.append(f"{who} ({status}): {escape_markdown(error, 300)}")
        else:
            lines.append(f"{status}: {escape_markdown(error, 300)} — {len(group)} questions: {who}")
    return lines


def latency_matters(comparison: Comparison) -> bool:
    """p50 or p95 moved by at least LATENCY_MIN_MS and LATENCY_MIN_SHARE of the baseline."""
    latency = comparison.latency
    for before, after in (
        (latency.baseline_p50, latency.head_p50),
        (latency.baseline_p95, latency.head_p95),
    ):
        if before is None or after is None:
            continue
        change = abs(after - before)
        if change >= LATENCY_MIN_MS and change >= LATENCY_MIN_SHARE * before:
            return True
    return False


def latency_line(comparison: Comparison) -> str:
    """ "p50 155 → 215 ms (+60 ms), p95 186 → 246 ms (+60 ms)"; head values alone without
    a baseline; empty when no latencies were recorded."""
    latency = comparison.latency
    parts = []
    for label, before, after in (
        ("p50", latency.baseline_p50, latency.head_p50),
        ("p95", latency.baseline_p95, latency.head_p95),
    ):
        if after is None:
            continue
        if before is None:
            parts.append(f"{label} {milliseconds(after)}")
        else:
            change = milliseconds(after - before, sign=True)
            parts.append(f"{label} {before:.0f} → {milliseconds(after)} ({change})")
    return ", ".join(parts)


def provenance_line(comparison: Comparison) -> str:
    """Where the baseline came from: commit, branch, when, and the commit of this run."""
    if comparison.baseline_missing:
        return ""
    p = comparison.provenance
    text = "Baseline: " + (
        f"commit {escape_markdown(p.commit[:12], 12)}" if p.commit else "commit not recorded"
    )
    if p.branch:
        text += f" on {escape_markdown(p.branch, 100)}"
    if p.created_at:
        text += f", created {escape_markdown(p.created_at, 40)}"
    if p.age:
        text += f" ({age_phrase(p.age, 'before')})"
    if comparison.head_sha:
        text += f"; this run: commit {escape_markdown(comparison.head_sha[:12], 12)}"
    return text + "."


def age_phrase(age: str, relation: str) -> str:
    """How old the baseline is beside this run: "2 days before this run" (``relation``
    "before" or "older than"), or "newer than this run" for one evaluated after it."""
    if age == NEWER:
        return NEWER
    return f"{escape_markdown(age, 40)} {relation} this run"


def rules_line(comparison: Comparison) -> str:
    rule = comparison.rules.default
    alpha = "off" if rule.alpha is None else f"{rule.alpha:g}"
    warn = "off" if rule.warn_drop is None else f"{rule.warn_drop:g}"
    return (
        f"Gate: alpha {alpha}, max_drop {rule.max_drop:g}, warn_drop {warn}"
        f", max_error_rate {comparison.rules.max_error_rate:g}"
        + _built_in_rules(comparison)
        + (f", {len(comparison.rules.metrics)} metric rules" if comparison.rules.metrics else "")
        + "."
    )


def _built_in_rules(comparison: Comparison) -> str:
    """The built-in max_drop of a compared metric without a rule of its own
    (``hallucination_free`` 0), so the line does not claim the default max_drop for it."""
    compared = {metric.name for metric in comparison.metrics}
    return "".join(
        f", {name} max_drop {comparison.rules.rule_for(name).max_drop:g}"
        for name in METRIC_MAX_DROP
        if name in compared and name not in comparison.rules.metrics
    )
