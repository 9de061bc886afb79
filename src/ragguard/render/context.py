"""The context a comparison template renders: every value of the comment and the job summary,
untrusted text already escaped, shown in as much detail as a :class:`Detail` asks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ragguard import __version__
from ragguard.compare import (
    ADDED,
    ERROR,
    FAILED_STATUSES,
    FIXED,
    INCOMPARABLE,
    NEWLY_FAILING,
    PASS,
    PASSING,
    REMOVED,
    STILL_FAILING,
    Comparison,
    MetricComparison,
    QuestionDiff,
    TagBreakdown,
)
from ragguard.render.agents import conversations_text, hop_context
from ragguard.render.costs import COST_HEADER, cost_rows
from ragguard.render.detail import CELL_WRAP, FIXED_SHOWN, TAG_COLUMNS, Detail
from ragguard.render.drafts import drafts_context
from ragguard.render.drift import drift_context
from ragguard.render.judge_cost import judge_cost_line
from ragguard.render.power import too_small_lines
from ragguard.render.questions import (
    failing_entries,
    failing_item,
    failing_questions,
    fails,
    question_title,
)
from ragguard.render.repeats import repeat_lines
from ragguard.render.text import (
    adjusted_note,
    code_name,
    escape_markdown,
    fmt,
    p_phrase,
    signed,
)
from ragguard.render.verdict import (
    VERDICT_ICONS,
    coverage_line,
    error_lines,
    headline,
    in_id_order,
    is_quiet,
    latency_line,
    latency_matters,
    metric_moved,
    ordered_reasons,
    provenance_line,
    reason_text,
    rules_line,
    verdict_icon,
    verdict_label,
)
from ragguard.results.model import STATUS_OK
from ragguard.testset.model import Question

MARKER_PREFIX = "<!-- ragguard:comment suite="
_MARKER_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def comment_marker(suite: str) -> str:
    """The hidden marker that finds this suite's sticky comment (suite reduced to safe chars)."""
    return f"{MARKER_PREFIX}{_MARKER_UNSAFE.sub('-', suite)[:100] or 'ragguard'} -->"


def delta_mark(value: float | None) -> str:
    """▲ up, ▼ down, = unchanged, with the signed delta."""
    if value is None:
        return "n/a"
    if round(value, 3) == 0:
        return "= 0.000"
    return f"{'▲' if value > 0 else '▼'} {signed(value)}"


def comparison_context(
    comparison: Comparison, detail: Detail, cut_note: str = "", drafts: Sequence[Question] = ()
) -> dict[str, Any]:
    """Everything a comparison template shows, untrusted text already escaped; ``drafts``
    are the head test set's drafted questions, which await review and were not evaluated."""
    quiet = detail.compact and is_quiet(comparison)
    metric_rows = [_metric_row(m, comparison) for m in comparison.metrics]
    shown_rows = [
        row
        for row, m in zip(metric_rows, comparison.metrics, strict=True)
        if quiet or not detail.compact or comparison.baseline_missing or metric_moved(m)
    ]
    return {
        "marker": comment_marker(comparison.suite),
        "suite": escape_markdown(comparison.suite, 100),
        "verdict": comparison.verdict,
        "verdict_label": verdict_label(comparison),
        "errors_count": comparison.head_errors,
        "icon": verdict_icon(comparison),
        "headline": headline(comparison, quiet),
        "coverage": coverage_line(comparison),
        "repeats": repeat_lines(comparison.repeats, lambda i: f"**{escape_markdown(i, 80)}**"),
        "baseline_errors": comparison.baseline_errors,
        "baseline_missing": comparison.baseline_missing,
        "compact": detail.compact,
        "quiet": quiet,
        "reasons": [
            f"{VERDICT_ICONS[r.tier]} {reason_text(r, comparison)}"
            for r in ordered_reasons(comparison)
        ],
        "metric_rows": shown_rows,
        "metric_rows_all": metric_rows if len(shown_rows) < len(metric_rows) else [],
        "floor_column": comparison.baseline_missing and _has_floors(comparison),
        "settings": [
            {
                "key": escape_markdown(d.key, 120, wrap=CELL_WRAP),
                "baseline": escape_markdown(d.baseline, 120, wrap=CELL_WRAP),
                "head": escape_markdown(d.head, 120, wrap=CELL_WRAP),
            }
            for d in comparison.setting_diffs
        ],
        "on_incomparable": comparison.rules.on_incomparable,
        "errors": error_lines(comparison),
        **_failing_context(comparison, detail),
        **_tag_context(comparison, detail),
        **hop_context(comparison.hops),
        **_fixed_context(comparison, detail),
        "still_failing_count": len(comparison.of_kind(STILL_FAILING)),
        "drift": drift_context(comparison, detail),
        "drafts": drafts_context(drafts, detail.drafts_shown),
        "latency": latency_line(comparison) if _show_latency(comparison, detail) else "",
        "cost_rows": cost_rows(comparison, detail.compact),
        "cost_header": COST_HEADER,
        "provenance": provenance_line(comparison),
        "footer": footer_line(comparison, detail),
        "judge_cost": judge_cost_line(comparison.judge, comparison.recheck_judge),
        "all_questions": [_question_row(q) for q in in_id_order(comparison.questions)]
        if detail.all_questions
        else [],
        "rules_line": rules_line(comparison),
        "cut_note": cut_note,
        "version": __version__,
    }


def _has_floors(comparison: Comparison) -> bool:
    return any(
        rule.min is not None or rule.warn_min is not None
        for rule in (comparison.rules.rule_for(m.name) for m in comparison.metrics)
    )


def _metric_row(metric: MetricComparison, comparison: Comparison) -> dict[str, str]:
    row = _metric_cells(metric, comparison)
    if comparison.verdict in (ERROR, INCOMPARABLE) and row["verdict"] != "–":
        row["verdict"] = "not gated"  # never shown as pass when the run is not trusted
    return row


def _metric_cells(metric: MetricComparison, comparison: Comparison) -> dict[str, str]:
    if metric.only_in is not None:
        note = f"only in the {metric.only_in}, not compared"
        if metric.only_in == "head" and comparison.baseline_missing:
            low, high = metric.head_interval or (None, None)
            note = "n/a" if low is None else f"[{fmt(low)}, {fmt(high)}]"
        value = metric.head if metric.only_in == "head" else metric.baseline
        return {
            "name": code_name(metric.name),
            "baseline": fmt(value) if metric.only_in == "baseline" else "–",
            "head": fmt(value) if metric.only_in == "head" else "–",
            "delta": "–",
            "stats": note,
            "verdict": _floor_verdict(metric, comparison)
            if comparison.baseline_missing
            else _verdict_cell(metric.verdict)
            if metric.only_in == "head"
            else "–",
        }
    stats = "n/a"
    if metric.p_value is not None:
        unchanged = metric.low == 0 and metric.high == 0 and round(metric.delta or 0, 3) == 0
        stats = (
            "–"
            if unchanged
            else f"[{signed(metric.low)}, {signed(metric.high)}] · {p_phrase(metric.p_value)}"
            + adjusted_note(metric.p_value, metric.p_adjusted)
        )
    return {
        "name": code_name(metric.name),
        "baseline": fmt(metric.baseline),
        "head": fmt(metric.head),
        "delta": delta_mark(metric.delta),
        "stats": stats,
        "verdict": _verdict_cell(metric.verdict),
    }


def _floor_verdict(metric: MetricComparison, comparison: Comparison) -> str:
    rule = comparison.rules.rule_for(metric.name)
    floors = [f"min {rule.min:g}"] if rule.min is not None else []
    floors += [f"warn_min {rule.warn_min:g}"] if rule.warn_min is not None else []
    if not floors:
        return "–"
    return f"{_verdict_cell(metric.verdict)} ({', '.join(floors)})"


def _verdict_cell(verdict: str) -> str:
    return f"{VERDICT_ICONS[verdict]} {verdict}"


def _failing_context(comparison: Comparison, detail: Detail) -> dict[str, Any]:
    failing = failing_questions(comparison)
    context: dict[str, Any] = {
        "failing_count": len(failing),
        "failing_critical": sum(1 for q in failing if q.critical),
        "failing_conversations": conversations_text(failing),
        "per_question_rule": ", ".join(
            f"{code_name(name)} ≥ {value:g}" for name, value in comparison.per_question_rule.items()
        ),
    }
    limit = detail.max_failing_with_why
    with_why = failing if limit is None else failing[:limit]
    listed_limit = detail.max_failing_listed
    listed = failing if listed_limit is None else failing[:listed_limit]
    context["failing_ids"] = [question_title(q) for q in listed[len(with_why) :]]
    context["failing_more"] = len(failing) - len(listed)
    if detail.compact:
        entries = failing_entries(with_why)
        entries_shown = entries[: detail.failing_shown]
        context["failing"] = [e.text for e in entries_shown]
        context["failing_collapsed"] = [e.text for e in entries[detail.failing_shown :]]
        context["failing_collapsed_questions"] = len(failing) - sum(
            e.questions for e in entries_shown
        )
    else:
        context["failing"] = [failing_item(q, detail.max_quotes) for q in with_why]
        context["failing_collapsed"] = []
        context["failing_collapsed_questions"] = 0
    return context


def _tag_context(comparison: Comparison, detail: Detail) -> dict[str, Any]:
    names = tag_metric_names(comparison, TAG_COLUMNS)
    moved = [t for t in comparison.tags if _tag_moved(t, names)]
    shown = moved if detail.max_tags is None else moved[: detail.max_tags]
    return {
        "tag_metrics": [code_name(name) for name in names],
        "tag_rows": [_tag_row(t, names, detail.compact) for t in shown] if names or moved else [],
        "tags_more": len(moved) - len(shown),
        "tags_unchanged": len(comparison.tags) - len(moved),
    }


def tag_metric_names(comparison: Comparison, limit: int) -> list[str]:
    """The per-tag columns: the metrics that failed or warned, then the others that moved,
    largest drop first, at most ``limit`` (so the table fits GitHub's comment column)."""
    moved = [m for m in comparison.metrics if m.delta is not None and metric_moved(m)]
    ranked = sorted(moved, key=lambda m: (m.verdict == PASS, m.delta or 0.0))
    return [m.name for m in ranked[:limit]]


def _tag_moved(tag: TagBreakdown, names: Sequence[str]) -> bool:
    return tag.newly_failing > 0 or any(
        round(m.delta, 3) != 0 for m in tag.metrics if m.name in names
    )


def _tag_row(tag: TagBreakdown, names: Sequence[str], compact: bool) -> dict[str, Any]:
    """A tag's cells: the change (the comment) or the value and its change (the summary);
    "=" unchanged, "–" no question of the tag has the metric."""
    by_name = {m.name: m for m in tag.metrics}
    cells = []
    for name in names:
        metric = by_name.get(name)
        if metric is None:
            cells.append("–")
        elif compact:
            cells.append("=" if round(metric.delta, 3) == 0 else signed(metric.delta))
        elif round(metric.delta, 3) == 0:
            cells.append(fmt(metric.head))
        else:
            cells.append(f"{fmt(metric.head)} ({signed(metric.delta)})")
    return {
        "tag": escape_markdown(tag.tag, 60, wrap=CELL_WRAP),
        "n": tag.n,
        "newly_failing": tag.newly_failing,
        "cells": cells,
    }


def _fixed_context(comparison: Comparison, detail: Detail) -> dict[str, Any]:
    fixed = in_id_order(comparison.of_kind(FIXED))
    listed = fixed if not detail.compact else fixed[:FIXED_SHOWN]
    return {
        "fixed": [question_title(q) for q in listed] if detail.fixed_list else [],
        "fixed_count": len(fixed),
        "fixed_more": len(fixed) - len(listed) if detail.fixed_list else 0,
    }


def _show_latency(comparison: Comparison, detail: Detail) -> bool:
    return not detail.compact or latency_matters(comparison)


def footer_line(comparison: Comparison, detail: Detail) -> str:
    """The small print: where the baseline came from, the rules in force, the version."""
    parts = [
        provenance_line(comparison),
        rules_line(comparison),
        *too_small_lines(comparison.power, lambda name: escape_markdown(name, 60)),
    ]
    still = len(comparison.of_kind(STILL_FAILING))
    if still:
        parts.append(
            f"{still} question{'s' if still != 1 else ''} fail{'s' if still == 1 else ''} in both runs."
        )
    if detail.compact:
        parts.append("Full report: the job summary of this run.")
    parts.append(f"ragguard {__version__}")
    return " ".join(part for part in parts if part)


def _question_row(question: QuestionDiff) -> list[str]:
    """A row of the table of every question: the change, and pass/fail (or the status of a
    question that could not be evaluated) on each side."""
    kind = question.kind.replace("_", " ")
    before, after = _OUTCOMES[question.kind]
    if question.kind == ADDED:
        after = "fail" if fails(question) else "pass"
    return [
        escape_markdown(question.id, 80, wrap=CELL_WRAP),
        kind + (" (relabelled)" if question.relabelled else ""),
        _outcome(question.baseline_status, before),
        _outcome(question.head_status, after),
    ]


_OUTCOMES = {
    NEWLY_FAILING: ("pass", "fail"),
    FIXED: ("fail", "pass"),
    STILL_FAILING: ("fail", "fail"),
    PASSING: ("pass", "pass"),
    ADDED: ("–", "pass"),
    REMOVED: ("–", "–"),
}


def _outcome(status: str | None, outcome: str) -> str:
    if status is None:
        return "–"
    if status in FAILED_STATUSES:
        return status
    return outcome if status == STATUS_OK else f"{outcome} ({status})"
