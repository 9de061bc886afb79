"""Relevance labels as a test set writes them: chunk ids with grades, and evidence labels
that name a document or a span of one; ids read as the text written. Every error names the
label's line when the YAML gives it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragguard.core.errors import Where
from ragguard.core.sources import shown, span_of, type_name, unknown_key_message
from ragguard.core.yaml_lines import LineDict, LineList, number_as_written
from ragguard.testset.model import MAX_GRADE, REVIEWED, STATUSES, Evidence, grade_too_high


def identifier(value: Any, key: str, where: Where) -> str:
    """An id: a non-empty string, or a number taken as the text it was written as (YAML's
    ``007`` is "007", not 7: docs/formats.md)."""
    written = number_as_written(value)
    if written is not None:
        return written
    if isinstance(value, str) and value.strip():
        return value.strip()
    if value is None:
        needed = "a stable id for this question" if key == "id" else "a chunk id, not null"
        raise where.error(f"is required ({needed})", key=key)
    if isinstance(value, str):
        raise where.error("is empty; give a non-empty id", key=key)
    raise where.error(f"expected a non-empty string, found {type_name(value)}; quote it", key=key)


def parse_labels(
    value: Any, where: Where, key: str = "relevant"
) -> tuple[dict[str, int], tuple[Evidence, ...]]:
    """Graded chunk labels and evidence labels.

    ``relevant`` is a mapping of chunk id to grade, a single chunk id, or a list whose items
    are chunk ids (grade 1) or evidence mappings (``{doc: ..., quote: ..., grade: 2}``).
    Errors point at the line of the offending label when the YAML gives it.
    """
    if value is None:
        return {}, ()
    if isinstance(value, str):
        if "," in value:
            raise where.error(
                f"{value!r} is one chunk id; list several as [a, b] or {{a: 2, b: 1}}",
                key=key,
            )
        value = [value]
    evidence: list[Evidence] = []
    if isinstance(value, list):
        items = []
        for index, item in enumerate(value):
            at = item_where(value, index, where)
            if isinstance(item, Mapping):
                evidence.append(_evidence(item, f"{key}[{index}]", at))
            else:
                items.append((item, 1, at))
    elif isinstance(value, Mapping):
        items = [(chunk, grade, key_where(value, chunk, where)) for chunk, grade in value.items()]
    else:
        raise where.error(
            "expected a mapping of chunk id to grade, or a list of chunk ids and evidence; "
            f"found {type_name(value)}",
            key=key,
        )
    labels: dict[str, int] = {}
    for chunk, grade, at in items:
        chunk_id = identifier(chunk, key, at)
        if chunk_id in labels:
            raise at.error(f"chunk {chunk_id!r} is listed twice", key=key)
        labels[chunk_id] = parse_grade(grade, repr(chunk_id), at, key)
    return labels, _unique_evidence(evidence, where, key)


EVIDENCE_KEYS = ("doc", "quote", "chars", "lines", "grade")


def _evidence(item: Mapping[str, Any], key: str, where: Where) -> Evidence:
    """One evidence label: ``{doc, grade?}`` and at most one of quote, chars, lines."""
    for name in item:
        if name not in EVIDENCE_KEYS:
            raise where.error(f"{name!r}: {unknown_key_message(name, EVIDENCE_KEYS)}", key=key)
    doc = identifier(item.get("doc"), f"{key}.doc", where)
    spans = [name for name in ("quote", "chars", "lines") if item.get(name) is not None]
    if len(spans) > 1:
        raise where.error(f"give one of quote, chars or lines, not {' and '.join(spans)}", key=key)
    quote = item.get("quote")
    if quote is not None and not (isinstance(quote, str) and quote.strip()):
        raise where.error(
            f"quote must be a non-empty string of the document's text, found {shown(quote)}",
            key=f"{key}.quote",
        )
    grade = parse_grade(item.get("grade", 1), f"the evidence in {doc!r}", where, f"{key}.grade")
    return Evidence(
        doc=doc,
        grade=grade,
        quote=quote.strip() if isinstance(quote, str) else None,
        chars=_span(item.get("chars"), f"{key}.chars", where, first=0),
        lines=_span(item.get("lines"), f"{key}.lines", where, first=1),
    )


def _span(value: Any, key: str, where: Where, *, first: int) -> tuple[int, int] | None:
    """A ``[start, end]`` pair of whole numbers, start <= end, start >= ``first``."""
    if value is None:
        return None
    span = span_of(value, first)
    if span is None:
        unit = "characters, end excluded" if first == 0 else "lines, both included"
        raise where.error(
            f"expected [start, end] with {first} <= start <= end ({unit}), found {shown(value)}",
            key=key,
        )
    return span


def _unique_evidence(evidence: list[Evidence], where: Where, key: str) -> tuple[Evidence, ...]:
    keys: set[str] = set()
    for item in evidence:
        if item.key in keys:
            raise where.error(f"evidence {item.key} is listed twice", key=key)
        keys.add(item.key)
    return tuple(evidence)


def parse_grade(grade: Any, what: str, at: Where, key: str) -> int:
    if isinstance(grade, bool) or not isinstance(grade, int) or grade < 0:
        raise at.error(
            f"grade of {what} must be a non-negative integer (0, 1, 2, ...), found {shown(grade)}",
            key=key,
        )
    if grade > MAX_GRADE:
        raise at.error(grade_too_high(what, grade), key=key)
    return grade


def item_where(items: list[Any], index: int, where: Where) -> Where:
    if isinstance(items, LineList) and items.item_lines[index] != where.line:
        return Where(where.source, items.item_lines[index])
    return where


def key_where(mapping: Mapping[Any, Any], key: Any, where: Where) -> Where:
    line = mapping.key_lines.get(str(key)) if isinstance(mapping, LineDict) else None
    return Where(where.source, line) if line else where


def parse_tags(value: Any, where: Where, key: str = "tags") -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(
        isinstance(tag, str) and tag.strip() for tag in value
    ):
        raise where.error("expected a list of non-empty strings", key=key)
    return tuple(dict.fromkeys(tag.strip() for tag in value))


def parse_status(value: Any, where: Where) -> str:
    """A question's review status: ``draft`` or ``reviewed``; absent (or null) is reviewed."""
    if value is None:
        return REVIEWED
    if isinstance(value, str) and value in STATUSES:
        return value
    allowed = " or ".join(STATUSES)
    raise where.error(
        f"expected {allowed}, found {shown(value)}; a drafted question is 'draft' until a "
        "reviewer accepts it (ragguard testset review), then 'reviewed'",
        key="status",
    )
