"""The context's text analysed once per passage for lexical faithfulness: its sentences'
stems, its quantities, its clauses, which sentences hold each stem, and its evidence windows.

A passage's sentences are normalized once; each gives its set of content stems
(:func:`ragguard.metrics.text.stem_set`) and its clauses. The windows are the runs of up to
:data:`EVIDENCE_SENTENCES` adjacent sentences (from each sentence, one window per length, in
that order). A window holds what its sentences hold, so only the sentences are indexed; the
windows are made on demand (:class:`EvidenceWindows`), and the search for the best one runs
over runs of sentence numbers (:func:`ragguard.metrics.support_search.heaviest_run`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import overload

from ragguard.metrics.claims import without_citations
from ragguard.metrics.support_search import bits_of_ranges, spread
from ragguard.metrics.text import NEGATION, normalize, quantities, split_sentences, stem_set

EVIDENCE_SENTENCES = 3
# Numbers left free after each chunk's sentences: a run of EVIDENCE_SENTENCES stays in its chunk.
GAP = EVIDENCE_SENTENCES - 1

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
    """One chunk's text analysed: its sentences normalized and their stems, in order, its
    quantities (and the question's), its negated clauses, and stem -> the positions of the
    sentences holding it."""

    texts: tuple[str, ...]
    sentences: tuple[frozenset[str], ...]
    amounts: frozenset[float]
    negated: tuple[Clause, ...]
    holding: dict[str, tuple[int, ...]]

    @property
    def windows(self) -> tuple[frozenset[str], ...]:
        """The stems of its windows in order: from each sentence, the runs of 1 to
        EVIDENCE_SENTENCES sentences while sentences last."""
        count = len(self.sentences)
        return tuple(self.window(*_window_at(count, index)) for index in range(window_count(count)))

    def window(self, first: int, length: int) -> frozenset[str]:
        """The stems of the ``length`` sentences from sentence ``first``."""
        if length == 1:
            return self.sentences[first]
        return frozenset().union(*self.sentences[first : first + length])


def analyse_passage(text: str, asked: frozenset[float]) -> Passage:
    """The sentences and their stems, quantities (with the question's, ``asked``), negated
    clauses and stem index of one chunk's text. Only a sentence with a negation word is split
    into clauses here: no other holds a negated clause."""
    sentences = tuple(normalize(sentence) for sentence in split_sentences(text))
    sentence_stems = tuple(stem_set(sentence) for sentence in sentences)
    negated = tuple(
        clause
        for sentence, stems in zip(sentences, sentence_stems, strict=True)
        if NEGATION.search(sentence) is not None
        for clause in clauses_of_normalized(sentence, stems)
        if clause.negated
    )
    amounts = asked | quantities(without_citations(text))
    return Passage(sentences, sentence_stems, amounts, negated, _holding(sentence_stems))


def _holding(sentence_stems: Sequence[frozenset[str]]) -> dict[str, tuple[int, ...]]:
    """Stem -> positions (in order) of the sentences holding it."""
    found: dict[str, list[int]] = {}
    for sentence, stems in enumerate(sentence_stems):
        for stemmed in stems:
            found.setdefault(stemmed, []).append(sentence)
    return {stemmed: tuple(positions) for stemmed, positions in found.items()}


def window_count(sentences: int) -> int:
    """How many windows a passage of ``sentences`` sentences has."""
    full = max(0, sentences - EVIDENCE_SENTENCES + 1)  # the sentences with a window of each length
    rest = sentences - full
    return full * EVIDENCE_SENTENCES + rest * (rest + 1) // 2


def _window_at(sentences: int, index: int) -> tuple[int, int]:
    """(first sentence, length) of window ``index`` of a passage of ``sentences`` sentences."""
    full = max(0, sentences - EVIDENCE_SENTENCES + 1)
    if index < full * EVIDENCE_SENTENCES:
        first, longer = divmod(index, EVIDENCE_SENTENCES)
        return first, longer + 1
    index -= full * EVIDENCE_SENTENCES
    for first in range(full, sentences):
        if index < sentences - first:
            return first, index + 1
        index -= sentences - first
    raise IndexError("window index out of range")


@dataclass(frozen=True, slots=True)
class Evidence:
    """Up to EVIDENCE_SENTENCES adjacent sentences of one chunk, as stems."""

    chunk_id: str
    stems: frozenset[str]
    quantities: frozenset[float]  # of the whole chunk, and the question's


class EvidenceWindows(Sequence[Evidence]):
    """Every window of the context's chunks in order, as :class:`Evidence` made on demand: a
    statement looks at its best window only, and a long context has a million of them.

    The context's sentences are numbered in order, each chunk's followed by GAP numbers
    that hold no sentence: the run of EVIDENCE_SENTENCES numbers from a sentence then stays
    in its chunk, and the windows from a sentence are the runs from its number (a run that
    reaches past its chunk's last sentence holds what the window to that sentence holds)."""

    def __init__(self, chunks: Sequence[tuple[int, str, Passage]]) -> None:
        """``chunks``: (number of its first sentence, chunk id, passage) in order."""
        self._chunks = [(first, chunk_id, p) for first, chunk_id, p in chunks if p.sentences]
        self._firsts = [first for first, _, _ in self._chunks]
        self._window_firsts = list(
            accumulate((window_count(len(p.sentences)) for _, _, p in self._chunks), initial=0)
        )
        self._size = self._window_firsts.pop()
        sentences = [(first, first + len(p.sentences)) for first, _, p in self._chunks]
        self._numbers = sentences[-1][1] if sentences else 0
        self.starts = _run_starts(bits_of_ranges(sentences, self._numbers))

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
        chunk = bisect_right(self._window_firsts, position) - 1
        first, _, passage = self._chunks[chunk]
        sentence, length = _window_at(len(passage.sentences), position - self._window_firsts[chunk])
        return self.at(first + sentence, length)

    def at(self, sentence: int, length: int) -> Evidence:
        """The window of ``length`` sentences from sentence number ``sentence`` (fewer when its
        chunk ends first)."""
        first, chunk_id, passage = self._chunks[bisect_right(self._firsts, sentence) - 1]
        return Evidence(chunk_id, passage.window(sentence - first, length), passage.amounts)

    def sentence(self, number: int) -> tuple[str, frozenset[str]]:
        """The normalized text and the stems of sentence number ``number``."""
        first, _, passage = self._chunks[bisect_right(self._firsts, number) - 1]
        return passage.texts[number - first], passage.sentences[number - first]

    def count_holding(self, sentences: int) -> int:
        """How many windows hold one of the sentences whose numbers are the set bits of
        ``sentences``."""
        count = 0
        for length, starts in enumerate(self.starts, start=1):
            count += (spread(sentences, length) & starts).bit_count()
        return count

    def holding_amounts(self) -> HoldingAmounts:
        """Quantity -> numbers (as bits) of the sentences whose chunk (or the question) holds
        it."""
        ranges: dict[float, list[tuple[int, int]]] = {}
        for first, _, passage in self._chunks:
            for amount in passage.amounts:
                ranges.setdefault(amount, []).append((first, first + len(passage.sentences)))
        return HoldingAmounts(ranges, self._numbers)


def _run_starts(sentences: int) -> tuple[int, ...]:
    """For each window length from 1 to EVIDENCE_SENTENCES, the numbers (as bits) of the
    sentences from which that many sentences of one chunk follow: where such windows start."""
    found = [sentences]
    for shift in range(1, EVIDENCE_SENTENCES):
        found.append(found[-1] & sentences >> shift)
    return tuple(found)


class HoldingAmounts(Mapping[float, int]):
    """Quantity -> numbers of the sentences holding it, as the set bits of an int made on
    first use (a statement asks for its own few quantities) and kept."""

    def __init__(self, ranges: dict[float, list[tuple[int, int]]], size: int) -> None:
        self._ranges = ranges
        self._size = size
        self._made: dict[float, int] = {}

    def __getitem__(self, amount: float) -> int:
        found = self._made.get(amount)
        if found is None:
            found = self._made[amount] = bits_of_ranges(self._ranges[amount], self._size)
        return found

    def __iter__(self) -> Iterator[float]:
        return iter(self._ranges)

    def __len__(self) -> int:
        return len(self._ranges)
