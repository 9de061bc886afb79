"""Answer relevance: does the answer address the question asked?

Lexical: the share of the question's content terms that the answer mentions, after a light
plural folding (``requests`` = ``request``). A question with no content terms is covered by
any non-empty answer (score 1). Judge: a 1-5 rubric score mapped to [0, 1] as (r - 1) / 4.
"""

from __future__ import annotations

from ragguard.metrics.text import content_terms

JUDGE_SCALE = (1, 5)


def fold(term: str) -> str:
    """Fold a plural onto its singular: ``requests`` -> ``request``, ``queries`` -> ``query``."""
    if len(term) > 4 and term.endswith("ies"):
        return term[:-3] + "y"
    if len(term) > 3 and term.endswith("s") and not term.endswith(("ss", "us", "is")):
        return term[:-1]
    return term


def folded_terms(text: str) -> frozenset[str]:
    return frozenset(fold(term) for term in content_terms(text))


def lexical_relevance(question: str, answer: str | None) -> float:
    """Share of the question's content terms found in the answer (0 for an empty answer)."""
    if not answer or not answer.strip():
        return 0.0
    asked = folded_terms(question)
    if not asked:
        return 1.0
    return len(asked & folded_terms(answer)) / len(asked)


def judge_relevance(rating: int) -> float:
    """Map the judge's 1-5 rubric rating to [0, 1]."""
    low, high = JUDGE_SCALE
    clamped = min(max(rating, low), high)
    return (clamped - low) / (high - low)
