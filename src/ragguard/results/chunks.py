"""Retrieved chunks: an id, and optionally the text, retriever score and place in a document.

A ranking in a run record (and in each retrieval step of an agent's run) is a list whose
entries are a chunk id or an object ``{"id", "text"?, "score"?, "doc"?, "chars"?, "lines"?}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragguard.core.errors import Where
from ragguard.core.sources import is_finite_number, shown, span_of, type_name, unknown_key_message

CHUNK_KEYS = ("id", "text", "score", "doc", "chars", "lines", "meta")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrieved chunk: its id, and optionally its text and retriever score.

    ``doc``, ``chars`` (start, end excluded) and ``lines`` (first, last) say where in a
    document the chunk comes from; evidence labels judge the chunk by them.
    """

    id: str
    text: str | None = None
    score: float | None = None
    doc: str | None = None
    chars: tuple[int, int] | None = None
    lines: tuple[int, int] | None = None

    @property
    def is_bare(self) -> bool:
        """Only an id: written back as a plain string."""
        return self.text is None and self.score is None and self.doc is None


def chunk_to_dict(chunk: Chunk) -> dict[str, Any]:
    fields = (
        ("id", chunk.id),
        ("text", chunk.text),
        ("score", chunk.score),
        ("doc", chunk.doc),
        ("chars", list(chunk.chars) if chunk.chars else None),
        ("lines", list(chunk.lines) if chunk.lines else None),
    )
    return {key: value for key, value in fields if value is not None}


def ranking_from_list(value: Any, where: Where, key: str = "retrieved") -> tuple[Chunk, ...]:
    """A validated ranking: ``None`` is empty; each entry a chunk id or chunk object."""
    value = [] if value is None else value
    if not isinstance(value, list):
        raise where.error(f"expected a list in rank order, found {type_name(value)}", key=key)
    chunks = tuple(chunk_from_item(item, index, where, key) for index, item in enumerate(value))
    check_unique_chunks(chunks, where, key)
    return chunks


def chunk_from_item(item: Any, index: int, where: Where, ranking: str = "retrieved") -> Chunk:
    key = f"{ranking}[{index}]"
    if isinstance(item, str) and item:
        return Chunk(item)
    if isinstance(item, int) and not isinstance(item, bool):
        return Chunk(str(item))
    if isinstance(item, str):
        raise where.error("empty chunk id; give every retrieved chunk its id", key=key)
    if not isinstance(item, Mapping):
        raise where.error(
            f"expected a chunk id or an object with 'id', found {type_name(item)}", key=key
        )
    for name in item:
        if name not in CHUNK_KEYS:
            raise where.error(f"{name!r}: {unknown_key_message(name, CHUNK_KEYS)}", key=key)
    chunk_id = item.get("id")
    if isinstance(chunk_id, int) and not isinstance(chunk_id, bool):
        chunk_id = str(chunk_id)
    if not isinstance(chunk_id, str) or not chunk_id:
        raise where.error("a retrieved chunk object needs a string 'id'", key=key)
    text = item.get("text")
    if text is not None and not isinstance(text, str):
        raise where.error(f"'text' must be a string, found {type_name(text)}", key=key)
    score = item.get("score")
    if score is not None and not is_finite_number(score):
        raise where.error(f"'score' must be a finite number, found {shown(score)}", key=key)
    return Chunk(
        chunk_id, text, float(score) if score is not None else None, *chunk_origin(item, where, key)
    )


def chunk_origin(
    item: Mapping[str, Any], where: Where, key: str
) -> tuple[str | None, tuple[int, int] | None, tuple[int, int] | None]:
    """A chunk's ``doc``, ``chars`` and ``lines``, validated (all optional)."""
    doc = item.get("doc")
    if isinstance(doc, int) and not isinstance(doc, bool):
        doc = str(doc)
    if doc is not None and not (isinstance(doc, str) and doc):
        raise where.error(f"'doc' must be a document id string, found {shown(doc)}", key=key)
    return doc, _range(item, "chars", 0, where, key), _range(item, "lines", 1, where, key)


def _range(
    item: Mapping[str, Any], name: str, first: int, where: Where, key: str
) -> tuple[int, int] | None:
    value = item.get(name)
    if value is None:
        return None
    span = span_of(value, first)
    if span is None:
        raise where.error(
            f"'{name}' must be [start, end] with {first} <= start <= end, found {shown(value)}",
            key=key,
        )
    return span


def check_unique_chunks(chunks: tuple[Chunk, ...], where: Where, key: str = "retrieved") -> None:
    seen: dict[str, int] = {}
    for rank, chunk in enumerate(chunks, start=1):
        if chunk.id in seen:
            raise where.error(
                f"chunk {chunk.id!r} appears twice in one ranking (ranks {seen[chunk.id]} "
                f"and {rank}); deduplicate the retriever's output",
                key=key,
            )
        seen[chunk.id] = rank
