"""Passages to draft from: each document cut at blank lines into passages of a few
paragraphs, marked covered when a section some question's labels touch holds them, and
sampled spread across documents, weighted toward what the test set does not cover.

Sampling is deterministic for a seed: documents are put in a weighted random order (a
document's weight grows with its uncovered share), each document's passages likewise
(an uncovered passage weighs :data:`UNCOVERED_WEIGHT`, a covered one 1), and passages are
taken round robin: every document gives one before any gives a second.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ragguard.testset.coverage import DocumentCoverage
from ragguard.testset.documents import Document

MIN_PASSAGE_CHARS = 200  # paragraphs are joined until a passage holds this many characters
MAX_PASSAGE_CHARS = 1200  # ... and a passage stops growing past this many
MIN_WORDS = 6  # a passage with fewer words (a lone heading) is not drafted from
UNCOVERED_WEIGHT = 4.0
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_WORD = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True, slots=True)
class Passage:
    """Characters ``[start, end)`` of a document, with whether a question covers them."""

    doc: str
    start: int
    end: int
    text: str
    covered: bool


def paragraphs(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` of each paragraph (text between blank lines), white space aside."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in [*_PARAGRAPH_BREAK.finditer(text), None]:
        end = match.start() if match else len(text)
        chunk = text[start:end]
        if chunk.strip():
            left = start + len(chunk) - len(chunk.lstrip())
            spans.append((left, start + len(chunk.rstrip())))
        start = match.end() if match else len(text)
    return spans


def passages_of(document: Document, covered: Sequence[tuple[int, int]]) -> list[Passage]:
    """The document's passages; ``covered``: the spans of its sections a question touches."""
    passages: list[Passage] = []
    group: list[tuple[int, int]] = []
    for span in paragraphs(document.text):
        if group and span[1] - group[0][0] > MAX_PASSAGE_CHARS:
            passages.append(_passage(document, group, covered))
            group = []
        group.append(span)
        if group[-1][1] - group[0][0] >= MIN_PASSAGE_CHARS:
            passages.append(_passage(document, group, covered))
            group = []
    if group:
        passages.append(_passage(document, group, covered))
    return [passage for passage in passages if len(_WORD.findall(passage.text)) >= MIN_WORDS]


def _passage(
    document: Document, group: list[tuple[int, int]], covered: Sequence[tuple[int, int]]
) -> Passage:
    start, end = group[0][0], group[-1][1]
    touched = any(first < end and last > start for first, last in covered)
    return Passage(document.id, start, end, document.text[start:end], touched)


def covered_spans(document: Document, coverage: DocumentCoverage | None) -> list[tuple[int, int]]:
    """The spans of the document's sections that some question's labels touch."""
    if coverage is None:
        return []
    return [
        (section.start, section.end)
        for section, seen in zip(document.sections, coverage.sections, strict=True)
        if seen.questions
    ]


def weighted_order(
    items: Sequence[Passage], weights: Sequence[float], rng: random.Random
) -> list[Passage]:
    """``items`` in a random order where heavier ones tend to come first (Efraimidis and
    Spirakis: sort by u ** (1 / weight))."""
    keys = [rng.random() ** (1.0 / weight) for weight in weights]
    order = sorted(range(len(items)), key=lambda index: -keys[index])
    return [items[index] for index in order]


def passage_weight(passage: Passage) -> float:
    return 1.0 if passage.covered else UNCOVERED_WEIGHT


def spread(by_doc: Sequence[Sequence[Passage]], seed: int) -> list[Passage]:
    """Every passage, in the order drafting takes them (see the module's docstring)."""
    rng = random.Random(seed)
    shuffled = [
        weighted_order(list(ps), [passage_weight(p) for p in ps], rng) for ps in by_doc if ps
    ]
    doc_weights = [sum(passage_weight(p) for p in ps) / len(ps) for ps in shuffled]
    order = _order_of_documents(len(shuffled), doc_weights, rng)
    return list(_round_robin([shuffled[index] for index in order]))


def _order_of_documents(count: int, weights: list[float], rng: random.Random) -> list[int]:
    keys = [rng.random() ** (1.0 / weight) for weight in weights]
    return sorted(range(count), key=lambda index: -keys[index])


def _round_robin(lists: Sequence[Sequence[Passage]]) -> Iterator[Passage]:
    longest = max((len(items) for items in lists), default=0)
    for index in range(longest):
        for items in lists:
            if index < len(items):
                yield items[index]
