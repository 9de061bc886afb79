"""Which statements of an answer are claims about the world, and what each one claims.

Real LLM answers wrap their facts in prose that is not checkable against the context: a
lead-in ("Based on the given passages, here are the steps:"), the question repeated, remarks
about the passages ("Passage 3 does not provide enough information"), refusals, and citations
("(Passage 1)", "[2]", "see step 4"). Counting these as claims made the lexical check flag
almost every real answer (docs/generation.md, "Measured on real answers"). The rules:

- A segment that ends with ``?`` (a question) or ``:`` (a lead-in to a list) is not a claim.
- A refusal (:func:`ragguard.metrics.answers.is_refusal`) is not a claim: abstention scores it.
- A remark about the context, a sentence that names the passages / context / sources /
  provided information and is negated ("the passages do not mention X", "none is mentioned in
  the given passages"), is not a claim: it says what the context lacks, not what is true.
- Courtesy ("Sure, I'd be happy to help", "Good luck!", "let me know if ...") is not a claim,
  nor is a remark on whether the context suffices ("the passages provide enough information",
  "Passage 3: (unavailable)").
- Advice to look elsewhere ("consult a professional", "seek guidance from an expert") is not
  a claim: it says where to ask, not what is true.
- Citations and references to the answer's own steps are removed before the claim is read:
  ``(Passage 1)``, ``passages 1, 2, and 3``, ``[1]``, ``source 2``, ``step 4``, ``method 1 of
  2``; so are unit conversions in parentheses (``58 degrees Fahrenheit (15 degrees
  Celsius)``): the converted number is the first one said again, not a new claim.
- Framing words ("based", "according", "provided", "passage", "answer", "important", "note",
  "however", "overall", ...) and relation words NLTK's stopwords lack ("within", "among",
  "across", ...) are not content: a segment with no content word left is not a claim, and
  the words never count for or against a claim.

What remains is checked: its content stems and its quantities.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ragguard.metrics.answers import is_refusal
from ragguard.metrics.text import (
    NEGATION,
    Segment,
    normalize,
    quantities,
    stem,
    stemmed_words,
    word_set,
)

FRAMING_WORDS = word_set(
    """
    based provided given passage passages context contexts information text texts source
    sources document documents excerpt excerpts answer answers question questions according
    mention mentioned mentions say says said describe described describes explain explained
    explains indicate indicated indicates suggest suggests here sure hope helps help let know
    however additionally overall therefore thus hence furthermore moreover finally firstly
    secondly lastly important importantly note noted notes generally typically usually
    various different specific certain follow following step steps way ways summary
    summarize conclusion example examples instance etc include includes including
    """
)
# Prepositions and adverbs NLTK's stopword list lacks: they relate a claim's words but claim
# nothing a chunk could hold ("Within a year." states a year, not "within").
RELATION_WORDS = word_set(
    """
    within upon among amongst across along alongside around behind beyond beside besides
    toward towards onto throughout unlike despite except inside outside near underneath
    """
)


@functools.cache
def _framing_stems() -> frozenset[str]:
    """The framing and relation words' stems, made on first use (the stemmer loads then, not
    at import)."""
    return frozenset(stem(word) for word in FRAMING_WORDS | RELATION_WORDS)


# Each pattern first looks ahead for the character its every match starts with (a letter
# that begins one of its words, "[", a space or "("): a cheap test at each position that
# skips the alternation where it cannot match (the same matches; a third of the time).
_CITATION = re.compile(
    r"(?=[pscdrestimo\[])"
    r"(?:\b(?:passages?|sources?|documents?|contexts?|chunks?|references?|excerpts?|steps?|items?"
    r"|points?|options?|methods?|tips?|parts?|sections?)\s*#?\s*\d+\b(?:\s+of\s+\d+\b)?"
    r"(?:\s*(?:,\s*(?:and|or|&)?|and|&|-|\u2013|or|to)\s*\d+\b)*"
    r"|\[\s*\d+(?:\s*[,\u2013-]\s*\d+)*\s*\])",
    re.IGNORECASE,
)
_CONTEXT_REFERENCE = re.compile(
    r"\b(?:passages?|contexts?|sources?|documents?|excerpts?|provided (?:text|information)"
    r"|given (?:text|information)|information (?:provided|given))\b"
)

# Courtesy: an offer, a wish, a sign-off. It says nothing about the world.
_COURTESY = re.compile(
    r"^\W*(?:sure|certainly|of course|absolutely)\b.*\b(?:happy|glad)\b.*\bhelp"
    r"|\b(?:happy|glad) to help\b|\bgood luck\b|\bhope (?:this|that|it) helps\b"
    r"|\blet me know\b|\bfeel free to\b|\bany (?:other|further|more) questions\b"
)
# A remark on whether the context answers the question: "the passages provide enough
# information", "Passage 3: (unavailable)".
_CONTEXT_VERDICT = re.compile(
    r"\b(?:(?:enough|sufficient|insufficient|necessary) (?:information|details?|context)"
    r"|unavailable|able to answer)\b"
)
# Advice to look elsewhere: "consult a professional", "seek guidance from an expert".
_REFERRAL = re.compile(
    r"\b(?:consult|seek|contact|ask|visit|refer to|check with|speak (?:to|with)|talk to)\b"
    r"[^.;]{0,80}?\b(?:professionals?|experts?|specialists?|doctors?|physicians?|dentists?"
    r"|veterinarians?|vets?|contractors?|locksmiths?|plumbers?|electricians?|lawyers?"
    r"|attorneys?|accountants?|resources|sources|guidance|assistance|advice|manuals?)\b"
)
# A quantity in parentheses right after another, in another unit: a conversion of it
# ("58 degrees Fahrenheit (15 degrees Celsius)"), not a second claim.
_CONVERSION = re.compile(
    r"(?=[\s(])(?<=[\d%\w])\s*\(\s*(?:about|approximately|approx\.|around|~)?\s*-?\d[\d.,]*\s*"
    r"(?:\u00b0\s*)?(?:degrees?\s+)?(?:c|f|celsius|fahrenheit|km|kilomet(?:er|re)s?|miles?|mi"
    r"|kg|kilograms?|pounds?|lbs?|g|grams?|ounces?|oz|m|met(?:er|re)s?|feet|foot|ft|cm"
    r"|centimet(?:er|re)s?|inch(?:es)?|in|lit(?:er|re)s?|l|gallons?|ml|cups?|mph|km/h|kph)\b"
    r"[^()]*\)",
    re.IGNORECASE,
)

NOT_A_QUESTION = "not a claim: a question"
NOT_A_COURTESY = "not a claim: a courtesy"
NOT_A_REFERRAL = "not a claim: advice to look elsewhere"
NOT_A_LEAD_IN = "not a claim: a lead-in"
NOT_A_REFUSAL = "not a claim: a refusal"
NOT_ABOUT_CONTEXT = "not a claim: a remark about the context"
NO_CONTENT = "not a claim: no content words"


@dataclass(frozen=True, slots=True)
class Claim:
    """What one statement claims: its content stems (first spelling kept for the reason
    shown in a report), its quantities and the text they were read from."""

    stems: dict[str, str]
    quantities: frozenset[float]
    text: str = ""  # the statement without its citations and conversions


def without_citations(text: str) -> str:
    """The text with citations, step references and unit conversions replaced by spaces."""
    return _CONVERSION.sub(" ", _CITATION.sub(" ", text))


def not_a_claim(text: str) -> str | None:
    """Why a statement is not a claim (a note such as ``not a claim: a lead-in``), or None."""
    stripped = text.strip().rstrip("*_)\"'").rstrip()
    if stripped.endswith("?"):
        return NOT_A_QUESTION
    if stripped.endswith(":"):
        return NOT_A_LEAD_IN
    if is_refusal(text):
        return NOT_A_REFUSAL
    lowered = normalize(text)
    if _COURTESY.search(lowered):
        return NOT_A_COURTESY
    if _REFERRAL.search(lowered):
        return NOT_A_REFERRAL
    if _CONTEXT_REFERENCE.search(lowered) and (
        NEGATION.search(lowered) or _CONTEXT_VERDICT.search(lowered)
    ):
        return NOT_ABOUT_CONTEXT
    return None


def claim_of(text: str) -> Claim | None:
    """The claim a statement makes, or None when it has no content word and no quantity."""
    cleaned = without_citations(text)
    spelled: dict[str, str] = {}
    framing = _framing_stems()
    for word, stemmed in stemmed_words(cleaned):
        if stemmed not in framing:
            spelled.setdefault(stemmed, word)
    amounts = quantities(cleaned)
    if not spelled and not amounts:
        return None
    return Claim(spelled, amounts, cleaned)


def why_not_a_claim(text: str) -> str | None:
    """The note for a statement that is not a claim, or None for a claim."""
    reason = not_a_claim(text)
    if reason is None and claim_of(text) is None:
        return NO_CONTENT
    return reason


def non_claims(segments: Sequence[Segment]) -> dict[str, str]:
    """Segment id -> why it is not a claim, for the segments that are not claims. The lexical
    method and the judge leave exactly these out of faithfulness."""
    found = {}
    for segment in segments:
        reason = why_not_a_claim(segment.text)
        if reason is not None:
            found[segment.id] = reason
    return found
