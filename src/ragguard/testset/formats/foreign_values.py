"""The values of a ragas or deepeval file, checked as they are read: texts, lists of texts,
the Python literals ragas' CSV writer prints, and tool calls. Each error names the key."""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragguard.core.errors import Where
from ragguard.core.sources import type_name
from ragguard.core.surrogates import surrogate_in

RAGAS_LIST = "a list of strings as ragas writes it (['first', 'second'])"
DEEPEVAL_DELIMITER = "|"


@dataclass(frozen=True)
class ForeignCall:
    """A tool call another tool's file expects: its name, and the arguments to match (None:
    any)."""

    name: str
    arguments: Mapping[str, Any] | None = None

    def to_entry(self) -> dict[str, Any]:
        """The call as an ``expected_tools`` item of a ragguard test set."""
        entry: dict[str, Any] = {"name": self.name}
        if self.arguments:
            entry["arguments"] = dict(self.arguments)
        return entry


def python_literal(cell: str, key: str, where: Where, shape: str = RAGAS_LIST) -> Any:
    """A value ragas' CSV writer printed as a Python literal (``['a', 'b']``), as the JSON
    value it stands for (a tuple is a list).

    A set, bytes or infinity have no JSON value, a set or a mapping with a list in it cannot
    be built (TypeError), and a string may escape a lone surrogate (``'\\ud800'``): each is
    an error in the cell, not a traceback.
    """
    try:
        value = ast.literal_eval(cell)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise where.error(f"expected {shape}", key=key) from None
    surrogate = surrogate_in(value)
    if surrogate is not None:
        raise where.error(
            f"lone surrogate {surrogate[1]} in a string; write the character itself", key=key
        )
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (ValueError, TypeError, RecursionError):
        raise where.error(f"expected {shape}", key=key) from None


def context_list(value: Any, key: str, where: Where) -> tuple[str, ...]:
    """A list of texts (None: none), blank ones left out."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise where.error(f"expected a list of strings, found {type_name(value)}", key=key)
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise where.error(
                f"expected a list of strings (each a context's text), found {type_name(item)}",
                key=f"{key}[{index}]",
            )
    return tuple(item for item in value if item.strip())


def deepeval_contexts(value: Any, where: Where) -> tuple[str, ...]:
    """deepeval's ``context``: a list, or one string joined with ``|`` (jsonl and csv)."""
    if isinstance(value, str):
        value = [part for part in value.split(DEEPEVAL_DELIMITER) if part.strip()]
    return context_list(value, "context", where)


def required_text(
    entry: Mapping[str, Any], key: str, where: Where, what: str = "the question", at: str = ""
) -> str:
    """The non-empty string at ``key`` (``at`` names where the entry is, in error keys)."""
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        found = "nothing" if value is None else type_name(value)
        if isinstance(value, str):
            found = "an empty string"
        raise where.error(f"expected {what} as a non-empty string, found {found}", key=at + key)
    return value.strip()


def optional_text(entry: Mapping[str, Any], key: str, where: Where) -> str | None:
    """The string at ``key``, or None when it is missing, null or blank."""
    value = entry.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise where.error(f"expected a string, found {type_name(value)}", key=key)
    return value.strip()


def mapping_at(value: Any, key: str, where: Where, what: str) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an error naming ``what`` it should be."""
    if not isinstance(value, Mapping):
        raise where.error(f"expected {what}, found {type_name(value)}", key=key)
    return value


def list_at(value: Any, key: str, where: Where, what: str) -> list[Any]:
    """``value`` as a list (None: empty), else an error naming ``what`` it should hold."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise where.error(f"expected a list of {what}, found {type_name(value)}", key=key)
    return value


def tool_call(item: Any, key: str, where: Where, arguments_key: tuple[str, ...]) -> ForeignCall:
    """A tool call ``{name, <arguments key>}``; arguments are a JSON object or absent."""
    call = mapping_at(item, key, where, "a tool call with 'name'")
    name = required_text(call, "name", where, "the tool's name", at=f"{key}.")
    present = [k for k in arguments_key if call.get(k) is not None]
    arguments = call[present[0]] if present else None
    if arguments is not None:
        mapping_at(arguments, f"{key}.{present[0]}", where, "an object of the call's arguments")
    return ForeignCall(name, dict(arguments) if arguments else None)
