"""Text primitives for every output: number formats, markdown escaping, the jinja2
environment.

Everything that comes from the evaluated system or the test set is untrusted: markdown
output passes it through :func:`escape_markdown`, terminal output through :func:`printable`.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from ragguard.resources import templates_dir

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>&@:=\"'$^])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def printable(text: str, limit: int = 200) -> str:
    """One line of untrusted text for a terminal: control characters removed, cut at limit."""
    flat = _CONTROL.sub("", " ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def escape_markdown(text: Any, limit: int = 300) -> str:
    """Untrusted text as inert markdown: one line, every markup character escaped.

    Backslash escapes stop emphasis, links, images, headings, tables and autolinks;
    ``<`` and ``&`` become entities so no HTML tag or comment (and so no fake marker) can
    open; ``|`` becomes an entity so no table row breaks; ``@`` and ``#`` are followed by a
    zero-width space so no mention notifies and no issue reference links.
    """
    flat = printable(str(text), limit)
    return _MARKDOWN_SPECIAL.sub(lambda m: _ENTITY.get(m.group(1), "\\" + m.group(1)), flat)


_ENTITY = {
    "<": "&lt;",
    ">": "&gt;",
    "&": "&amp;",
    "|": "&#124;",
    "@": "@\u200b",
    "#": "\\#\u200b",
}


@cache
def environment() -> SandboxedEnvironment:
    """The jinja2 environment: sandboxed, templates from the wheel or the source tree."""
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
