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
    FAILED_STATUSES,
    FIXED,
    INCOMPARABLE,
    NEWLY_FAILING,
    PASSING,
    QUESTION_KINDS,
    REMOVED,
    STILL_FAILING,
    Comparison,
    MetricComparison,
    QuestionDiff,
    RankChange,
    Reason,
    TagBreakdown,
    Unlabelled,
)
from ragguard.errors import InputError
from ragguard.render.text import environment, escape_markdown, fmt, printable
from ragguard.results import SentenceVerdict

COMMENT_LIMIT = 65_536
# GitHub shows at most 1 MiB of job summary per step; ragguard's header and trend chart and
# other steps' lines share it, so the report keeps a margin.
SUMMARY_LIMIT_BYTES = 1_000_000
MARKER_PREFIX = "<!-- ragguard:comment suite="
VERDICT_ICONS = {"pass": "✅", "warn": "⚠️", "fail": "❌", "error": "🛑", "incomparable": "⛔"}
_SAFE_NAME = re.compile(r"[A-Za-z0-9_]+(@[0-9]+)?")
_MARKER_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def comment_marker(suite: str) -> str:
    """The hidden marker that finds this suite's sticky comment (suite reduced to safe chars)."""
    return f"{MARKER_PREFIX}{_MARKER_UNSAFE.sub('-', suite)[:100] or 'ragguard'} -->"


def code_name(name: str) -> str:
    """A metric name as a code span when it is a plain name, else escaped text."""
    return f"`{name}`" if _SAFE_NAME.fullmatch(name) else escape_markdown(name, 80)


def signed(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    if round(value, digits) == 0:
        return f"{0:.{digits}f}"
    return f"{value:+.{digits}f}".replace("-", "−")


def delta_mark(value: float | None) -> str:
    """▲ up, ▼ down, = unchanged, with the signed delta."""
    if value is None:
        return "n/a"
    if round(value, 3) == 0:
        return "= 0.000"
    return f"{'▲' if value > 0 else '▼'} {signed(value)}"


@dataclass(frozen=True, slots=True)
class Detail:
    """How much of the comparison a markdown report shows; the levels are dropped in order."""

    all_questions: bool = True
    fixed_list: bool = True
    drift_list: bool = True
    max_tags: int | None = None
    max_quotes: int | None = 3
    max_failing_with_why: int | None = None
    max_failing_listed: int | None = None


FULL = Detail(max_quotes=None)
CUT_ORDER = (
    Detail(),
    Detail(all_questions=False),
    Detail(all_questions=False, fixed_list=False, drift_list=False),
    Detail(all_questions=False, fixed_list=False, drift_list=False, max_tags=10, max_quotes=1),
    Detail(
        all_questions=False,
        fixed_list=False,
        drift_list=False,
        max_tags=5,
        max_quotes=1,
        max_failing_with_why=25,
        max_failing_listed=200,
    ),
    Detail(
        all_questions=False,
        fixed_list=False,
        drift_list=False,
        max_tags=0,
        max_quotes=0,
        max_failing_with_why=0,
        max_failing_listed=50,
    ),
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
    for detail in CUT_ORDER:
        text = _render(loaded, comparison, detail, SUMMARY_CUT_NOTE)
        if len(text.encode("utf-8")) < limit:
            return text
    return _fallback_comment(comparison, limit)


def _fallback_comment(comparison: Comparison, limit: int) -> str:
    lines = [
        comment_marker(comparison.suite),
        f"### {VERDICT_ICONS[comparison.verdict]} ragguard · "
        f"{escape_markdown(comparison.suite, 100)}: **{comparison.verdict}**",
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
    failing = _failing(comparison)
    with_why = (
        failing if detail.max_failing_with_why is None else failing[: detail.max_failing_with_why]
    )
    listed = failing if detail.max_failing_listed is None else failing[: detail.max_failing_listed]
    tags = comparison.tags if detail.max_tags is None else comparison.tags[: detail.max_tags]
    return {
        "marker": comment_marker(comparison.suite),
        "suite": escape_markdown(comparison.suite, 100),
        "verdict": comparison.verdict,
        "icon": VERDICT_ICONS[comparison.verdict],
        "headline": headline(comparison),
        "coverage": coverage_line(comparison),
        "baseline_errors": comparison.baseline_errors,
        "baseline_missing": comparison.baseline_missing,
        "reasons": [f"{VERDICT_ICONS[r.tier]} {reason_text(r)}" for r in comparison.reasons],
        "metric_rows": [_metric_row(m, comparison) for m in comparison.metrics],
        "settings": [
            {
                "key": escape_markdown(d.key, 120),
                "baseline": escape_markdown(d.baseline, 120),
                "head": escape_markdown(d.head, 120),
            }
            for d in comparison.setting_diffs
        ],
        "on_incomparable": comparison.rules.on_incomparable,
        "errors": [
            f"**{escape_markdown(q.id, 120)}** ({q.head_status}): "
            f"{escape_markdown(q.error or '', 300)}"
            for q in comparison.questions
            if q.head_status in FAILED_STATUSES
        ],
        "failing_count": len(failing),
        "failing": [_failing_item(q, detail.max_quotes) for q in with_why],
        "failing_ids": [_question_title(q) for q in listed[len(with_why) :]],
        "failing_more": len(failing) - len(listed),
        "per_question_rule": ", ".join(
            f"{code_name(name)} ≥ {value:g}" for name, value in comparison.per_question_rule.items()
        ),
        "tag_metrics": [code_name(name) for name in _tag_metric_names(comparison)],
        "tag_rows": [_tag_row(t, _tag_metric_names(comparison)) for t in tags],
        "tags_more": len(comparison.tags) - len(tags),
        "fixed": [_question_title(q) for q in comparison.of_kind(FIXED)]
        if detail.fixed_list
        else [],
        "fixed_count": len(comparison.of_kind(FIXED)),
        "still_failing_count": len(comparison.of_kind(STILL_FAILING)),
        "drift": _drift(comparison, detail.drift_list),
        "latency_rows": _latency_rows(comparison),
        "provenance": provenance_line(comparison),
        "all_questions": [_question_row(q) for q in comparison.questions]
        if detail.all_questions
        else [],
        "rules_line": rules_line(comparison),
        "cut_note": cut_note,
        "version": __version__,
    }


def _failing(comparison: Comparison) -> tuple[QuestionDiff, ...]:
    """Newly failing questions; without a baseline, the questions that fail the rule."""
    if comparison.baseline_missing:
        return tuple(q for q in comparison.of_kind(ADDED) if _fails(q))
    return comparison.of_kind(NEWLY_FAILING)


def _fails(question: QuestionDiff) -> bool:
    return bool(question.misses) or question.head_status in FAILED_STATUSES


def headline(comparison: Comparison) -> str:
    """The verdict line's explanation: the first reason, or what the pass covers."""
    if comparison.baseline_missing:
        return "no baseline yet; these are the head values"
    if comparison.reasons:
        first = reason_text(comparison.reasons[0])
        more = len(comparison.reasons) - 1
        return first + (f" (and {more} more)" if more else "")
    newly = len(comparison.of_kind(NEWLY_FAILING))
    if newly:
        return f"no gated metric regressed; {newly} question{'s' if newly != 1 else ''} newly fail"
    return "no regression"


def reason_text(reason: Reason) -> str:
    """ragguard's own words, after the escaped subject (a metric name or question id)."""
    if reason.subject is None:
        return reason.text
    return f"{code_name(reason.subject)}: {reason.text}"


def coverage_line(comparison: Comparison) -> str:
    if comparison.baseline_missing:
        return f"{comparison.n_head} questions evaluated."
    drift = ", ".join(
        f"{len(items)} {name}"
        for name, items in (
            ("added", comparison.of_kind(ADDED)),
            ("removed", comparison.of_kind(REMOVED)),
            ("relabelled", comparison.relabelled),
        )
    )
    return (
        f"Compared {comparison.n_paired} questions present in both runs "
        f"({comparison.n_head} in this run, {comparison.n_baseline} in the baseline; {drift})."
    )


def _metric_row(metric: MetricComparison, comparison: Comparison) -> dict[str, str]:
    row = _metric_cells(metric, comparison.baseline_missing)
    if comparison.verdict in (ERROR, INCOMPARABLE) and row["verdict"] != "–":
        row["verdict"] = "not gated"  # never shown as pass when the run is not trusted
    return row


def _metric_cells(metric: MetricComparison, baseline_missing: bool) -> dict[str, str]:
    if metric.only_in is not None:
        note = f"only in the {metric.only_in}, not compared"
        if metric.only_in == "head" and metric.head_interval and baseline_missing:
            low, high = metric.head_interval
            note = f"[{fmt(low)}, {fmt(high)}] (95% CI of the value)"
        value = metric.head if metric.only_in == "head" else metric.baseline
        return {
            "name": code_name(metric.name),
            "baseline": fmt(value) if metric.only_in == "baseline" else "–",
            "head": fmt(value) if metric.only_in == "head" else "–",
            "delta": "–",
            "stats": note,
            "verdict": _verdict_cell(metric.verdict) if metric.only_in == "head" else "–",
        }
    stats = "n/a"
    if metric.p_value is not None:
        stats = f"[{signed(metric.low)}, {signed(metric.high)}] · p = {metric.p_value:.3g}"
    return {
        "name": code_name(metric.name),
        "baseline": fmt(metric.baseline),
        "head": fmt(metric.head),
        "delta": delta_mark(metric.delta),
        "stats": stats,
        "verdict": _verdict_cell(metric.verdict),
    }


def _verdict_cell(verdict: str) -> str:
    return f"{VERDICT_ICONS[verdict]} {verdict}"


def _question_title(question: QuestionDiff) -> str:
    flags = " _(critical)_" if question.critical else ""
    tags = ", ".join(escape_markdown(tag, 40) for tag in question.tags)
    title = f"**{escape_markdown(question.id, 120)}**{flags}" + (f" · {tags}" if tags else "")
    return f"{title}: {escape_markdown(question.question, 200)}"


def _failing_item(question: QuestionDiff, max_quotes: int | None) -> dict[str, Any]:
    lines = []
    if question.head_status in FAILED_STATUSES:
        lines.append(
            f"{question.head_status}: {escape_markdown(question.error or 'no detail', 300)}"
        )
    if question.rank_change is not None:
        lines.append("retrieval: " + rank_change_text(question.rank_change))
    if question.unlabelled:
        lines.append(unlabelled_text(question.unlabelled))
    for miss in question.misses:
        before = "" if miss.baseline is None else f"{fmt(miss.baseline)} → "
        lines.append(
            f"{code_name(miss.metric)}: {before}{fmt(miss.head)} (needs ≥ {miss.threshold:g})"
        )
    sentences = question.hallucinated
    shown = sentences if max_quotes is None else sentences[:max_quotes]
    quotes = [_quote(s) for s in shown]
    if len(sentences) > len(shown):
        quotes.append(f"… and {len(sentences) - len(shown)} more unsupported sentences")
    return {"title": _question_title(question), "lines": lines, "quotes": quotes}


def rank_change_text(change: RankChange) -> str:
    """ "the relevant chunk X fell from rank 1 to out of the top 3", and its variants."""
    chunk = escape_markdown(change.chunk, 80)
    where = (
        f"out of the top {change.k} (not retrieved)"
        if change.head_rank is None
        else f"rank {change.head_rank}, out of the top {change.k}"
        if change.head_rank > change.k
        else f"rank {change.head_rank}"
    )
    if change.baseline_rank is None:
        return f"the relevant chunk {chunk} is at {where}"
    return f"the relevant chunk {chunk} fell from rank {change.baseline_rank} to {where}"


def unlabelled_text(unlabelled: Unlabelled, shown: int = 3) -> str:
    """The chunks newly in the top k that no label judges (maybe relevant, not labelled)."""
    chunks = unlabelled.chunks
    names = ", ".join(escape_markdown(chunk, 80) for chunk in chunks[:shown])
    more = f" and {len(chunks) - shown} more" if len(chunks) > shown else ""
    return (
        f"unlabelled, new in the top {unlabelled.k}: {names}{more} (if relevant, label "
        "them: the drop may be a better retriever)"
    )


def _quote(sentence: SentenceVerdict) -> str:
    parts = []
    if sentence.score is not None:
        parts.append(f"support {sentence.score:.2f}")
    parts.append(
        f"closest chunk: {escape_markdown(sentence.evidence, 80)}"
        if sentence.evidence
        else "no supporting chunk found"
    )
    note = getattr(sentence, "note", None)
    if note:
        parts.append(escape_markdown(note, 160))
    return f"unsupported: “{escape_markdown(sentence.text, 300)}” ({'; '.join(parts)})"


def _tag_metric_names(comparison: Comparison) -> list[str]:
    return [m.name for m in comparison.metrics if m.delta is not None]


def _tag_row(tag: TagBreakdown, names: Sequence[str]) -> dict[str, Any]:
    by_name = {m.name: m for m in tag.metrics}
    cells = [
        f"{fmt(by_name[n].head)} ({signed(by_name[n].delta)})" if n in by_name else "n/a"
        for n in names
    ]
    return {
        "tag": escape_markdown(tag.tag, 60),
        "n": tag.n,
        "newly_failing": tag.newly_failing,
        "cells": cells,
    }


def _drift(comparison: Comparison, show_lists: bool) -> dict[str, Any]:
    groups = {
        "added": comparison.of_kind(ADDED),
        "removed": comparison.of_kind(REMOVED),
        "relabelled": comparison.relabelled,
    }
    return {
        "any": any(groups.values()) and not comparison.baseline_missing,
        "counts": {name: len(items) for name, items in groups.items()},
        "lists": {
            name: [escape_markdown(q.id, 120) for q in items] if show_lists else []
            for name, items in groups.items()
        },
    }


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0f} ms"


def _latency_rows(comparison: Comparison) -> list[list[str]]:
    latency = comparison.latency
    rows = []
    for label, before, after in (
        ("p50", latency.baseline_p50, latency.head_p50),
        ("p95", latency.baseline_p95, latency.head_p95),
    ):
        if before is None and after is None:
            continue
        change = "n/a" if before is None or after is None else f"{after - before:+.0f} ms"
        rows.append([label, _ms(before), _ms(after), change])
    return rows


def provenance_line(comparison: Comparison) -> str:
    if comparison.baseline_missing:
        return ""
    p = comparison.provenance
    commit = escape_markdown(p.commit[:12], 12) if p.commit else "an unknown commit"
    parts = [f"Baseline: commit {commit}"]
    if p.branch:
        parts.append(f"on {escape_markdown(p.branch, 100)}")
    if p.created_at:
        parts.append(f"created {escape_markdown(p.created_at, 40)}")
    if p.age:
        parts.append(f"({escape_markdown(p.age, 40)} before this run)")
    head = (
        f"; this run: commit {escape_markdown(comparison.head_sha[:12], 12)}"
        if comparison.head_sha
        else ""
    )
    return " ".join(parts) + head + "."


def rules_line(comparison: Comparison) -> str:
    rule = comparison.rules.default
    alpha = "off" if rule.alpha is None else f"{rule.alpha:g}"
    warn = "off" if rule.warn_drop is None else f"{rule.warn_drop:g}"
    return (
        f"Gate: alpha {alpha}, max_drop {rule.max_drop:g}, warn_drop {warn}"
        f", max_error_rate {comparison.rules.max_error_rate:g}"
        + (f", {len(comparison.rules.metrics)} metric rules" if comparison.rules.metrics else "")
        + "."
    )


def _question_row(question: QuestionDiff) -> list[str]:
    kind = question.kind.replace("_", " ")
    if question.kind == ADDED:
        kind += ", failing" if _fails(question) else ", passing"
    return [
        escape_markdown(question.id, 80),
        kind + (" (relabelled)" if question.relabelled else ""),
        question.baseline_status or "–",
        question.head_status or "–",
    ]


def comparison_terminal(comparison: Comparison) -> str:
    """The plain-text report ``ragguard compare`` prints."""
    lines = [
        f"ragguard compare · suite {printable(comparison.suite)}: {comparison.verdict.upper()}",
        printable(coverage_line(comparison), 300),
        "",
    ]
    rows = [
        [
            printable(m.name, 40),
            fmt(m.baseline),
            fmt(m.head),
            signed(m.delta) if m.only_in is None else f"only in {m.only_in}",
            "" if m.low is None else f"[{signed(m.low)}, {signed(m.high)}]",
            "" if m.p_value is None else f"{m.p_value:.3g}",
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
    if comparison.reasons:
        lines.append("")
        for reason in comparison.reasons:
            subject = f"{printable(reason.subject, 80)}: " if reason.subject else ""
            lines.append(f"{reason.tier}: {subject}{reason.text}")
    for diff in comparison.setting_diffs:
        lines.append(
            f"  setting {printable(diff.key, 80)}: {printable(diff.baseline, 60)} -> "
            f"{printable(diff.head, 60)}"
        )
    failing = comparison.of_kind(NEWLY_FAILING)
    if failing and not comparison.baseline_missing:
        lines += ["", f"newly failing ({len(failing)}):"]
        for question in failing:
            lines.append(f"  {printable(question.id, 80)}: {printable(question.question, 100)}")
            if question.rank_change is not None:
                lines.append(f"    retrieval: {_plain_rank_change(question.rank_change)}")
            if question.unlabelled:
                unlabelled = question.unlabelled
                names = ", ".join(printable(chunk, 60) for chunk in unlabelled.chunks[:3])
                lines.append(f"    unlabelled, new in the top {unlabelled.k}: {names}")
            for sentence in question.hallucinated[:3]:
                lines.append(f"    unsupported: {printable(sentence.text, 120)}")
            if question.head_status in FAILED_STATUSES:
                lines.append(f"    {question.head_status}: {printable(question.error or '', 120)}")
    return "\n".join(lines) + "\n"


def _plain_rank_change(change: RankChange) -> str:
    chunk = printable(change.chunk, 60)
    before = f"rank {change.baseline_rank}" if change.baseline_rank else "not retrieved"
    after = f"rank {change.head_rank}" if change.head_rank else "not retrieved"
    return f"relevant chunk {chunk}: {before} -> {after} (top {change.k})"


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
        "question_changes": [asdict(q) for q in comparison.questions if q.kind != PASSING],
        "tags": [asdict(t) for t in comparison.tags],
        "latency_ms": asdict(comparison.latency),
        "baseline": asdict(comparison.provenance),
        "head_sha": comparison.head_sha,
        "incomparable_settings": [asdict(d) for d in comparison.setting_diffs],
        "gate": {
            "default": asdict(rules.default),
            "metrics": {name: asdict(rule) for name, rule in rules.metrics.items()},
            "max_error_rate": rules.max_error_rate,
            "on_incomparable": rules.on_incomparable,
            "critical_blocks": rules.critical_blocks,
        },
    }


def _metric_dict(metric: MetricComparison) -> dict[str, Any]:
    data = asdict(metric)
    data.pop("name")
    return data
