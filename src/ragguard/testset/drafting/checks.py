"""The checks a draft must pass to be kept: every quote verbatim in its document, and a
question that is not a near-duplicate of one the test set has or another draft.

- **Verbatim**: the quote occurs in the document's text once runs of white space (line
  breaks, indentation) are made one space on both sides; nothing else is forgiven: case,
  punctuation, quotation marks and ellipses must be as written.
- **Near-duplicate**: the Jaccard similarity of the two questions' word sets (lower-cased
  letters and digits) is at least :data:`NEAR_DUPLICATE` (docs/testset-drafting.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ragguard.testset.drafting.model import Draft

NEAR_DUPLICATE = 0.75
_WORD = re.compile(r"[^\W_]+")


def squeezed(text: str) -> str:
    """``text`` with every run of white space as one space, ends trimmed."""
    return " ".join(text.split())


def quote_found(quote: str, document_text: str) -> bool:
    """Whether ``quote`` is in ``document_text``, white space aside (see the module)."""
    needle = squeezed(quote)
    return bool(needle) and needle in squeezed(document_text)


def quotes_found(draft: Draft, texts: Mapping[str, str]) -> bool:
    """Whether each of the draft's quotes is in its document (``texts``: squeezed, by id)."""
    return all(
        quote.doc in texts
        and bool(squeezed(quote.quote))
        and squeezed(quote.quote) in texts[quote.doc]
        for quote in draft.quotes
    )


def word_set(text: str) -> frozenset[str]:
    """A question's words, lower-cased, for near-duplicate checks."""
    return frozenset(word.casefold() for word in _WORD.findall(text))


def similarity(first: frozenset[str], second: frozenset[str]) -> float:
    """Jaccard similarity of two word sets (0 when both are empty)."""
    union = first | second
    return len(first & second) / len(union) if union else 0.0


class SeenQuestions:
    """The questions a draft must not repeat: the test set's and the drafts kept so far."""

    def __init__(self, questions: Iterable[str] = ()) -> None:
        self._seen = [word_set(question) for question in questions]

    def repeats(self, question: str) -> bool:
        words = word_set(question)
        return any(similarity(words, seen) >= NEAR_DUPLICATE for seen in self._seen)

    def add(self, question: str) -> None:
        self._seen.append(word_set(question))

    def keep(self, draft: Draft) -> bool:
        """Add the draft's questions unless one repeats a seen question; whether it did."""
        if any(self.repeats(question) for question in draft.questions):
            return False
        for question in draft.questions:
            self.add(question)
        return True
