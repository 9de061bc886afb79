"""What one answer cost: the ``usage`` a system may report beside its answer (docs/formats.md).

The shape is the one LLM APIs report, plus the price::

    "usage": {"prompt_tokens": 812, "completion_tokens": 96, "total_tokens": 908, "cost": 0.0031}

Every key is optional; a value is a non-negative number. ``total_tokens`` missing is the sum
of the other two when both are given. ``cost`` is in whatever currency the system counts in
(ragguard never converts it); the comparison only needs it to be the same on both sides.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import is_finite_number, shown, type_name, unknown_key_message

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens", "cost")


@dataclass(frozen=True, slots=True)
class Usage:
    """One answer's token counts and cost; None: the system did not say."""

    prompt_tokens: float | None = None
    completion_tokens: float | None = None
    total_tokens: float | None = None
    cost: float | None = None

    @property
    def tokens(self) -> float | None:
        """The answer's tokens: ``total_tokens``, else prompt + completion when both are known."""
        if self.total_tokens is not None:
            return self.total_tokens
        if self.prompt_tokens is not None and self.completion_tokens is not None:
            return self.prompt_tokens + self.completion_tokens
        return None

    def to_dict(self) -> dict[str, float]:
        values = {key: getattr(self, key) for key in USAGE_KEYS}
        return {key: value for key, value in values.items() if value is not None}


def usage_from_mapping(value: Any, where: Where, key: str = "usage") -> Usage | None:
    """Validate a ``usage`` value (None stays None); InputError names the key and the value."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise where.error(f"expected a mapping, found {type_name(value)}", key=key)
    for name in value:
        if name not in USAGE_KEYS:
            raise where.error(unknown_key_message(str(name), USAGE_KEYS), key=f"{key}.{name}")
    numbers: dict[str, float] = {}
    for name, number in value.items():
        if number is None:
            continue
        if not is_finite_number(number) or number < 0:
            raise where.error(
                f"expected a non-negative number, found {shown(number)}", key=f"{key}.{name}"
            )
        numbers[str(name)] = float(number)
    return Usage(**numbers)


def usage_from_results(value: Any, source: str, path: str) -> Usage | None:
    """A results file's ``usage`` of one question; InputError with the file and key path."""
    try:
        return usage_from_mapping(value, Where(source), key="usage")
    except InputError as exc:
        raise InputError(source, exc.message, key=f"{path}.{exc.key}") from None
