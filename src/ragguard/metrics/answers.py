"""Answer-level metrics: token F1 against the reference answer, and refusal detection.

``answer_f1`` follows SQuAD's evaluation script: lowercase, punctuation and the articles
a/an/the removed, whitespace collapsed, then the F1 of the bag-of-tokens overlap.

A refusal ("I don't know", "the documentation does not say ...") is what ``abstention`` looks
for on ``answerable: false`` questions. An answer declines when at least half of its
statements are refusal sentences.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

from ragguard.metrics.text import Segment, normalize

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def squad_normalize(text: str) -> str:
    """SQuAD's answer normalisation."""
    lowered = text.lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", lowered).split())


def answer_f1(answer: str | None, reference: str) -> float:
    """Token F1 between an answer and the reference (SQuAD). Two empty texts score 1."""
    predicted = squad_normalize(answer or "").split()
    expected = squad_normalize(reference).split()
    if not predicted or not expected:
        return float(predicted == expected)
    common = Counter(predicted) & Counter(expected)
    overlap = sum(common.values())
    if overlap == 0:
        return 0.0
    precision = overlap / len(predicted)
    recall = overlap / len(expected)
    return 2 * precision * recall / (precision + recall)


_REFUSAL = re.compile(
    r"|".join(
        (
            r"\bi (?:do not|don't|dont) (?:know|have (?:enough |any |the )?information)",
            r"\bi(?: am|'m) (?:not sure|unable|not able|afraid)",
            r"\bi (?:cannot|can't|can not|could not|couldn't|was unable to|am unable to) "
            r"(?:answer|find|determine|tell|say|help with)",
            r"\b(?:unable|not able) to (?:answer|find|determine)",
            r"\b(?:context|documentation|docs|documents|sources?|passages?|information provided"
            r"|provided (?:text|information)) (?:does|do|did) not (?:say|mention|contain|cover"
            r"|specify|provide|include|state|describe|explain|address)",
            r"\b(?:context|documentation|docs|documents|sources?|passages?) "
            r"(?:doesn't|don't|didn't) (?:say|mention|contain|cover|specify|provide|include"
            r"|state|describe|explain|address)",
            r"\bno (?:information|details?|mention|answer) (?:about|on|of|regarding|for|in)",
            r"\bnot (?:mentioned|covered|specified|stated|documented|described|addressed) in",
            r"\b(?:not enough|insufficient) (?:information|context)",
            r"\bthere is no (?:information|mention|documentation)",
            r"\bcannot be (?:answered|determined) (?:from|with|based)",
        )
    )
)


def is_refusal(text: str) -> bool:
    """True when a sentence declines to answer (English refusal patterns)."""
    return _REFUSAL.search(normalize(text)) is not None


def declined(segments: Sequence[Segment]) -> bool:
    """True when at least half of the answer's segments, and at least one, are refusals."""
    if not segments:
        return False
    refusals = sum(1 for segment in segments if is_refusal(segment.text))
    return refusals > 0 and 2 * refusals >= len(segments)
