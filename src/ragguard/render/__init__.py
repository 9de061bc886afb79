"""Rendering values as text: terminal tables, markdown through jinja2, JSON, and escaping.

``text`` holds the primitives (escaping, number formats, the jinja2 environment),
``report`` renders one results file, ``comparison`` renders a comparison (the PR comment,
the job summary, the terminal report and JSON).
"""

from ragguard.render.comparison import (
    COMMENT_LIMIT,
    CUT_NOTE,
    SUMMARY_LIMIT_BYTES,
    comment_length,
    comment_marker,
    comparison_json,
    comparison_terminal,
    comparison_to_dict,
    render_comment,
    render_summary,
)
from ragguard.render.report import explanation_text, json_report, markdown_report, terminal_report
from ragguard.render.text import environment, escape_markdown, fmt, printable

__all__ = [
    "COMMENT_LIMIT",
    "CUT_NOTE",
    "SUMMARY_LIMIT_BYTES",
    "comment_length",
    "comment_marker",
    "comparison_json",
    "comparison_terminal",
    "comparison_to_dict",
    "environment",
    "escape_markdown",
    "explanation_text",
    "fmt",
    "json_report",
    "markdown_report",
    "printable",
    "render_comment",
    "render_summary",
    "terminal_report",
]
