"""Reading input files: UTF-8 text, YAML with line numbers, JSON Lines, CSV.

Every failure becomes an :class:`InputError` naming the file and the line.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import math
from collections.abc import Iterator, Sequence
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
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read the {what}: {exc.strerror or exc}") from None
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
        raise InputError(
            path, f"{what} is empty (or only whitespace); check the path or fill it in"
        )
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


class _LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """A safe loader whose mappings and sequences carry line numbers.

    Built on libyaml's parser when PyYAML has it (about four times faster on a large test
    set). Duplicate keys are an error (PyYAML would silently keep the last one).
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
        problem = _yaml_problem(exc, text)
        raise InputError(source, f"YAML syntax error: {problem}", line=line) from None
    except yaml.reader.ReaderError as exc:
        line = text[: exc.position].count("\n") + 1
        raise InputError(
            source,
            f"character {exc.character!r} is not allowed in YAML; remove it",
            line=line,
        ) from None
    except yaml.YAMLError as exc:
        raise InputError(source, f"YAML syntax error: {exc}") from None


def _yaml_problem(exc: yaml.MarkedYAMLError, text: str) -> str:
    """PyYAML's problem, with where the unclosed construct began and a hint for tabs."""
    problem = exc.problem or exc.context or "invalid YAML"
    context, mark = exc.context_mark, exc.problem_mark
    if exc.problem and exc.context and context and mark and context.line < mark.line:
        problem += f" ({exc.context} that starts at line {context.line + 1})"
    if mark and "\t" in _line_at(text, mark.line)[: mark.column + 1]:
        problem += "; indent with spaces, not tabs"
    return problem


def _line_at(text: str, index: int) -> str:
    lines = text.splitlines()
    return lines[index] if 0 <= index < len(lines) else ""


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a valid number here; write a number or null")


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r} in one object; keep one")
        result[key] = value
    return result


def parse_json_value(text: str) -> Any:
    """Parse JSON, refusing NaN, Infinity (they would poison every mean) and repeated keys."""
    return json.loads(
        text, parse_constant=_reject_constant, object_pairs_hook=_refuse_duplicate_keys
    )


def iter_jsonl(text: str, source: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, value) for each non-blank line of a JSON Lines text."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, parse_json_value(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                source,
                f"invalid JSON: {exc.msg} (column {exc.colno}); "
                "each line must hold one complete JSON value",
                line=number,
            ) from None
        except ValueError as exc:
            raise InputError(source, f"invalid JSON: {exc}", line=number) from None


def iter_jsonl_objects(text: str, source: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Like :func:`iter_jsonl`, but every line must hold a JSON object."""
    for number, value in iter_jsonl(text, source):
        if not isinstance(value, dict):
            raise InputError(
                source,
                f"expected a JSON object ({{...}}) on each line, found {type_name(value)}",
                line=number,
            )
        yield number, value


def iter_csv_rows(text: str, source: str | Path) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) for a CSV text with a header row.

    The line number is where the row starts (a quoted field may span lines). Blank rows are
    skipped; missing trailing fields are empty strings.
    """
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [name.strip() for name in next(reader, [])]
        _check_csv_header(header, source)
        end_of_previous = reader.line_num
        for fields in reader:
            start, end_of_previous = end_of_previous + 1, reader.line_num
            if not any(value.strip() for value in fields):
                continue
            if len(fields) > len(header):
                raise InputError(
                    source,
                    f"{len(fields)} fields but the header names {len(header)}; "
                    "quote values that contain a comma",
                    line=start,
                )
            values = fields + [""] * (len(header) - len(fields))
            yield start, dict(zip(header, values, strict=True))
    except csv.Error as exc:
        raise InputError(source, f"CSV syntax error: {exc}", line=reader.line_num or None) from None


def _check_csv_header(header: list[str], source: str | Path) -> None:
    if not any(header):
        raise InputError(source, "CSV has no header row; the first line names the columns", line=1)
    for index, name in enumerate(header):
        if not name:
            raise InputError(
                source,
                f"column {index + 1} has no name in the header row; name it or remove it",
                line=1,
            )
        if name in header[:index]:
            raise InputError(source, f"column {name!r} appears twice in the header", line=1)


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


def unknown_key_message(key: Any, allowed: Sequence[str]) -> str:
    """'unknown key; did you mean ...? allowed keys: ...' for a key that is not allowed."""
    close = difflib.get_close_matches(str(key), allowed, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown key; {hint}allowed keys: {', '.join(allowed)}"


def shown(value: Any) -> str:
    """A parsed value as the user wrote it in YAML or JSON (``true``, ``null``, ``"high"``)."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return repr(value)


def is_finite_number(value: Any) -> bool:
    """True for an int or float that is not a bool, NaN or infinite."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def span_of(value: Any, first: int) -> tuple[int, int] | None:
    """``[start, end]`` as a pair of whole numbers with ``first <= start <= end``, else None
    (the callers say what the span is in their one-line error)."""
    ok = (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        and first <= value[0] <= value[1]
    )
    return (value[0], value[1]) if ok else None
