"""YAML with line numbers: mappings and sequences that remember where they were written.

:func:`parse_yaml` reads a YAML text into :class:`LineDict` and :class:`LineList` values, so
an error about a value names its line; syntax errors, duplicate keys and alias bombs are
refused with the line when known. A number keeps the text it was written as
(:func:`number_as_written`), so a value that is an id reads as written: ``007`` is "007",
not 7 (YAML 1.1 also reads ``0x1F``, ``1_000`` and ``1:30`` as numbers).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import TOO_DEEP, number_problem


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


class WrittenInt(int):
    """An integer YAML read from a plain scalar written otherwise than its digits
    (``007``, ``+7``, ``0x1F``, ``1_000``, ``1:30``); ``written`` is that text."""

    written: str


class WrittenFloat(float):
    """A float YAML read from a plain scalar; ``written`` is its text (``1.50``, ``1e3``)."""

    written: str


def number_as_written(value: Any) -> str | None:
    """A number's text as the user wrote it, for a value that is an id: a YAML number's own
    text, an integer's digits (a plain ``7`` in YAML, any integer in JSON); None for anything
    else, a float from JSON included (its text is lost: ``1e3`` would come back as
    ``1000.0``)."""
    if isinstance(value, bool):
        return None
    written = getattr(value, "written", None)
    if isinstance(written, str):
        return written
    return str(value) if isinstance(value, int) else None


def id_as_written(value: Any) -> str | None:
    """A value that is an id, as text: a string as it is, a number as it was written
    (:func:`number_as_written`); None for anything else."""
    return value if isinstance(value, str) else number_as_written(value)


class _TooManyDigits(ValueError):
    """An integer over Python's 4,300-digit limit, and the line it is written on."""

    def __init__(self, exc: ValueError, line: int) -> None:
        super().__init__(str(exc))
        self.line = line


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
            written = number_as_written(key) or key_text  # 007 after 7: one number for YAML
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {written!r}", key_node.start_mark
            )
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key_text] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> LineList:
    result = LineList(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


def _construct_int(loader: _LineLoader, node: yaml.ScalarNode) -> int:
    """PyYAML's integer, keeping its text when written otherwise than its digits; one of
    thousands of digits is refused with its line (Python will not read it)."""
    try:
        value = yaml.SafeLoader.construct_yaml_int(loader, node)
    except ValueError as exc:
        raise _TooManyDigits(exc, node.start_mark.line + 1) from None
    if not node.style and str(value) != node.value:
        written = WrittenInt(value)
        written.written = node.value
        return written
    return value


def _construct_float(loader: _LineLoader, node: yaml.ScalarNode) -> float:
    """PyYAML's float, with its text when written plain (a float's text is never its
    digits alone, and ``1.50`` or ``1e3`` would not read back as written)."""
    value = yaml.SafeLoader.construct_yaml_float(loader, node)
    if node.style:
        return value
    written = WrittenFloat(value)
    written.written = node.value
    return written


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
_LineLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_LineLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)


def parse_yaml(text: str, source: str | Path) -> Any:
    """Parse YAML into LineDict/LineList values; syntax errors name the line.

    Aliases that would expand it far beyond its distinct values (a "billion laughs",
    :func:`_check_expansion`) and nesting deeper than Python can follow are refused.
    """
    try:
        data = yaml.load(text, Loader=_LineLoader)
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
    except RecursionError:
        raise InputError(source, TOO_DEEP) from None
    except _TooManyDigits as exc:
        raise InputError(source, number_problem(exc), line=exc.line) from None
    if "&" in text and "*" in text:  # only anchors and aliases share values
        _check_expansion(data, source)
    return data


MIN_YAML_EXPANSION = 100_000
YAML_EXPANSION_FACTOR = 100


def _check_expansion(data: Any, source: str | Path) -> None:
    """Refuse a document whose aliases repeat shared values without bound ("billion laughs").

    A YAML alias makes two places hold the same object; code that walks the value (a body
    template filled for every question) visits it once per place. A document may expand to
    YAML_EXPANSION_FACTOR times its distinct values (at least MIN_YAML_EXPANSION): ordinary
    reuse of an anchor stays far below that, an alias bomb goes past it within a few levels.
    """
    limit = max(MIN_YAML_EXPANSION, YAML_EXPANSION_FACTOR * _distinct_values(data))
    if expands_beyond(data, limit):
        line = getattr(data, "line", None)
        raise InputError(
            source,
            f"YAML aliases (*name) expand it to over {limit:,} values; write the values out "
            "instead of repeating aliases of aliases",
            line=line or None,
        )


def _distinct_values(data: Any) -> int:
    seen: set[int] = set()
    pending = [data]
    while pending:
        value = pending.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return len(seen)


def expands_beyond(data: Any, limit: int) -> bool:
    """Whether walking ``data`` (each shared value once per place) visits over ``limit``
    values; stops as soon as it does, so a billion-value alias bomb costs ``limit`` steps."""
    budget = limit
    pending = [data]
    while pending:
        value = pending.pop()
        budget -= 1
        if budget < 0:
            return True
        if isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return False


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
