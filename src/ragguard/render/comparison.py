"""Reports of a comparison: the PR comment, the job summary, the terminal report, JSON.

The comment is cut to fit GitHub's size limit by dropping detail in a fixed order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import jinja2
from tabulate import tabulate

from ragguard import __version__
from ragguard.compare import (
    ADDED,
    ERROR,
    FAIL,
    FAILED_STATUSES,
    FIXED,
    INCOMPARABLE,
    NEWLY_FAILING,
    PASS,
    PASSING,
    QUESTION_KINDS,
    REMOVED,
    STILL_FAILING,
    WARN,
    Comparison,
    MetricComparison,
    QuestionDiff,
    Reason,
    Repeats,
    TagBreakdown,
)
from ragguard.compare.detectable import Detectable
from ragguard.compare.questions import id_order
from ragguard.compare.verdict import evaluation_errors
from ragguard.core.errors import InputError
from ragguard.gate import METRIC_MAX_DROP
from ragguard.render.costs import cost_rows, cost_terminal_rows
from ragguard.render.power import too_small_lines
from ragguard.render.questions import (
    GROUP_IDS_SHOWN,
    errored_runs_text,
    failing_entries,
    failing_item,
    failing_questions,
    fails,
    one_line_why,
    plain_rank_change,
    question_title,
)
from ragguard.render.repeats import repeat_lines
from ragguard.render.text import (
    and_more,
    code_name,
    environment,
    escape_markdown,
    fmt,
    milliseconds,
    p_phrase,
    p_text,
    printable,
    signed,
)
from ragguard.results.model import STATUS_OK

COMMENT_LIMIT = 65_536
# GitHub shows at most 1 MiB of job summary per step; ragguard's header and trend chart and
# other steps' lines share it, so the report keeps a margin.
SUMMARY_LIMIT_BYTES = 1_000_000
MARKER_PREFIX = "<!-- ragguard:comment suite="
VERDICT_ICONS = {"pass": "✅", "warn": "⚠️", "fail": "❌", "error": "🛑", "incomparable": "⛔"}
NO_BASELINE_ICON = "ℹ️"  # a first run with nothing to compare is neither a pass nor a failure
# What the comment shows before folding the rest away (docs/compare.md, "The comment").
FAILING_SHOWN = 5
FIXED_SHOWN = 5
DRIFT_SHOWN = 10
TAGS_SHOWN = 8
TAG_COLUMNS = 4
CELL_WRAP = 24  # characters of an unbroken run in a table cell before a break is allowed
LATENCY_MIN_MS = 50.0
LATENCY_MIN_SHARE = 0.2
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


@dataclass(frozen=True, slots=True)
class Detail:
    """How much of the comparison a markdown report shows.

    ``compact`` is the comment's form: only what moved, the first few failing questions with
    the rest folded and repeated whys grouped. The other fields are the levels dropped, in
    CUT_ORDER, to fit a size limit.
    """

    compact: bool = True
    all_questions: bool = False
    fixed_list: bool = True
    drift_list: bool = True
    max_tags: int | None = TAGS_SHOWN
    max_quotes: int | None = 3
    failing_shown: int = FAILING_SHOWN
    max_failing_with_why: int | None = None
    max_failing_listed: int | None = None


FULL = Detail(compact=False, all_questions=True, max_tags=None, max_quotes=None)
CUT_ORDER = (
    Detail(),
    Detail(fixed_list=False, drift_list=False),
    Detail(fixed_list=False, drift_list=False, max_tags=5, max_failing_with_why=200),
    Detail(
        fixed_list=False,
        drift_list=False,
        max_tags=5,
        max_failing_with_why=25,
        max_failing_listed=200,
    ),
    Detail(
        fixed_list=False,
        drift_list=False,
        max_tags=0,
        max_failing_with_why=0,
        max_failing_listed=50,
    ),
)
SUMMARY_CUT_ORDER = (
    Detail(compact=False, all_questions=False, max_tags=None),
    *CUT_ORDER,
)
CUT_NOTE = (
    "Some detail was left out to keep this comment under GitHub's size limit; "
    "the full report is in the job summary of this run."
)
SUMMARY_CUT_NOTE = (
    "Some detail was left out to keep this summary under GitHub's 1 MiB limit; "
    "the full report is summary.md in the results folder (the action's results-dir)."
)


def comment_length(text: str) -> int:
    """Length as GitHub may count it (UTF-16 code units, never fewer than characters)."""
    return len(text.encode("utf-16-le")) // 2


def render_comment(
    comparison: Comparison, template: str | Path | None = None, limit: int = COMMENT_LIMIT
) -> str:
    """The PR comment, cut to fit ``limit`` by dropping detail in the fixed CUT_ORDER."""
    loaded = _comparison_template(template, "comment.md.j2")
    for index, detail in enumerate(CUT_ORDER):
        text = _render(loaded, comparison, detail, CUT_NOTE if index else "")
        if comment_length(text) < limit:
            return text
    return _fallback_comment(comparison, limit)


def render_summary(
    comparison: Comparison, template: str | Path | None = None, limit: int | None = None
) -> str:
    """The job summary: the same report with every detail; with ``limit`` (UTF-8 bytes, as
    GitHub counts the summary), detail is dropped in CUT_ORDER until it fits."""
    loaded = _comparison_template(template, "summary.md.j2")
    full = _render(loaded, comparison, FULL, "")
    if limit is None or len(full.encode("utf-8")) < limit:
        return full
    for detail in SUMMARY_CUT_ORDER:
        text = _render(loaded, comparison, detail, SUMMARY_CUT_NOTE)
        if len(text.encode("utf-8")) < limit:
            return text
    return _fallback_comment(comparison, limit)


def _fallback_comment(comparison: Comparison, limit: int) -> str:
    lines = [
        comment_marker(comparison.suite),
        f"### {verdict_icon(comparison)} ragguard · "
        f"{escape_markdown(comparison.suite, 100)}: **{verdict_label(comparison)}**",
        "",
        CUT_NOTE,
        "",
    ]
    text = "\n".join(lines)
    return text if comment_length(text) < limit else text[: limit // 2]


def _comparison_template(template: str | Path | None, default: str) -> jinja2.Template:
    if template is None:
        return environment().get_template(default)
    path = Path(template)
    if not path.is_file():
        raise InputError(path, "comment template not found; check the path")
    env = environment().overlay(
        loader=jinja2.ChoiceLoader(
            [jinja2.FileSystemLoader(str(path.parent)), environment().loader]  # type: ignore[list-item]
        )
    )
    try:
        return env.get_template(path.name)
    except jinja2.TemplateSyntaxError as exc:
        raise InputError(path, f"template syntax error: {exc.message}", line=exc.lineno) from None


def _render(
    template: jinja2.Template, comparison: Comparison, detail: Detail, cut_note: str
) -> str:
    try:
        text = template.render(**comparison_context(comparison, detail, cut_note))
    except jinja2.TemplateError as exc:
        raise InputError(template.filename or template.name or "template", str(exc)) from None
    marker = comment_marker(comparison.suite)
    if marker not in text:
        raise InputError(
            template.filename or template.name or "template",
            "the template does not write the hidden marker that finds this suite's comment; "
            'start it with {% extends "base.md.j2" %} or write {{ marker }}',
        )
    return text


def comparison_context(
    comparison: Comparison, detail: Detail, cut_note: str = ""
) -> dict[str, Any]:
    """Everything a comparison template shows, untrusted text already escaped."""
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
        **_fixed_context(comparison, detail),
        "still_failing_count": len(comparison.of_kind(STILL_FAILING)),
        "drift": _drift(comparison, detail),
        "latency": latency_line(comparison) if _show_latency(comparison, detail) else "",
        "cost_rows": cost_rows(comparison, detail.compact),
        "provenance": provenance_line(comparison),
        "footer": footer_line(comparison, detail),
        "all_questions": [_question_row(q) for q in _in_id_order(comparison.questions)]
        if detail.all_questions
        else [],
        "rules_line": rules_line(comparison),
        "cut_note": cut_note,
        "version": __version__,
    }


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


def _adjusted_note(metric: MetricComparison) -> str:
    """The p-value the gate decided with, when adjusting for the other gated metrics moved it."""
    if metric.p_adjusted is None or p_text(metric.p_adjusted) == p_text(metric.p_value):
        return ""
    return f" (adjusted {p_text(metric.p_adjusted)})"


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
        parts.append(_errors_phrase(comparison))
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
    return ", ".join(parts)


def _errors_phrase(comparison: Comparison) -> str:
    errors, total, unit = evaluation_errors(comparison)
    return f"{errors} of {total} {unit} could not be evaluated"


def _metric_counts(comparison: Comparison) -> list[str]:
    known = {m.name for m in comparison.metrics}
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
        and r.subject not in known
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
            + _adjusted_note(metric)
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
    fixed = _in_id_order(comparison.of_kind(FIXED))
    listed = fixed if not detail.compact else fixed[:FIXED_SHOWN]
    return {
        "fixed": [question_title(q) for q in listed] if detail.fixed_list else [],
        "fixed_count": len(fixed),
        "fixed_more": len(fixed) - len(listed) if detail.fixed_list else 0,
    }


def _in_id_order(questions: Sequence[QuestionDiff]) -> list[QuestionDiff]:
    return sorted(questions, key=lambda q: id_order(q.id))


def error_lines(comparison: Comparison) -> list[str]:
    """Questions that could not be evaluated, those with the same error grouped."""
    groups: dict[tuple[str, str], list[QuestionDiff]] = {}
    for question in _in_id_order(comparison.questions):
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


def _drift(comparison: Comparison, detail: Detail) -> dict[str, Any]:
    groups = {
        "added": _in_id_order(comparison.of_kind(ADDED)),
        "removed": _in_id_order(comparison.of_kind(REMOVED)),
        "relabelled": _in_id_order(comparison.relabelled),
    }
    limit = DRIFT_SHOWN if detail.compact else None
    lists = {}
    for name, items in groups.items():
        ids = [escape_markdown(q.id, 120) for q in items[:limit]] if detail.drift_list else []
        if detail.drift_list and len(items) > len(ids):
            ids.append(f"and {len(items) - len(ids)} more")
        lists[name] = ids
    return {
        "any": any(groups.values()) and not comparison.baseline_missing,
        "counts": {name: len(items) for name, items in groups.items()},
        "lists": lists,
    }


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


def _show_latency(comparison: Comparison, detail: Detail) -> bool:
    return not detail.compact or latency_matters(comparison)


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
        text += f" ({escape_markdown(p.age, 40)} before this run)"
    if comparison.head_sha:
        text += f"; this run: commit {escape_markdown(comparison.head_sha[:12], 12)}"
    return text + "."


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


def comparison_terminal(comparison: Comparison) -> str:
    """The plain-text report ``ragguard compare`` prints."""
    lines = [
        f"ragguard compare · suite {printable(comparison.suite)}: {comparison.verdict.upper()}"
        + (" (no baseline yet)" if comparison.baseline_missing else ""),
        printable(coverage_line(comparison), 300),
        *repeat_lines(comparison.repeats, lambda i: printable(i, 80)),
        "",
    ]
    rows = [
        [
            printable(m.name, 40),
            fmt(m.baseline),
            fmt(m.head),
            signed(m.delta) if m.only_in is None else f"only in {m.only_in}",
            "" if m.low is None else f"[{signed(m.low)}, {signed(m.high)}]",
            "" if m.p_value is None else p_text(m.p_value),
            m.verdict,
        ]
        for m in comparison.metrics
    ]
    lines.append(
        tabulate(
            rows,
            headers=["metric", "baseline", "head", "delta", "95% CI", "p", "verdict"],
            tablefmt="simple",
            disable_numparse=True,
        )
    )
    if comparison.costs:
        headers = ["per answer (lower is better)", "baseline", "head", "change", "p", "budget"]
        lines += [
            "",
            tabulate(
                cost_terminal_rows(comparison),
                headers=headers,
                tablefmt="simple",
                disable_numparse=True,
            ),
        ]
    if comparison.reasons:
        lines.append("")
        for reason in ordered_reasons(comparison):
            subject = f"{printable(reason.subject, 80)}: " if reason.subject else ""
            lines.append(f"{reason.tier}: {subject}{reason.text}")
    for diff in comparison.setting_diffs:
        lines.append(
            f"  setting {printable(diff.key, 80)}: {printable(diff.baseline, 60)} -> "
            f"{printable(diff.head, 60)}"
        )
    too_small = too_small_lines(comparison.power, lambda name: printable(name, 40))
    if too_small:
        lines += ["", *too_small]
    failing = failing_questions(comparison)
    if failing and not comparison.baseline_missing:
        lines += ["", f"newly failing ({len(failing)}):"]
        for question in failing:
            critical = " (critical)" if question.critical else ""
            if question.decided_by is not None:
                critical += f" ({question.decided_by.line()})"
            lines.append(
                f"  {printable(question.id, 80)}{critical}: {printable(question.question, 100)}"
            )
            if question.rank_change is not None:
                lines.append(f"    retrieval: {plain_rank_change(question.rank_change)}")
            if question.unlabelled:
                unlabelled = question.unlabelled
                names = ", ".join(printable(chunk, 60) for chunk in unlabelled.chunks[:3])
                lines.append(f"    unlabelled, new in the top {unlabelled.k}: {names}")
            for sentence in question.hallucinated[:3]:
                lines.append(f"    unsupported: {printable(sentence.text, 120)}")
            if question.head_status in FAILED_STATUSES:
                lines.append(f"    {question.head_status}: {printable(question.error or '', 120)}")
            elif errored_runs_text(question):
                lines.append(f"    {printable(errored_runs_text(question), 160)}")
    return "\n".join(lines) + "\n"


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
        "question_changes": [_question_dict(q) for q in comparison.questions if q.kind != PASSING],
        "tags": [asdict(t) for t in comparison.tags],
        "latency_ms": asdict(comparison.latency),
        "costs": {m.name: {**_metric_dict(m), "lower_is_better": True} for m in comparison.costs},
        "baseline": asdict(comparison.provenance),
        "head_sha": comparison.head_sha,
        "incomparable_settings": [asdict(d) for d in comparison.setting_diffs],
        "power": {found.metric: _power_dict(found) for found in comparison.power},
        **({"repeats": _repeats_dict(comparison.repeats)} if comparison.repeats else {}),
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


def _question_dict(question: QuestionDiff) -> dict[str, Any]:
    """A question's change; the run tallies only for a side that asked it more than once
    (the JSON of unrepeated results is as before repeats existed)."""
    data = asdict(question)
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
