"""Contexts found by their text: the labels of a ragas or deepeval context (``ragguard import``).

Those tools label a question with the *text* of its reference contexts; ragguard labels
name chunks or evidence. Each context is looked up, after case and whitespace are
normalised as evidence quotes are matched (:func:`ragguard.testset.model.normal_text`):

1. in the corpus: the chunks whose text holds the whole context. A chunk that says which
   document it comes from gives the label ``{doc, quote: context}``, which survives a
   rechunk; one that does not gives its chunk id;
2. else in the documents of ``--docs``: every document that holds it gives
   ``{doc: path relative to the folder, quote: context}``.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragguard.results.chunks import Chunk
from ragguard.testset.model import normal_text

_SEPARATOR = "\x00"


class TextIndex:
    """Texts joined into one normalised string, so a context is found with one ``find``."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.names = list(texts)
        pieces = [normal_text(text) for text in texts.values()]
        self.starts: list[int] = []
        self.ends: list[int] = []
        position = 0
        for piece in pieces:
            self.starts.append(position)
            self.ends.append(position + len(piece))
            position += len(piece) + 1
        self.text = _SEPARATOR.join(pieces)

    def holding(self, context: str) -> list[str]:
        """The names of the texts that hold ``context`` whole, in the order given.

        A match must lie inside one text: one that runs over a separator (or a text's own
        NUL character taken for one) is not a match.
        """
        needle = normal_text(context)
        found: list[str] = []
        start = self.text.find(needle) if needle else -1
        while start >= 0:
            index = bisect.bisect_right(self.starts, start) - 1
            if start + len(needle) <= self.ends[index]:
                found.append(self.names[index])
                next_start = self.ends[index] + 1
            else:
                next_start = start + 1
            start = self.text.find(needle, next_start)
        return found


@dataclass(frozen=True)
class LabelSources:
    """Where contexts are looked up: corpus chunks and documents by name."""

    chunks: Mapping[str, Chunk]
    chunk_index: TextIndex
    doc_index: TextIndex

    @classmethod
    def of(cls, chunks: Mapping[str, Chunk], docs: Mapping[str, str]) -> LabelSources:
        texts = {chunk_id: chunk.text or "" for chunk_id, chunk in chunks.items()}
        return cls(chunks, TextIndex(texts), TextIndex(docs))

    def labels_for(self, context: str) -> list[Any]:
        """The labels of one context (chunk ids or evidence mappings); empty: not found."""
        chunk_ids = self.chunk_index.holding(context)
        if chunk_ids:
            return _chunk_labels(context, [self.chunks[i] for i in chunk_ids])
        return [{"doc": doc, "quote": context} for doc in self.doc_index.holding(context)]


def _chunk_labels(context: str, chunks: Sequence[Chunk]) -> list[Any]:
    labels: list[Any] = []
    for chunk in chunks:
        label = {"doc": chunk.doc, "quote": context} if chunk.doc else chunk.id
        if label not in labels:
            labels.append(label)
    return labels


def found_labels(contexts: Sequence[str], sources: LabelSources) -> tuple[list[list[Any]], str]:
    """Each context's labels, in order; or why not: the first context found nowhere."""
    found: list[list[Any]] = []
    for number, context in enumerate(contexts, start=1):
        labels = sources.labels_for(context)
        if not labels:
            return [], f"reference context {number} ({preview(context)}) is in no chunk or document"
        found.append(labels)
    return found, ""


def merged(label_lists: Iterable[Sequence[Any]]) -> list[Any]:
    """The labels of several contexts as one list, each label once, in order."""
    relevant: list[Any] = []
    for labels in label_lists:
        relevant.extend(label for label in labels if label not in relevant)
    return relevant


def preview(text: str, width: int = 40) -> str:
    """A text on one line, cut to ``width`` characters and quoted, for messages."""
    flat = " ".join(text.split())
    return json.dumps(flat if len(flat) <= width else flat[: width - 1] + "…", ensure_ascii=False)
