"""Reading input files: UTF-8 text, JSON, JSON Lines, CSV (YAML with line numbers:
:mod:`ragguard.core.yaml_lines`).

Every failure becomes an :class:`InputError` naming the file and the line.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import math
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ragguard.core.errors import InputError
from ragguard.core.surrogates import LoneSurrogate, lone_surrogate_escape

BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark, allowed at the start of an input file


EMPTY_ADVICE = "check the path or fill it in"


def read_text(path: str | Path, *, what: str = "file", empty_advice: str = EMPTY_ADVICE) -> str:
    """Read a UTF-8 text file (a BOM is allowed) that must exist and not be empty; an empty
    one is refused with ``empty_advice`` (what to write in it)."""
    path = Path(path)
    check_is_file(path, what)
    try:
        data = path.read_bytes().removeprefix(BOM)  # positions below are in these bytes
        text = data.decode("utf-8")
    except OSError as exc:
        raise cannot_read(path, what, exc) from None
    except MemoryError:
        raise out_of_memory(path, what) from None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _not_utf8(path, data[exc.start], line) from None
    if not text.strip():
        raise _empty(path, what, empty_advice)
    return text


def iter_lines(path: str | Path, *, what: str = "file") -> Iterator[tuple[int, str]]:
    """Stream (line number, line) from a UTF-8 text file, holding one line at a time.

    Lines end at ``\n``, ``\r\n`` or ``\r`` (as :func:`split_lines`); a file with no
    non-blank line is an error, raised once it has been read.
    """
    path = Path(path)
    check_is_file(path, what)
    blank = True
    try:
        with path.open(encoding="utf-8-sig", newline=None) as file:
            for number, line in enumerate(file, start=1):
                line = line.removesuffix("\n")
                blank = blank and not line.strip()
                yield number, line
    except OSError as exc:
        raise cannot_read(path, what, exc) from None
    except MemoryError:
        raise out_of_memory(path, what) from None
    except UnicodeDecodeError:
        raise _first_undecodable_line(path) from None
    if blank:
        raise _empty(path, what)


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, ending at ``\n``, ``\r\n`` or ``\r`` only.

    Not :meth:`str.splitlines`: it also breaks at ``\f``, ``\x1c``-``\x1e``, ``\x85``,
    U+2028 and U+2029, which are ordinary characters inside a JSON string or a question, so
    line numbers would drift and a valid JSON line would be cut in two.
    """
    lines = _LINE_BREAK.split(text)
    if lines and not lines[-1]:
        lines.pop()
    return lines


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def check_is_file(path: Path, what: str) -> None:
    """Refuse a path that is not there, is a folder, or cannot be looked up, naming it."""
    if "\0" in str(path):
        raise bad_path(path, ValueError("a NUL byte in the name"))
    try:
        if not path.exists():
            raise InputError(path, f"{what} not found; check the path")
        if path.is_dir():
            raise InputError(path, f"is a directory, expected a {what}")
    except (OSError, ValueError) as exc:  # a name too long, or a NUL byte in it
        raise bad_path(path, exc) from None


def bad_path(path: str | Path, exc: OSError | ValueError) -> InputError:
    """The error for a path the system cannot even look up (too long, a NUL byte)."""
    shown_path = str(path).replace("\0", "\\0")
    if len(shown_path) > 120:
        shown_path = shown_path[:60] + "…" + shown_path[-40:]
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return InputError(shown_path, f"cannot use this path ({reason}); check the name and folder")


def cannot_read(path: Path, what: str, exc: OSError) -> InputError:
    return InputError(path, f"cannot read the {what}: {exc.strerror or exc}")


def out_of_memory(path: str | Path, what: str) -> InputError:
    """Running out of memory while reading a file, as a one-line error naming it."""
    return InputError(
        path,
        f"out of memory reading the {what}; split it into smaller files or give the job "
        "more memory",
    )


def _not_utf8(path: Path, byte: int, line: int) -> InputError:
    return InputError(path, f"not UTF-8 (byte 0x{byte:02x}); save the file as UTF-8", line=line)


def _first_undecodable_line(path: Path) -> InputError:
    """The error for the first line of ``path`` that is not UTF-8, read again in bytes."""
    with path.open("rb") as file:
        for number, raw in enumerate(file, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return _not_utf8(path, raw[exc.start], number)
    return InputError(path, "not UTF-8; save the file as UTF-8")


def _empty(path: Path, what: str, advice: str = EMPTY_ADVICE) -> InputError:
    return InputError(path, f"{what} is empty (or only whitespace); {advice}")


TOO_DEEP = "nested too deeply (hundreds of levels of lists or mappings); flatten it"


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a valid number here; write a number or null")


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)  # in C: a large results file has hundreds of thousands of objects
    if len(result) == len(pairs):
        return result
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {key!r} in one object; keep one")
        seen.add(key)
    raise AssertionError("unreachable: a shorter dict has a repeated key")


# parse_json_value's settings, for decoding a part of a text (results/lines.py); the fast
# readers that use it leave text that may hold a surrogate escape to parse_json_value.
STRICT_JSON = json.JSONDecoder(
    parse_constant=_reject_constant, object_pairs_hook=_refuse_duplicate_keys
)


def parse_json_value(text: str) -> Any:
    """Parse JSON, refusing NaN, Infinity (they would poison every mean), repeated keys and
    lone surrogates (``"\\ud800"``: no UTF-8 writer could write them back; a
    :class:`~ragguard.core.surrogates.LoneSurrogate` says where).

    Every failure is a ValueError with a message for the user: JSON nested deeper than
    Python can follow, or an integer over Python's 4,300-digit limit, included. ``text``
    is decoded from bytes (as every reader's is), so only an escape can hold a surrogate.
    """
    try:
        value = json.loads(
            text, parse_constant=_reject_constant, object_pairs_hook=_refuse_duplicate_keys
        )
    except RecursionError:
        raise ValueError(TOO_DEEP) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        raise ValueError(number_problem(exc)) from None
    surrogate = lone_surrogate_escape(text)
    if surrogate is not None:
        raise surrogate
    return value


def json_from_bytes(data: bytes, source: str, what: str, advice: str) -> Any:
    """A JSON document held in memory (fetched, not read from a file), decoded and parsed
    whole: an error names ``source`` and the line, says the ``what`` is not UTF-8 or not
    JSON, and ends with ``advice`` (what to do)."""
    data = data.removeprefix(BOM)  # positions below are past it
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        byte = data[exc.start]
        raise InputError(
            source, f"{what} is not UTF-8 (byte 0x{byte:02x}); {advice}", line=line
        ) from None
    if not text.strip():
        raise InputError(source, f"{what} is empty; {advice}")
    try:
        return parse_json_value(text)
    except (json.JSONDecodeError, LoneSurrogate) as exc:
        detail = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise InputError(
            source, f"{what} is not JSON: {detail}; {advice}", line=exc.lineno
        ) from None
    except ValueError as exc:
        raise InputError(source, f"{what} is not JSON: {exc}; {advice}") from None


def number_problem(exc: ValueError) -> str:
    """A user's wording of Python's refusal of an integer with over 4,300 digits."""
    text = str(exc)
    if text.startswith("Exceeds the limit"):
        return "a number with thousands of digits; write a shorter number, or quote it as a string"
    return text


def iter_jsonl(text: str, source: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, value) for each non-blank line of a JSON Lines text."""
    return iter_jsonl_lines(enumerate(split_lines(text), start=1), source)


def iter_jsonl_lines(
    lines: Iterable[tuple[int, str]], source: str | Path
) -> Iterator[tuple[int, Any]]:
    """Yield (line number, value) for each non-blank numbered line of JSON Lines."""
    for number, line in lines:
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


def iter_jsonl_objects(
    text: str | Iterable[tuple[int, str]], source: str | Path
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Like :func:`iter_jsonl` (given the text, or numbered lines such as :func:`iter_lines`
    streams), but every line must hold a JSON object."""
    values = iter_jsonl(text, source) if isinstance(text, str) else iter_jsonl_lines(text, source)
    for number, value in values:
        if not isinstance(value, dict):
            raise InputError(
                source,
                f"expected a JSON object ({{...}}) on each line, found {type_name(value)}",
                line=number,
            )
        yield number, value


MAX_CSV_FIELD = 64 * 1024 * 1024  # the csv module's default (131,072 characters) is too small


def iter_csv_rows(text: str, source: str | Path) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) for a CSV text with a header row.

    The line number is where the row starts (a quoted field may span lines). Blank rows are
    skipped; missing trailing fields are empty strings.
    """
    csv.field_size_limit(max(csv.field_size_limit(), MAX_CSV_FIELD))
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
    """True for an int or float that is not a bool, NaN, infinite or beyond a float's range."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large to become a float (over about 1.8e308)
        return False


def described_number(value: Any) -> str:
    """A parsed value for an error message: a number as written (a huge one by its size)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return type_name(value)
    if isinstance(value, int) and abs(value) >= 10**15:
        return f"a {len(str(abs(value)))}-digit number"
    return repr(value)


_ASCII_INT = re.compile(r"-?[0-9]{1,18}")


def ascii_int(text: str) -> int | None:
    """The whole number ``text`` writes in ASCII digits (``-`` allowed first), else None.

    The one parser for numbers typed as text (grades, cut-offs, pull request numbers):
    ``str.isdigit`` accepts superscripts and other scripts' digits, which ``int`` refuses
    or reads as other numbers. At most 18 digits, so the value is always a usable size.
    """
    return int(text) if _ASCII_INT.fullmatch(text) else None


def same_after_normalising(ids: Iterable[str]) -> tuple[str, str] | None:
    """Two ids that differ only in Unicode normalisation (é as one or two code points)."""
    seen: dict[str, str] = {}
    for value in ids:
        key = unicodedata.normalize("NFC", value)
        first = seen.setdefault(key, value)
        if first != value:
            return first, value
    return None


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
