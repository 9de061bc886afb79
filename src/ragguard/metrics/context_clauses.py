"""The context's clauses for the contradiction check: the first clause of each polarity that
holds every stem of a statement's clause.

Only a sentence with a negation word can hold a negated clause (a clause break never makes
one: see :func:`ragguard.metrics.passage_analysis.clauses_of_normalized`), so the negated
clauses are few and found when the context is analysed (:attr:`Passage.negated`), indexed by
stem. The others are found on demand: a clause that is not negated holds only stems of its
sentence, so only the sentences holding every stem sought are split into clauses, in order,
each distinct sentence once. A long context is then never split whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ragguard.metrics.passage_analysis import Clause, clauses_of_normalized
from ragguard.metrics.support_search import Postings, lowest, postings

# Sentence number -> (its normalized text, its stems).
SentenceOf = Callable[[int], tuple[str, frozenset[str]]]


class ContextClauses:
    """The clauses of the context's sentences, in order."""

    def __init__(
        self, negated: Iterable[Clause], sentences: Postings[str], sentence_of: SentenceOf
    ) -> None:
        """``negated``: the context's negated clauses in order; ``sentences``: stem -> numbers
        of the sentences holding it; ``sentence_of``: a sentence's text and stems."""
        self._negated = tuple(dict.fromkeys(negated))  # each distinct clause, first one first
        self.negated_words: frozenset[str] = frozenset().union(*(c.stems for c in self._negated))
        self._negated_with = postings([clause.stems for clause in self._negated])
        self._sentences = sentences
        self._sentence_of = sentence_of
        self._split: dict[str, tuple[Clause, ...]] = {}

    def first_holding(self, wanted: frozenset[str], negated: bool) -> Clause | None:
        """The first clause of the context, negated or not as asked, holding every stem of
        ``wanted``; None when none does (an empty ``wanted`` is held by none)."""
        if not wanted:
            return None
        return self._first_negated(wanted) if negated else self._first_plain(wanted)

    def _first_negated(self, wanted: frozenset[str]) -> Clause | None:
        """Only the negated clauses holding the rarest stem of ``wanted`` are looked at."""
        holding = self._negated_with
        rarest = min(wanted, key=lambda stemmed: len(holding.get(stemmed, ())))
        return next(
            (self._negated[i] for i in holding.get(rarest, ()) if wanted <= self._negated[i].stems),
            None,
        )

    def _first_plain(self, wanted: frozenset[str]) -> Clause | None:
        """Only the sentences holding every stem of ``wanted`` are split, in order."""
        candidates = -1
        for stemmed in wanted:
            candidates &= self._sentences.bits(stemmed)
            if not candidates:
                return None
        while candidates:
            number = lowest(candidates)
            for clause in self._clauses_of(number):
                if not clause.negated and wanted <= clause.stems:
                    return clause
            candidates ^= 1 << number
        return None

    def _clauses_of(self, number: int) -> tuple[Clause, ...]:
        text, stems = self._sentence_of(number)
        found = self._split.get(text)
        if found is None:
            found = self._split[text] = clauses_of_normalized(text, stems)
        return found
