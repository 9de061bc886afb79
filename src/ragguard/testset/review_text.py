"""A YAML test set edited as text, one entry at a time (``ragguard testset review``).

Accepting a draft turns its ``status: draft`` into ``status: reviewed``; rejecting removes
its lines; an edit replaces its lines with the reviewer's. Every other byte of the file
(comments, order, quoting, blank lines) is kept. Each edit is checked by parsing the result:
the entries must be what the edit meant (the others unchanged), or the file is not touched
and the reviewer is told to make the change by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragguard.core.errors import InputError
from ragguard.core.yaml_lines import LineDict, LineList, parse_yaml
from ragguard.testset.load import yaml_entries
from ragguard.testset.model import DRAFT, REVIEWED

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_DRAFT_VALUE = re.compile(r"""(?<![\w-])(status["']?\s*:\s*)(["']?)draft\2""")
UNUSUAL = "its layout is unusual for a text edit; make the change by hand"


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of the test set's list: its lines ``[start, end)`` (0-based), the column of
    its ``-``, the line of its ``status`` key (0-based; None when not written), and its
    parsed value."""

    index: int
    start: int
    end: int
    indent: int
    status_line: int | None
    value: Any

    @property
    def is_draft(self) -> bool:
        return isinstance(self.value, dict) and self.value.get("status") == DRAFT


def text_lines(text: str) -> list[str]:
    """The lines of ``text`` with their line ends, so that joining them gives it back."""
    return _LINE.findall(text)


def list_entries(text: str, source: str | Path) -> list[Entry]:
    """Every entry of the YAML test set ``text`` with where its lines are."""
    data = yaml_entries(text, source)
    lines = text_lines(text)
    starts = [line - 1 for line in data.item_lines]
    entries = []
    for index, value in enumerate(data):
        start = starts[index]
        limit = starts[index + 1] if index + 1 < len(starts) else len(lines)
        indent = _dash_column(lines, start, source)
        end = _entry_end(lines, start, limit, indent)
        status = value.key_lines.get("status") if isinstance(value, LineDict) else None
        entries.append(Entry(index, start, end, indent, status - 1 if status else None, value))
    return entries


def drafts_in(entries: list[Entry]) -> list[Entry]:
    return [entry for entry in entries if entry.is_draft]


def _dash_column(lines: list[str], start: int, source: str | Path) -> int:
    """The column of the entry's ``-``, which must begin its line (a block list)."""
    line = lines[start]
    stripped = line.lstrip(" ")
    if not stripped.startswith("-"):
        raise InputError(source, f"the entry at line {start + 1}: {UNUSUAL}", line=start + 1)
    return len(line) - len(stripped)


def _entry_end(lines: list[str], start: int, limit: int, indent: int) -> int:
    """One past the entry's last line: the last line before ``limit`` indented deeper than
    its ``-`` that is neither blank nor a comment (those before the next entry are its)."""
    end = start + 1
    for number in range(start + 1, limit):
        line = lines[number]
        body = line.strip()
        column = len(line) - len(line.lstrip(" "))
        if not body or body.startswith("#"):
            continue
        if column <= indent:
            break
        end = number + 1
    return end


def accepted(text: str, entry: Entry, source: str | Path) -> str:
    """``text`` with the entry's ``status: draft`` turned into ``status: reviewed``."""
    lines = text_lines(text)
    if entry.status_line is None:
        raise InputError(source, f"the entry at line {entry.start + 1} has no status to change")
    line = lines[entry.status_line]
    changed, count = _DRAFT_VALUE.subn(rf"\g<1>\g<2>{REVIEWED}\g<2>", line, count=1)
    if not count:
        raise InputError(source, f"status: {UNUSUAL}", line=entry.status_line + 1)
    lines[entry.status_line] = changed
    result = "".join(lines)
    expected = _entries_of(text, source)
    expected[entry.index] = {**expected[entry.index], "status": REVIEWED}
    return _checked(result, expected, entry, source)


def rejected(text: str, entry: Entry, source: str | Path) -> str:
    """``text`` without the entry's lines (and the blank lines after them)."""
    lines = text_lines(text)
    end = entry.end
    while end < len(lines) and not lines[end].strip():
        end += 1
    result = "".join(lines[: entry.start] + lines[end:])
    expected = _entries_of(text, source)
    del expected[entry.index]
    if not expected:
        raise InputError(
            source, "rejecting its last question would leave the test set empty; delete the file"
        )
    return _checked(result, expected, entry, source)


def entry_text(text: str, entry: Entry) -> str:
    """The entry's lines as a YAML document of its own (its indentation taken off)."""
    lines = text_lines(text)[entry.start : entry.end]
    return "".join(_dedent(line, entry.indent) for line in lines)


def replaced(text: str, entry: Entry, edited: str, source: str | Path) -> str:
    """``text`` with the entry's lines replaced by ``edited``, a one-entry YAML list as
    :func:`entry_text` gives it; the edited entry must parse as that list."""
    value = parse_yaml(edited, source)
    if not isinstance(value, LineList) or len(value) != 1:
        raise InputError(
            source, "the edit must stay one list item, starting with '- ' (one question)"
        )
    lines = text_lines(text)
    body = edited if edited.endswith(("\n", "\r")) else edited + _line_end(lines)
    pad = " " * entry.indent
    new = [pad + line if line.strip() else line for line in text_lines(body)]
    result = "".join(lines[: entry.start] + new + lines[entry.end :])
    expected = _entries_of(text, source)
    expected[entry.index] = _plain(value[0])
    return _checked(result, expected, entry, source)


def _dedent(line: str, indent: int) -> str:
    head = line[:indent]
    return line[indent:] if head == " " * len(head) else line.lstrip(" ")


def _line_end(lines: list[str]) -> str:
    first = lines[0] if lines else "\n"
    return "\r\n" if first.endswith("\r\n") else "\r" if first.endswith("\r") else "\n"


def _entries_of(text: str, source: str | Path) -> list[Any]:
    return [_plain(value) for value in yaml_entries(text, source)]


def _plain(value: Any) -> Any:
    """A parsed value without line numbers, to compare two parses."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _checked(result: str, expected: list[Any], entry: Entry, source: str | Path) -> str:
    """``result``, when it parses to the ``expected`` entries; else the edit is refused."""
    try:
        parsed = _entries_of(result, source)
    except InputError:
        parsed = None
    if parsed != expected:
        raise InputError(source, f"the entry at line {entry.start + 1}: {UNUSUAL}")
    return result
