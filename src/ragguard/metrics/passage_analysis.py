"""The context's text analysed once per passage for lexical faithfulness: its evidence windows,
its quantities, its clauses, and which windows hold each stem.

A passage's sentences are normalized once; each gives its set of content stems
(:func:`ragguard.metrics.text.stem_set`) and its clauses. The windows are the runs of up to
:data:`EVIDENCE_SENTENCES` adjacent sentences (from each sentence, one window per length, in
that order). Which windows hold a stem follows from which sentences hold it (a window holds
what its sentences hold), so the stems are indexed once per sentence, not once per window.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import overload

from ragguard.metrics.claims import without_citations
from ragguard.metrics.text import NEGATION, normalize, quantities, split_sentences, stem_set

EVIDENCE_SENTENCES = 3

# Negation words that do not deny the clause they stand in.
_NOT_A_DENIAL = re.compile(
    r"\b(?:or not|not only|not just|not necessarily|no matter|no longer|if not|not to mention"
    r"|no more than|no less than|not least|no doubt)\b"
)
_PARENTHESIS = re.compile(r"\([^()]*\)")
_CLAUSE_BREAK = re.compile(
    r"[,;:()\u2014\u2013]|\s-\s|\b(?:while|but|whereas|although|though|because|since|unless"
    r"|however|thus|so that|which|where|when)\b"
)


def is_negated(text: str) -> bool:
    """True when the text denies something: a negation word outside parentheses that is not
    part of a phrase such as "or not", "not only", "no more than"."""
    return _denies(normalize(text))


def _denies(normalized: str) -> bool:
    """:func:`is_negated` of already normalized text."""
    plain = _NOT_A_DENIAL.sub(" ", _PARENTHESIS.sub(" ", normalized))
    return NEGATION.search(plain) is not None


@dataclass(frozen=True, slots=True)
class Clause:
    stems: frozenset[str]
    negated: bool


def clauses(sentence: str) -> tuple[Clause, ...]:
    """The sentence's clauses with at least two content stems, each with its polarity."""
    return clauses_of_normalized(normalize(sentence))


def clauses_of_normalized(
    normalized: str, whole: frozenset[str] | None = None
) -> tuple[Clause, ...]:
    """:func:`clauses` of already normalized text. A clause without a negation word is not
    negated: removing parentheses and phrases such as "not only" (what :func:`is_negated`
    does) puts a space where they stood, and never makes a negation word of other words.
    ``whole``, when given, is ``stem_set(normalized)``: a text that is one clause without a
    negation word is not stemmed again."""
    parts = _CLAUSE_BREAK.split(normalized)
    found = []
    for part in parts:
        plain, negations = NEGATION.subn(" ", part)
        unchanged = negations == 0 and len(parts) == 1
        part_stems = whole if whole is not None and unchanged else stem_set(plain)
        if len(part_stems) >= 2:
            found.append(Clause(part_stems, negations > 0 and _denies(part)))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class Passage:
    """One chunk's text analysed: the stems of its windows in order, its quantities (and the
    question's), its clauses, and stem -> the positions of the windows holding it."""

    windows: tuple[frozenset[str], ...]
    amounts: frozenset[float]
    clauses: tuple[Clause, ...]
    holding: dict[str, tuple[int, ...]]


def analyse_passage(text: str, asked: frozenset[float]) -> Passage:
    """The windows, quantities (with the question's, ``asked``), clauses and stem index of
    one chunk's text."""
    sentences = [normalize(sentence) for sentence in split_sentences(text)]
    sentence_stems = [stem_set(sentence) for sentence in sentences]
    windows, containing = _windows(sentence_stems)
    found = tuple(chain.from_iterable(map(clauses_of_normalized, sentences, sentence_stems)))
    amounts = asked | quantities(without_citations(text))
    return Passage(windows, amounts, found, _holding(sentence_stems, containing))


def _windows(
    sentence_stems: Sequence[frozenset[str]],
) -> tuple[tuple[frozenset[str], ...], list[list[int]]]:
    """The windows' stems in order (from each sentence, lengths 1 to EVIDENCE_SENTENCES
    while sentences last), and for each sentence the positions of the windows holding it,
    in order."""
    windows: list[frozenset[str]] = []
    containing: list[list[int]] = [[] for _ in sentence_stems]
    count = len(sentence_stems)
    for start, first in enumerate(sentence_stems):
        joined = first
        for offset in range(min(EVIDENCE_SENTENCES, count - start)):
            if offset:
                joined = joined | sentence_stems[start + offset]
            for sentence in range(start, start + offset + 1):
                containing[sentence].append(len(windows))
            windows.append(joined)
    return tuple(windows), containing


def _holding(
    sentence_stems: Sequence[frozenset[str]], containing: Sequence[list[int]]
) -> dict[str, tuple[int, ...]]:
    """Stem -> positions (in order) of the windows holding it: those of the sentences
    holding it."""
    sentences_with: dict[str, list[int]] = {}
    for sentence, stems in enumerate(sentence_stems):
        for stemmed in stems:
            sentences_with.setdefault(stemmed, []).append(sentence)
    return {
        stemmed: tuple(containing[found[0]])
        if len(found) == 1
        else tuple(sorted(set(chain.from_iterable(map(containing.__getitem__, found)))))
        for stemmed, found in sentences_with.items()
    }


@dataclass(frozen=True, slots=True)
class Evidence:
    """Up to EVIDENCE_SENTENCES adjacent sentences of one chunk, as stems."""

    chunk_id: str
    stems: frozenset[str]
    quantities: frozenset[float]  # of the whole chunk, and the question's


class EvidenceWindows(Sequence[Evidence]):
    """Every window of the context's chunks in order, as :class:`Evidence` made on demand: a
    statement looks at its best window only, and a long context has a million of them."""

    def __init__(self, chunks: Sequence[tuple[int, str, Passage]]) -> None:
        """``chunks``: (position of its first window, chunk id, passage) in order."""
        # What a window's Evidence needs, not the passage: its stem index is merged and gone.
        self._chunks = [(start, chunk_id, p.windows, p.amounts) for start, chunk_id, p in chunks]
        self._chunks = [chunk for chunk in self._chunks if chunk[2]]
        self._starts = [chunk[0] for chunk in self._chunks]
        self._size = self._chunks[-1][0] + len(self._chunks[-1][2]) if self._chunks else 0

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> Evidence: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Evidence]: ...

    def __getitem__(self, index: int | slice) -> Evidence | Sequence[Evidence]:
        if isinstance(index, slice):
            return [self[position] for position in range(*index.indices(self._size))]
        position = index + self._size if index < 0 else index
        if not 0 <= position < self._size:
            raise IndexError("evidence index out of range")
        start, chunk_id, windows, amounts = self._chunks[bisect_right(self._starts, position) - 1]
        return Evidence(chunk_id, windows[position - start], amounts)

    def holding_amounts(self) -> HoldingAmounts:
        """Quantity -> positions of the windows whose chunk (or the question) holds it."""
        ranges: dict[float, list[range]] = {}
        for start, _, windows, amounts in self._chunks:
            for amount in amounts:
                ranges.setdefault(amount, []).append(range(start, start + len(windows)))
        return HoldingAmounts(ranges)


class HoldingAmounts(Mapping[float, frozenset[int]]):
    """Quantity -> positions of the windows holding it, each set made on first use (a
    statement asks for its own few quantities) and kept: the same frozenset every time."""

    def __init__(self, ranges: dict[float, list[range]]) -> None:
        self._ranges = ranges
        self._made: dict[float, frozenset[int]] = {}

    def __getitem__(self, amount: float) -> frozenset[int]:
        found = self._made.get(amount)
        if found is None:
            found = self._made[amount] = frozenset(chain.from_iterable(self._ranges[amount]))
        return found

    def __iter__(self) -> Iterator[float]:
        return iter(self._ranges)

    def __len__(self) -> int:
        return len(self._ranges)
