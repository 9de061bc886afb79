"""The PR comment and the job summary of a comparison, rendered through jinja2 templates.

The comment is cut to fit GitHub's size limit by dropping detail in a fixed order.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import jinja2

from ragguard.compare import Comparison
from ragguard.core.errors import InputError
from ragguard.render.context import comment_marker, comparison_context
from ragguard.render.detail import CUT_ORDER, FULL, SUMMARY_CUT_ORDER, Detail
from ragguard.render.text import environment, escape_markdown
from ragguard.render.verdict import verdict_icon, verdict_label
from ragguard.testset.model import Question

COMMENT_LIMIT = 65_536
# GitHub shows at most 1 MiB of job summary per step; ragguard's header and trend chart and
# other steps' lines share it, so the report keeps a margin.
SUMMARY_LIMIT_BYTES = 1_000_000
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
    comparison: Comparison,
    template: str | Path | None = None,
    limit: int = COMMENT_LIMIT,
    drafts: Sequence[Question] = (),
) -> str:
    """The PR comment, cut to fit ``limit`` by dropping detail in the fixed CUT_ORDER;
    ``drafts``: the head test set's drafted questions, listed as awaiting review."""
    loaded = _comparison_template(template, "comment.md.j2")
    for index, detail in enumerate(CUT_ORDER):
        text = _render(loaded, comparison, detail, CUT_NOTE if index else "", drafts)
        if comment_length(text) < limit:
            return text
    return _fallback_comment(comparison, limit)


def render_summary(
    comparison: Comparison,
    template: str | Path | None = None,
    limit: int | None = None,
    drafts: Sequence[Question] = (),
) -> str:
    """The job summary: the same report with every detail; with ``limit`` (UTF-8 bytes, as
    GitHub counts the summary), detail is dropped in CUT_ORDER until it fits."""
    loaded = _comparison_template(template, "summary.md.j2")
    full = _render(loaded, comparison, FULL, "", drafts)
    if limit is None or len(full.encode("utf-8")) < limit:
        return full
    for detail in SUMMARY_CUT_ORDER:
        text = _render(loaded, comparison, detail, SUMMARY_CUT_NOTE, drafts)
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
    template: jinja2.Template,
    comparison: Comparison,
    detail: Detail,
    cut_note: str,
    drafts: Sequence[Question] = (),
) -> str:
    try:
        text = template.render(**comparison_context(comparison, detail, cut_note, drafts))
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
