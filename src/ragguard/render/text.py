"""Text primitives for every output: number formats, markdown escaping, the jinja2
environment.

Everything that comes from the evaluated system or the test set is untrusted: markdown
output passes it through :func:`escape_markdown`, terminal output through :func:`printable`.
Terminal output is also the GitHub Actions log, where a line that starts with ``::`` (after
spaces) or holds ``##[`` is a workflow command; :func:`printable` breaks both forms, so an
answer cannot add a mask, set an output or fake an annotation (see SECURITY.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from ragguard.core.resources import templates_dir

if TYPE_CHECKING:
    from jinja2.sandbox import SandboxedEnvironment

# What GitHub's renderer (cmark-gfm) would read as markup: backslash-escaped where
# python-markdown also honours the escape; an entity where it does not (~ strikethrough,
# $ math, = a setext underline, the : of a "scheme://" autolink), so neither renderer
# shows a stray backslash. Other punctuation (: " ' { } ^) is plain text to both; "(" is
# escaped beside "]" so no "](" of a link survives even as text.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]()#+\-.!|~<>&@=$]|:(?=//))")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# The runner's two command forms: "::name ...::data" and the older "##[name ...]data".
_WORKFLOW_COMMAND = re.compile(r":(?=:)|#(?=#\[)")
ZERO_WIDTH_SPACE = "\u200b"
_SAFE_NAME = re.compile(r"[A-Za-z0-9_]+(@[0-9]+)?")
_GH_REFERENCE = re.compile(r"(?i)(?<![A-Za-z0-9])GH(?=\\-[0-9])")  # GH-123 links an issue


MINUS = "\u2212"


def fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}".replace("-", MINUS)


def signed(value: float | None, digits: int = 3) -> str:
    """+0.123 or −0.123 (U+2212, as every minus ragguard prints); 0.000 when it rounds to 0."""
    if value is None:
        return "n/a"
    if round(value, digits) == 0:
        return f"{0:.{digits}f}"
    return f"{value:+.{digits}f}".replace("-", MINUS)


def p_text(p_value: float | None) -> str:
    """A p-value in one format everywhere: three decimals, or "< 0.001"."""
    if p_value is None:
        return "n/a"
    return "< 0.001" if p_value < 0.0005 else f"{p_value:.3f}"


def p_phrase(p_value: float | None) -> str:
    """ "p = 0.031" or "p < 0.001"."""
    text = p_text(p_value)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def adjusted_note(p_value: float | None, p_adjusted: float | None) -> str:
    """ " (adjusted 0.094)": the family-adjusted p-value the gate decided with, beside the
    metric's own wherever a p-value is shown, when the adjustment moved it."""
    if p_adjusted is None or p_text(p_adjusted) == p_text(p_value):
        return ""
    return f" (adjusted {p_text(p_adjusted)})"


def milliseconds(value: float | None, sign: bool = False) -> str:
    """Whole milliseconds; with ``sign``, a change (+60 ms, −60 ms, 0 ms), in the unit that
    shows it when whole milliseconds would hide it (+0.004 ms, +3 µs)."""
    if value is None:
        return "n/a"
    if not sign:
        return f"{value:.0f} ms"
    if value != 0 and round(value) == 0:
        return ("+" if value > 0 else MINUS) + small_duration(abs(value) / 1000.0)
    return f"{signed(value, 0)} ms"


def small_duration(seconds: float) -> str:
    """A duration too small for its usual unit, in one that shows it: ``0.4 ms``, ``3 µs``."""
    ms = seconds * 1000.0
    return f"{ms:.2g} ms" if ms >= 0.01 else f"{seconds * 1e6:.2g} µs"


def duration(seconds: float) -> str:
    """``45s``, ``3m 20s``, ``1h 05m``: whole seconds at most."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def and_more(shown: Sequence[str], total: int) -> str:
    """``a, b, c and 7 more``: the items shown, and how many of ``total`` items are not."""
    rest = total - len(shown)
    return ", ".join(shown) + (f" and {rest} more" if rest > 0 else "")


def printable(text: str, limit: int = 200) -> str:
    """One line of untrusted text for a terminal or a CI log: control characters removed,
    workflow commands broken (:func:`no_workflow_commands`), cut at limit."""
    flat = no_workflow_commands(_CONTROL.sub("", " ".join(text.split())))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def no_workflow_commands(text: str) -> str:
    """``text`` with a zero-width space inside every ``::`` and ``##[``.

    The Actions runner reads a log line as a command when, after leading whitespace, it starts
    with ``::``, or when it contains ``##[`` anywhere; with both broken, this text cannot make
    a line ragguard logs into one (ragguard never writes a ``:`` or ``#`` right beside it).
    """
    return _WORKFLOW_COMMAND.sub(lambda m: m.group(0) + ZERO_WIDTH_SPACE, text)


def _long_runs(every: int) -> re.Pattern[str]:
    return re.compile(rf"\S{{{every + 1},}}")


def _split_run(run: str, every: int) -> str:
    return ZERO_WIDTH_SPACE.join(run[i : i + every] for i in range(0, len(run), every))


def escape_markdown(text: Any, limit: int = 300, wrap: int = 0) -> str:
    """Untrusted text as inert markdown: one line, every markup character escaped.

    Backslash escapes stop emphasis, links, images, headings, lists and ``www.`` autolinks,
    only for characters GitHub's renderer reads as markup and python-markdown also unescapes
    (no stray backslash under either); ``~``, ``$``, ``=`` and the ``:`` of ``scheme://``
    become entities (strikethrough, math, setext headings, URL autolinks); ``<`` and ``&``
    become entities so no HTML tag or comment (and so no fake marker) can
    open; ``|`` becomes an entity so no table row breaks; ``@``, ``#`` and the ``GH`` of
    ``GH-1`` are followed by a zero-width space so no mention notifies and no issue
    reference links. With ``wrap``, an unbroken run longer than that gets a zero-width space
    every ``wrap`` characters: for table cells, whose width is set by their longest word, so
    a long id or tag wraps instead of widening the table past GitHub's comment column.
    """
    flat = printable(str(text), limit)
    if wrap:
        flat = _long_runs(wrap).sub(lambda m: _split_run(m.group(0), wrap), flat)
    escaped = _MARKDOWN_SPECIAL.sub(lambda m: _ENTITY.get(m.group(1), "\\" + m.group(1)), flat)
    return _GH_REFERENCE.sub(lambda m: m.group(0) + ZERO_WIDTH_SPACE, escaped)


def code_name(name: str) -> str:
    """A metric name as a code span when it is a plain name, else escaped text."""
    return f"`{name}`" if _SAFE_NAME.fullmatch(name) else escape_markdown(name, 80)


def simple_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Rows of text cells under a header and a dashed rule, columns two spaces apart.

    The layout of tabulate's ``simple`` format with ``disable_numparse`` (cells left-aligned,
    a column at least two wider than its header, lines without trailing spaces), built here
    because importing tabulate costs a tenth of `ragguard score`'s start-up.
    """
    widths = [
        max([len(header) + 2, *(len(row[column]) for row in rows)])
        for column, header in enumerate(headers)
    ]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            cell.ljust(width) for cell, width in zip(cells, widths, strict=True)
        ).rstrip()

    return "\n".join(
        [line(headers), line(["-" * width for width in widths])] + [line(row) for row in rows]
    )


_ENTITY = {
    "<": "&lt;",
    ">": "&gt;",
    "&": "&amp;",
    "|": "&#124;",
    "@": "@\u200b",
    "#": "\\#\u200b",
    "~": "&#126;",
    "$": "&#36;",
    "=": "&#61;",
    ":": "&#58;",
}


@cache
def environment() -> SandboxedEnvironment:
    """The jinja2 environment: sandboxed, templates from the wheel or the source tree.

    jinja2 is imported here, on first use: the terminal table of `ragguard score` does not
    need it, and its import is a tenth of the command's start-up (benchmarks/startup.py).
    """
    import jinja2
    from jinja2.sandbox import SandboxedEnvironment

    env = SandboxedEnvironment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["md"] = escape_markdown
    env.filters["fmt"] = fmt
    return env
