"""Typed reads of ragguard.yml's sections, each error one line: ``FILE:LINE: KEY: message``.

Every section (suite, system, gate, generation, ci) reads its values through one
:class:`Reader`. An error names the file, the dotted key (``gate.metrics.mrr.max_drop``) and
the line of that key in the parsed mapping (:class:`~ragguard.core.yaml_lines.LineDict`). Where
the mapping does not know the key's line (the key is missing, or the section was written as a
method name), the reader falls back to one of two places, chosen per section:

* the mapping's own line (the default: suite, system, gate, ci);
* the line of the section's key in the file (``outer``: the generation sections, where
  ``faithfulness: judgee`` is reported on the ``faithfulness:`` line).

Each section keeps its own wording where two used to differ: an unknown key lists the
``allowed`` keys (gate, generation) or the ``allowed keys`` (suite, ci).
"""

from __future__ import annotations

import datetime
import difflib
import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import is_finite_number, shown, type_name
from ragguard.core.yaml_lines import LineDict

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min)?\s*$")
_UNIT_SECONDS = {None: 1.0, "s": 1.0, "ms": 0.001, "m": 60.0, "min": 60.0}
_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")


def parse_duration(value: Any) -> float | None:
    """Seconds from ``30s``, ``500ms``, ``2m`` or a plain number; ``None`` if invalid or <= 0."""
    if is_finite_number(value):
        seconds = float(value)
    elif isinstance(value, str) and (match := _DURATION.match(value)):
        seconds = float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    else:
        return None
    # hundreds of digits make an infinite float: refused, as an infinite timeout would later
    # fail every question
    return seconds if 0 < seconds < math.inf else None


def top_key(key: str) -> str:
    """The first part of a dotted key: ``judge`` of ``judge.base_url``, ``metrics`` of
    ``metrics[2]``."""
    return key.split(".")[0].split("[")[0]


class Reader:
    """Typed access to the sections of one file, with errors naming the file, line and key.

    Each read takes the mapping it reads from (``section``), the key, and the dotted path of
    the mapping (``gate.metrics.mrr``); the error's key is ``PATH.KEY``.
    """

    def __init__(
        self, source: str | Path, *, allowed: str = "allowed", outer: Where | None = None
    ) -> None:
        self.source = str(source)
        self.allowed = allowed
        self.outer = outer

    def line(self, container: Any, key: str | None = None, path: str = "") -> int | None:
        """The line of ``key`` in ``container``; else the fallback for the section at ``path``.

        With ``outer``, the key looked up is the last part of ``path``, as the generation
        sections always did (a key written with a dot in it is not found there)."""
        if self.outer is not None:
            key = path.rsplit(".", 1)[-1]
        if isinstance(container, LineDict) and key is not None and key in container.key_lines:
            return container.key_lines[key]
        if self.outer is not None:
            return self.outer.key_lines.get(top_key(path), self.outer.line)
        return (container.line or None) if isinstance(container, LineDict) else None

    def error(
        self, message: str, key: str, container: Any = None, item: str | None = None
    ) -> InputError:
        """An error about ``key`` (dotted), at the line of ``item`` in ``container``."""
        return InputError(self.source, message, line=self.line(container, item, key), key=key)

    def unknown(self, key: Any, allowed: tuple[str, ...]) -> str:
        """'unknown key; did you mean ...? allowed: ...' in this section's wording."""
        close = difflib.get_close_matches(str(key), allowed, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return f"unknown key; {hint}{self.allowed}: {', '.join(allowed)}"

    def known_keys(self, section: Mapping[str, Any], allowed: tuple[str, ...], path: str) -> None:
        for key in section:
            if key not in allowed:
                raise self.error(self.unknown(key, allowed), f"{path}.{key}", section, str(key))

    def mapping(
        self, value: Any, path: str, parent: Any, key: str | None = None
    ) -> Mapping[str, Any]:
        if isinstance(value, Mapping):
            return value
        item = key if key is not None else path.rsplit(".", 1)[-1]
        raise self.error(f"expected a mapping, found {type_name(value)}", path, parent, item)

    def fraction(
        self, section: Mapping[str, Any], key: str, path: str, default: float | None
    ) -> float | None:
        value = section.get(key)
        if value is None:
            return default
        if not is_finite_number(value) or not 0.0 <= value <= 1.0:
            found = repr(value) if is_finite_number(value) else type_name(value)
            raise self.error(
                f"expected a number from 0 to 1 (metric values are fractions), found {found}",
                f"{path}.{key}",
                section,
                key,
            )
        return float(value)

    def alpha(
        self, section: Mapping[str, Any], key: str, path: str, default: float | None
    ) -> float | None:
        if key not in section:
            return default
        value = section[key]
        if value is False or value == "off":
            return None
        if not is_finite_number(value) or not 0.0 < value < 1.0:
            raise self.error(
                "expected a significance level between 0 and 1 (e.g. 0.05), or off",
                f"{path}.{key}",
                section,
                key,
            )
        return float(value)

    def percentage(self, section: Mapping[str, Any], key: str, path: str) -> float | None:
        """``20%`` as 0.2; a bare number is refused (is 20 a share or 2000%?)."""
        value = section.get(key)
        if value is None:
            return None
        found = _PERCENT.match(value) if isinstance(value, str) else None
        if found is None:
            raise self.error(
                f"expected a percentage of the baseline such as 20%, found {shown(value)}",
                f"{path}.{key}",
                section,
                key,
            )
        share = float(found.group(1)) / 100.0
        if not math.isfinite(share):  # hundreds of digits
            raise self.error(
                f"expected a percentage of the baseline such as 20%, found {shown(value)}",
                f"{path}.{key}",
                section,
                key,
            )
        return share

    def choice(
        self,
        section: Mapping[str, Any],
        key: str,
        path: str,
        choices: tuple[str, ...],
        *,
        optional: bool = False,
    ) -> Any:
        """One of ``choices``; a missing key is the first choice, or None when ``optional``
        (then a null value is None too)."""
        value = section.get(key) if optional else section.get(key, choices[0])
        if (value is not None or not optional) and value not in choices:
            raise self.error(
                f"expected one of {', '.join(choices)}, found {value!r}",
                f"{path}.{key}",
                section,
                key,
            )
        return value

    def boolean(
        self,
        section: Mapping[str, Any],
        key: str,
        path: str,
        default: bool,
        found: Callable[[Any], str] = type_name,
    ) -> bool:
        """true or false; ``found`` shows a wrong value (its type, or ``repr`` in ci)."""
        value = section.get(key, default)
        if not isinstance(value, bool):
            raise self.error(
                f"expected true or false, found {found(value)}", f"{path}.{key}", section, key
            )
        return value

    def count(
        self, section: Mapping[str, Any], key: str, path: str, default: int, most: int
    ) -> int:
        value = section.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
            raise self.error(
                f"expected a whole number from 0 (off) to {most}, found {value!r}",
                f"{path}.{key}",
                section,
                key,
            )
        return value

    def text(
        self, section: Mapping[str, Any], key: str, path: str, required: bool = False
    ) -> str | None:
        """A non-empty string, stripped (a YAML date such as 2024-06-01 as written)."""
        value = section.get(key)
        if value is None:
            if required:
                raise self.error("is required", f"{path}.{key}", section, key)
            return None
        if isinstance(value, datetime.date):  # YAML reads 2024-06-01 as a date
            return value.isoformat()
        if not isinstance(value, str) or not value.strip():
            raise self.error(
                f"expected a non-empty string, found {type_name(value)}",
                f"{path}.{key}",
                section,
                key,
            )
        return value.strip()

    def number(
        self,
        section: Mapping[str, Any],
        key: str,
        path: str,
        default: float,
        low: float,
        high: float,
    ) -> float:
        value = section.get(key, default)
        if not is_finite_number(value) or not low <= value <= high:
            raise self.error(
                f"expected a number from {low:g} to {high:g}, found {value!r}",
                f"{path}.{key}",
                section,
                key,
            )
        return float(value)

    def integer(
        self,
        section: Mapping[str, Any],
        key: str,
        path: str,
        default: int | None,
        low: int,
        high: int | None = None,
        optional: bool = False,
    ) -> int | None:
        value = section.get(key, default)
        if value is None and optional:
            return None
        bad = isinstance(value, bool) or not isinstance(value, int) or value < low
        if bad or (high is not None and value > high):
            span = f"from {low} to {high}" if high is not None else f">= {low}"
            raise self.error(
                f"expected a whole number {span}, found {value!r}", f"{path}.{key}", section, key
            )
        return value

    def duration(
        self, section: Mapping[str, Any], key: str, path: str, default: float, example: str
    ) -> float:
        """Seconds (:func:`parse_duration`); ``example`` is the section's own, e.g. ``60s or 2m``."""
        value = section.get(key, default)
        seconds = parse_duration(value)
        if seconds is None:
            raise self.error(
                f"expected a duration such as {example}, found {value!r}",
                f"{path}.{key}",
                section,
                key,
            )
        return seconds
