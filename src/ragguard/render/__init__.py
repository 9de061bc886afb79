"""Rendering values as text: terminal tables, markdown through jinja2, JSON, and escaping.

``text`` holds the primitives (escaping, number formats, the jinja2 environment),
``report`` renders one results file, ``comparison`` renders a comparison (the PR comment,
the job summary, the terminal report and JSON).
"""

from importlib import import_module
from typing import Any

# Names load their module on first use (PEP 562): `ragguard score` needs the table, not
# the comparison's templates and gate machinery, and start-up time counts for a CLI.
_MODULES = {
    "COMMENT_LIMIT": "comparison",
    "CUT_NOTE": "comparison",
    "SUMMARY_LIMIT_BYTES": "comparison",
    "comment_length": "comparison",
    "comment_marker": "comparison",
    "comparison_json": "comparison",
    "comparison_terminal": "comparison",
    "comparison_to_dict": "comparison",
    "render_comment": "comparison",
    "render_summary": "comparison",
    "explanation_text": "report",
    "json_report": "report",
    "markdown_report": "report",
    "terminal_report": "report",
    "environment": "text",
    "escape_markdown": "text",
    "fmt": "text",
    "printable": "text",
}


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"ragguard.render.{_MODULES[name]}"), name)


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
