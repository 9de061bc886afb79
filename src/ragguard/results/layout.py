"""The layout ragguard writes a results file in, shared by its writer and its fast readers.

:func:`~ragguard.results.io.json_chunks` writes the header indented by one space, then
:data:`QUESTIONS_LINE`, then one question a line (:func:`question_line`, ``retrieved``
last). The readers (``lines.py``, ``columns.py``) parse the header with :func:`read_header`
and raise :class:`NotWritten` at anything else, for the full reader to decide: an escape that
may be a lone surrogate too (the writer writes none), which the full reader refuses.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import IO, Any

from ragguard.core.sources import STRICT_JSON
from ragguard.core.surrogates import MAY_HOLD_ESCAPE
from ragguard.results.model import QuestionResult, question_to_dict

QUESTIONS_LINE = b' "questions": [\n'


class NotWritten(Exception):
    """The file is not in the writer's layout: the full reader decides."""


_QUESTION_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
# Nothing JSON escapes with ensure_ascii=False (isprintable() checks most ids faster).
_PLAIN_ID = re.compile(r'[^"\\\x00-\x1f]*').fullmatch


def question_line(question: QuestionResult) -> str:
    """One question as a line of JSON. Its retrieved ids (most of a results file) are joined
    directly when none needs escaping (:func:`plain_ids`): the encoder costs about ten times
    more per id. They come last in the line either way."""
    data = question_to_dict(question)
    ids = data.pop("retrieved")
    if not plain_ids(ids):
        data["retrieved"] = ids
        return _QUESTION_ENCODER.encode(data)
    retrieved = '["' + '", "'.join(ids) + '"]' if ids else "[]"
    return f'{_QUESTION_ENCODER.encode(data)[:-1]}, "retrieved": {retrieved}}}'


def plain_ids(ids: Sequence[str]) -> bool:
    """Whether no id needs escaping in JSON, so the ids are written joined as they are."""
    joined = "".join(ids)
    plain = joined.isprintable() and '"' not in joined and "\\" not in joined
    return plain or _PLAIN_ID(joined) is not None


def read_header(file: IO[bytes]) -> dict[str, Any]:
    """Everything before the questions, parsed; the file then stands at the first one."""
    first = file.readline()
    if first != b"{\n":
        raise NotWritten
    lines = [first]
    while (line := file.readline()) != QUESTIONS_LINE:
        if not line:
            raise NotWritten
        lines.append(line)
    text = b"".join(lines).decode("utf-8")
    if not text.endswith(",\n") or MAY_HOLD_ESCAPE.search(text):
        raise NotWritten  # a surrogate escape: parse_json_value decides
    data = whole_value(text[:-2] + "\n}")
    if type(data) is not dict or "questions" in data:
        raise NotWritten
    return data


STRICT_SCAN = STRICT_JSON.scan_once  # raw_decode without its wrapper


def whole_value(text: str, start: int = 0, end: int | None = None) -> Any:
    """The JSON value that spans ``text[start:end]`` exactly."""
    try:
        value, stop = STRICT_SCAN(text, start)
    except StopIteration:
        raise NotWritten from None
    if stop != (len(text) if end is None else end):
        raise NotWritten
    return value
