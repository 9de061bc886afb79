"""The documents a retrieval span returned, in rank order, as retrieved chunks.

OpenInference flattens them into attributes, ``retrieval.documents.N.document.id`` /
``.score`` / ``.content`` / ``.metadata`` with N from 0 in rank order (a structured
``retrieval.documents`` list of such objects is read too); the OpenTelemetry GenAI
conventions give ``gen_ai.retrieval.documents``, a list of ``{"id", "score"}`` objects or its
JSON text.

A document's id is ``document.id``, else the ``id`` in its ``document.metadata`` (LangChain's
instrumentation exports a Document's metadata but not its ``id``). A document without either
is left out and counted, and so is the second of two documents with one id (the first keeps
its rank); the reader reports both counts.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragguard.core.sources import shown
from ragguard.results.chunks import Chunk
from ragguard.traces.anyvalue import BadValue

OPENINFERENCE_DOCUMENTS = "retrieval.documents"
GENAI_DOCUMENTS = "gen_ai.retrieval.documents"
_PREFIX = OPENINFERENCE_DOCUMENTS + "."
_FIELD_PREFIX = "document."


@dataclass(frozen=True, slots=True)
class Ranking:
    """A retrieval's chunks, and what was left out of it."""

    chunks: tuple[Chunk, ...] = ()
    without_id: int = 0
    repeated: int = 0


def ranking_of(attributes: Mapping[str, Any], key: str) -> Ranking:
    """The span's documents as a ranking (OpenInference's first, else GenAI's)."""
    try:
        documents = _openinference_documents(attributes)
        if not documents and GENAI_DOCUMENTS in attributes:
            documents = _genai_documents(attributes[GENAI_DOCUMENTS])
        return _ranking(documents)
    except BadValue as exc:
        raise BadValue(exc.message, f"{key} attribute {exc.key!r}") from None


def _openinference_documents(attributes: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The flattened documents in rank order: each one's fields as (attribute name, value);
    errors name the attribute."""
    structured = attributes.get(OPENINFERENCE_DOCUMENTS)
    if isinstance(structured, list):
        return [_document_fields(item, OPENINFERENCE_DOCUMENTS) for item in structured]
    by_index: dict[int, dict[str, Any]] = {}
    start, field_start = len(_PREFIX), len(_FIELD_PREFIX)
    for name, value in attributes.items():
        if not name.startswith(_PREFIX):
            continue
        index, _, field = name[start:].partition(".")
        if index.isdigit() and index.isascii() and field.startswith(_FIELD_PREFIX):
            by_index.setdefault(int(index), {})[field[field_start:]] = (name, value)
    return [by_index[index] for index in sorted(by_index)]


def _document_fields(item: Any, key: str) -> dict[str, Any]:
    if not isinstance(item, Mapping):
        raise BadValue(f"expected a list of document objects, found {shown(item)}", key)
    fields = {}
    for name, value in item.items():
        field = name[len(_FIELD_PREFIX) :] if name.startswith(_FIELD_PREFIX) else name
        fields[field] = (key, value)
    return fields


def _genai_documents(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise BadValue(
                'expected a list of {"id", "score"} objects or its JSON text, found text '
                "that is not JSON",
                GENAI_DOCUMENTS,
            ) from None
    if not isinstance(value, list):
        raise BadValue(
            f'expected a list of {{"id", "score"}} objects, found {shown(value)}', GENAI_DOCUMENTS
        )
    return [_document_fields(item, GENAI_DOCUMENTS) for item in value]


def _ranking(documents: list[dict[str, Any]]) -> Ranking:
    chunks: list[Chunk] = []
    seen: set[str] = set()
    without_id = repeated = 0
    for fields in documents:
        chunk_id = _document_id(fields)
        if chunk_id is None:
            without_id += 1
        elif chunk_id in seen:
            repeated += 1
        else:
            seen.add(chunk_id)
            chunks.append(Chunk(chunk_id, _content(fields), _score(fields)))
    return Ranking(tuple(chunks), without_id, repeated)


def _document_id(fields: Mapping[str, tuple[str, Any]]) -> str | None:
    if "id" in fields:
        where, value = fields["id"]
        chunk_id = _id_text(value)
        if chunk_id is None and value is not None and value != "":
            raise BadValue(
                f"expected a document id (a string or a whole number), found {shown(value)}", where
            )
        if chunk_id is not None:
            return chunk_id
    metadata = fields.get("metadata", (None, None))[1]
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except ValueError:
            return None
    return _id_text(metadata.get("id")) if isinstance(metadata, Mapping) else None


def _id_text(value: Any) -> str | None:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _content(fields: Mapping[str, tuple[str, Any]]) -> str | None:
    where, value = fields.get("content", (None, None))
    if value is None or isinstance(value, str):
        return value
    raise BadValue(f"expected the document's text as a string, found {shown(value)}", where)


def _score(fields: Mapping[str, tuple[str, Any]]) -> float | None:
    """The retriever's score (not used to rank: the order is the rank); a NaN or infinite
    one is no score."""
    where, value = fields.get("score", (None, None))
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) if math.isfinite(value) else None
    raise BadValue(f"expected a number, found {shown(value)}", where)
