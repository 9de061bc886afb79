"""OTLP attribute values: the ``AnyValue`` shape of OTLP JSON, as plain Python values.

An attribute is ``{"key": "retrieval.documents.0.document.id", "value": {"stringValue": "a"}}``;
the value holds exactly one of ``stringValue``, ``intValue`` (a string of digits, as protobuf's
JSON writes 64-bit integers, or a number), ``doubleValue``, ``boolValue``, ``arrayValue``
(``{"values": [...]}``), ``kvlistValue`` (``{"values": [{"key", "value"}]}``) or
``bytesValue`` (base64), or nothing (an empty value). The protobuf field names
(``string_value`` ...) are accepted too, as protobuf's JSON parser accepts them.

A value that is not one of these raises :class:`BadValue` with what is wrong; the reader
turns it into a one-line error naming the file, the line and the attribute.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Mapping
from typing import Any

from ragguard.core.sources import shown, type_name

_INTEGER = re.compile(r"-?[0-9]{1,20}")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]*={0,2}")
_SPECIAL_DOUBLES = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
MAX_DEPTH = 64

VALUE_FIELDS = {
    "stringValue": "string",
    "string_value": "string",
    "intValue": "int",
    "int_value": "int",
    "doubleValue": "double",
    "double_value": "double",
    "boolValue": "bool",
    "bool_value": "bool",
    "arrayValue": "array",
    "array_value": "array",
    "kvlistValue": "kvlist",
    "kvlist_value": "kvlist",
    "bytesValue": "bytes",
    "bytes_value": "bytes",
}


class BadValue(ValueError):
    """An attribute or value that is not OTLP JSON; ``key`` is where, below the span."""

    def __init__(self, message: str, key: str) -> None:
        super().__init__(message)
        self.message = message
        self.key = key


def attributes_to_dict(value: Any, key: str = "attributes") -> dict[str, Any]:
    """A span's ``attributes`` list as a mapping (a key given twice: the last one wins, as
    the OpenTelemetry SDK keeps it)."""
    if value is None:
        return {}
    if not isinstance(value, list):
        raise BadValue(f"expected a list of {{key, value}}, found {type_name(value)}", key)
    result: dict[str, Any] = {}
    for index, item in enumerate(value):
        name, decoded = _key_value(item, f"{key}[{index}]", 0, named=True)
        result[name] = decoded
    return result


def _key_value(item: Any, key: str, depth: int, named: bool = False) -> tuple[str, Any]:
    """One ``{key, value}`` pair; ``named``: an attribute, whose name the errors show."""
    if not isinstance(item, Mapping):
        raise BadValue(f"expected an object with 'key' and 'value', found {type_name(item)}", key)
    name = item.get("key")
    if not isinstance(name, str):
        raise BadValue(f"an attribute needs its 'key' as a string, found {shown(name)}", key)
    try:
        return name, any_value(item.get("value"), f"{key}.value", depth)
    except BadValue as exc:
        if not named:
            raise
        raise BadValue(f"attribute {name!r}: {exc.message}", exc.key) from None


def any_value(value: Any, key: str, depth: int = 0) -> Any:
    """One ``AnyValue`` decoded: str, int, float, bool, list, dict, bytes or None."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise BadValue(
            f'expected an AnyValue object such as {{"stringValue": ...}}, found {type_name(value)}',
            key,
        )
    if depth > MAX_DEPTH:
        raise BadValue("values nested too deeply (over 64 levels); flatten the attribute", key)
    if len(value) != 1:
        if not value:
            return None
        raise BadValue(f"an AnyValue holds exactly one of {_NAMES}, found {_listed(value)}", key)
    ((field, inner),) = value.items()
    kind = VALUE_FIELDS.get(field)
    if kind is None:
        raise BadValue(f"unknown AnyValue field {field!r}; expected one of {_NAMES}", key)
    return _DECODERS[kind](inner, f"{key}.{field}", depth)


def _string(inner: Any, key: str, depth: int) -> str:
    if not isinstance(inner, str):
        raise BadValue(f"expected a string, found {type_name(inner)}", key)
    return inner


def _int(inner: Any, key: str, depth: int) -> int:
    if isinstance(inner, int) and not isinstance(inner, bool):
        return inner
    if isinstance(inner, str) and _INTEGER.fullmatch(inner):
        return int(inner)
    raise BadValue(
        f"expected a whole number (or its digits as a string), found {shown(inner)}", key
    )


def _double(inner: Any, key: str, depth: int) -> float:
    if isinstance(inner, (int, float)) and not isinstance(inner, bool):
        return float(inner)
    if isinstance(inner, str):
        if inner in _SPECIAL_DOUBLES:
            return _SPECIAL_DOUBLES[inner]
        try:
            return float(inner)
        except ValueError:
            pass
    raise BadValue(f"expected a number, found {shown(inner)}", key)


def _bool(inner: Any, key: str, depth: int) -> bool:
    if not isinstance(inner, bool):
        raise BadValue(f"expected true or false, found {shown(inner)}", key)
    return inner


def _array(inner: Any, key: str, depth: int) -> list[Any]:
    values = _values(inner, key)
    return [
        any_value(item, f"{key}.values[{index}]", depth + 1) for index, item in enumerate(values)
    ]


def _kvlist(inner: Any, key: str, depth: int) -> dict[str, Any]:
    values = _values(inner, key)
    pairs = (
        _key_value(item, f"{key}.values[{index}]", depth + 1) for index, item in enumerate(values)
    )
    return dict(pairs)


def _values(inner: Any, key: str) -> list[Any]:
    if not isinstance(inner, Mapping):
        raise BadValue(f"expected an object with 'values', found {type_name(inner)}", key)
    values = inner.get("values")
    if values is None:
        return []
    if not isinstance(values, list):
        raise BadValue(f"expected a list, found {type_name(values)}", f"{key}.values")
    return values


def _bytes(inner: Any, key: str, depth: int) -> bytes:
    decoded = base64_bytes(inner) if isinstance(inner, str) else None
    if decoded is None:
        raise BadValue(f"expected base64 text, found {shown(inner)}", key)
    return decoded


def base64_bytes(text: str) -> bytes | None:
    """The bytes of standard or URL-safe base64, padded or not (protobuf's JSON parser
    takes all four), else None."""
    if not _BASE64.fullmatch(text):
        return None
    padded = text.replace("-", "+").replace("_", "/").rstrip("=")
    padded += "=" * (-len(padded) % 4)
    try:
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


_DECODERS = {
    "string": _string,
    "int": _int,
    "double": _double,
    "bool": _bool,
    "array": _array,
    "kvlist": _kvlist,
    "bytes": _bytes,
}
_NAMES = "stringValue, intValue, doubleValue, boolValue, arrayValue, kvlistValue, bytesValue"


def _listed(value: Mapping[str, Any]) -> str:
    return ", ".join(repr(str(name)) for name in value)
