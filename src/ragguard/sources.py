"""Reading input files: UTF-8 text, YAML with line numbers, JSON Lines, CSV.

Every failure becomes an :class:`InputError` naming the file and the line.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from ragguard.errors import InputError, Where


def read_text(path: str | Path, *, what: str = "file") -> str:
    """Read a UTF-8 text file (a BOM is allowed) that must exist and not be empty."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, f"{what} not found; check the path")
    if path.is_dir():
        raise InputError(path, f"is a directory, expected a {what}")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            path,
            f"not UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8",
            line=line,
        ) from None
    if not text.strip():
        raise InputError(path, f"{what} is empty")
    return text


class LineDict(dict):
    """A mapping from YAML that remembers its line and the line of each key."""

    line: int = 0
    key_lines: dict[str, int]

    def where(self, source: str | Path) -> Where:
        return Where(source, self.line, self.key_lines)


class LineList(list):
    """A sequence from YAML that remembers its line and the line of each item."""

    line: int = 0
    item_lines: list[int]


class _LineLoader(yaml.SafeLoader):
    """A safe loader whose mappings and sequences carry line numbers.

    Duplicate keys are an error (PyYAML would silently keep the last one).
    """


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    result = LineDict()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, (list, dict)):
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a scalar", key_node.start_mark
            )
        key_text = str(key)
        if key in result:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key_text!r}", key_node.start_mark
            )
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key_text] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> LineList:
    result = LineList(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def parse_yaml(text: str, source: str | Path) -> Any:
    """Parse YAML into LineDict/LineList values; syntax errors name the line."""
    try:
        return yaml.load(text, Loader=_LineLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise InputError(source, f"YAML syntax error: {problem}", line=line) from None
    except yaml.YAMLError as exc:
        raise InputError(source, f"YAML syntax error: {exc}") from None


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a valid number here")


def parse_json_value(text: str) -> Any:
    """Parse JSON, refusing NaN and Infinity (they would poison every mean)."""
    return json.loads(text, parse_constant=_reject_constant)


def iter_jsonl(text: str, source: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, value) for each non-blank line of a JSON Lines text."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, parse_json_value(line)
        except ValueError as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise InputError(source, f"invalid JSON: {reason}", line=number) from None


def iter_jsonl_objects(text: str, source: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Like :func:`iter_jsonl`, but every line must hold a JSON object."""
    for number, value in iter_jsonl(text, source):
        if not isinstance(value, dict):
            raise InputError(
                source,
                f"expected a JSON object on each line, found {type_name(value)}",
                line=number,
            )
        yield number, value


def iter_csv_rows(text: str, source: str | Path) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) for a CSV text with a header row."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not reader.fieldnames:
        raise InputError(source, "CSV has no header row", line=1)
    try:
        for row in reader:
            if None in row:
                raise InputError(source, "more fields than the header names", line=reader.line_num)
            if all(not (value or "").strip() for value in row.values()):
                continue
            yield reader.line_num, {k.strip(): (v or "") for k, v in row.items()}
    except csv.Error as exc:
        raise InputError(source, f"CSV syntax error: {exc}", line=reader.line_num) from None


def type_name(value: Any) -> str:
    """A user-facing name for the type of a parsed value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def is_finite_number(value: Any) -> bool:
    """True for an int or float that is not a bool, NaN or infinite."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
