"""Rendering values as text: terminal tables, markdown through jinja2, and escaping.

``text`` holds the primitives (escaping, number formats, the jinja2 environment),
``report`` renders one results file; a comparison renders as the PR comment and the job
summary (``comment``, from the template ``context`` at a level of ``detail``, in the words of
``verdict``) and as the terminal report (``terminal``). Its JSON form is compare's
(``ragguard.compare.serialise``).
"""

from importlib import import_module
from typing import Any

# Names load their module on first use (PEP 562): `ragguard score` needs the table, not
# the comparison's templates and gate machinery, and start-up time counts for a CLI.
_MODULES = {
    "COMMENT_LIMIT": "comment",
    "CUT_NOTE": "comment",
    "SUMMARY_LIMIT_BYTES": "comment",
    "comment_length": "comment",
    "comment_marker": "context",
    "comparison_terminal": "terminal",
    "render_comment": "comment",
    "render_summary": "comment",
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
    "comparison_terminal",
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
