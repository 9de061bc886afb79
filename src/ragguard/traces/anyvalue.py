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
    if type(value) is not list:
        raise BadValue(f"expected a list of {{key, value}}, found {type_name(value)}", key)
    result: dict[str, Any] = {}
    for index, item in enumerate(value):
        try:
            name, decoded = _attribute(item)
        except BadValue as exc:
            raise BadValue(exc.message, f"{key}[{index}]{exc.key}") from None
        result[name] = decoded
    return result


def _attribute(item: Any) -> tuple[str, Any]:
    """One attribute; errors name the attribute, their key is below the item."""
    name, value = _pair(item)
    if type(value) is dict and len(value) == 1:  # the common case, decoded inline
        text = value.get("stringValue")
        if type(text) is str:
            return name, text
    try:
        return name, any_value(value, ".value")
    except BadValue as exc:
        raise BadValue(f"attribute {name!r}: {exc.message}", exc.key) from None


def _pair(item: Any) -> tuple[str, Any]:
    if type(item) is not dict:
        raise BadValue(f"expected an object with 'key' and 'value', found {type_name(item)}", "")
    name = item.get("key")
    if type(name) is not str:
        raise BadValue(f"an attribute needs its 'key' as a string, found {shown(name)}", "")
    return name, item.get("value")


def any_value(value: Any, key: str, depth: int = 0) -> Any:
    """One ``AnyValue`` decoded: str, int, float, bool, list, dict, bytes or None; ``key``
    names it in errors."""
    if value is None:
        return None
    if type(value) is not dict:
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
    try:
        return _DECODERS[kind](inner, depth)
    except BadValue as exc:
        raise BadValue(exc.message, f"{key}.{field}{exc.key}") from None


def _string(inner: Any, depth: int) -> str:
    if type(inner) is not str:
        raise BadValue(f"expected a string, found {type_name(inner)}", "")
    return inner


def _int(inner: Any, depth: int) -> int:
    if type(inner) is int:
        return inner
    if type(inner) is str and _INTEGER.fullmatch(inner):
        return int(inner)
    raise BadValue(f"expected a whole number (or its digits as a string), found {shown(inner)}", "")


def _double(inner: Any, depth: int) -> float:
    if type(inner) in (int, float):
        return float(inner)
    if type(inner) is str:
        if inner in _SPECIAL_DOUBLES:
            return _SPECIAL_DOUBLES[inner]
        try:
            return float(inner)
        except ValueError:
            pass
    raise BadValue(f"expected a number, found {shown(inner)}", "")


def _bool(inner: Any, depth: int) -> bool:
    if type(inner) is not bool:
        raise BadValue(f"expected true or false, found {shown(inner)}", "")
    return inner


def _array(inner: Any, depth: int) -> list[Any]:
    values = _values(inner)
    return [any_value(item, f".values[{index}]", depth + 1) for index, item in enumerate(values)]


def _kvlist(inner: Any, depth: int) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for index, item in enumerate(_values(inner)):
        try:
            name, value = _pair(item)
        except BadValue as exc:
            raise BadValue(exc.message, f".values[{index}]{exc.key}") from None
        result[name] = any_value(value, f".values[{index}].value", depth + 1)
    return result


def _values(inner: Any) -> list[Any]:
    if type(inner) is not dict:
        raise BadValue(f"expected an object with 'values', found {type_name(inner)}", "")
    values = inner.get("values")
    if values is None:
        return []
    if type(values) is not list:
        raise BadValue(f"expected a list, found {type_name(values)}", ".values")
    return values


def _bytes(inner: Any, depth: int) -> bytes:
    decoded = base64_bytes(inner) if type(inner) is str else None
    if decoded is None:
        raise BadValue(f"expected base64 text, found {shown(inner)}", "")
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


def _listed(value: dict[str, Any]) -> str:
    return ", ".join(repr(str(name)) for name in value)
