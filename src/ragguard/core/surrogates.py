"""Lone surrogates: halves of a UTF-16 surrogate pair (U+D800 to U+DFFF), which are not
characters.

JSON can write one as an escape (``"\\ud800"``), and Python's json module decodes it into a
str that no UTF-8 writer can write: results.json, run records, the reports and the terminal
would all fail on it later. So an input that holds one is refused where it is read
(docs/formats.md, "Decisions the formats leave open"): a file is an input error naming its
line, a live system's answer fails that question. Nothing is replaced.

Text decoded from UTF-8 bytes never holds a surrogate (the decoder refuses them), so in
JSON text only an escape can make one: :func:`lone_surrogate_escape` finds it.
:func:`surrogate_in` looks through a value that did not come from bytes (what a python
system returned).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# Text that may decode to a surrogate: a quick search, then the exact one.
MAY_HOLD_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
MAY_HOLD_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")
# An escaped backslash (skipped whole, so its second half never starts an escape), a valid
# pair (high then low), else a surrogate on its own: group 1, the lone one's four digits.
_ESCAPES = re.compile(
    r"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|\\u([dD][89a-fA-F][0-9a-fA-F]{2})"
)
SURROGATE = re.compile("[\ud800-\udfff]")
WHAT_TO_DO = "write the character itself or a valid surrogate pair"


class LoneSurrogate(ValueError):
    """JSON text whose string holds a lone surrogate escape; ``lineno`` and ``colno`` say
    where (counted in the text given, from 1, as :class:`json.JSONDecodeError`'s)."""

    def __init__(self, code: int, line: int, column: int) -> None:
        self.lineno = line
        self.colno = column
        super().__init__(
            f"lone surrogate {escaped(code)} in a string (column {column}); {WHAT_TO_DO}"
        )


def escaped(code: int) -> str:
    """``\\ud800``: a surrogate as the escape that wrote it, to show in a message."""
    return f"\\u{code:04x}"


def lone_surrogate_escape(text: str) -> LoneSurrogate | None:
    """The first escape in the JSON text ``text`` that decodes to a lone surrogate."""
    if MAY_HOLD_ESCAPE.search(text) is None:
        return None
    for match in _ESCAPES.finditer(text):
        if match.group(1):
            position = match.start()
            line = text.count("\n", 0, position) + 1
            column = position - text.rfind("\n", 0, position)
            return LoneSurrogate(int(match.group(1), 16), line, column)
    return None


def surrogate_in(value: Any, path: str = "") -> tuple[str, str] | None:
    """Where a value from outside (strings, mapping keys, lists and mappings of them) holds
    a surrogate: the path to it (``answer``, ``retrieved[0].text``) and its escape."""
    stack: list[tuple[str, Any]] = [(path, value)]
    seen: set[int] = set()
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            found = SURROGATE.search(item)
            if found:
                return where or "the value", escaped(ord(found.group()))
        elif isinstance(item, (Mapping, list, tuple)) and id(item) not in seen:
            seen.add(id(item))
            stack.extend(reversed(list(_children(where, item))))
    return None


def _children(where: str, item: Mapping[Any, Any] | list[Any] | tuple[Any, ...]) -> list[Any]:
    if not isinstance(item, Mapping):
        return [(f"{where}[{index}]", child) for index, child in enumerate(item)]
    children: list[tuple[str, Any]] = []
    for key, child in item.items():
        name = f"{where}.{key}" if where else str(key)
        if isinstance(key, str) and SURROGATE.search(key):
            children.append((f"{where or 'the value'} (a key)", key))
        else:
            children.append((name, child))
    return children


def escape_surrogates(text: str) -> str:
    """``text`` with each surrogate shown as its escape (``\\ud800``): for a message that
    quotes another program's words (a python system's exception), never for an input."""
    if SURROGATE.search(text) is None:
        return text
    return SURROGATE.sub(lambda found: escaped(ord(found.group())), text)
