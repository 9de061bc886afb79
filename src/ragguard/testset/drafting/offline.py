"""Offline extractive drafts: single-fact questions made from the corpus's own sentences,
without a judge, deterministic for a seed (docs/testset-drafting.md).

A sentence qualifies when it is 40 to 300 characters long and holds a definition ("X is a
...", asked as "What is X?"), a number or a name (a capitalised word after the first); a
number or a name is blanked out and asked for ("Which number completes ..."). The sentence is
the draft's verbatim quote and its reference answer. Lines that are headings, table rows or
code are skipped; a list item's marker is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ragguard.testset.drafting.model import OFFLINE_SOURCE, SINGLE_FACT, Draft, Quote
from ragguard.testset.drafting.passages import Passage

MIN_SENTENCE = 40
MAX_SENTENCE = 300
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SKIPPED_LINE = re.compile(r"^\s*(?:#|\||```|~~~|>|<)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(`*])")
_DEFINITION = re.compile(
    r"^(?P<term>(?:(?:An?|The)\s+)?[A-Za-z][\w-]*(?:\s+[\w-]+){0,3}?)\s+(?:is|are)\s+(?:a|an|the)\s"
)
_NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*(?:\s?%)?(?![\w])")
_NAME = re.compile(r"(?<=\s)[A-Z][A-Za-z0-9]*(?:[-][A-Za-z0-9]+)*")


def sentences(text: str) -> Iterator[str]:
    """The sentences of ``text``, line by line, as they are written in it."""
    for line in text.splitlines():
        if not line.strip() or _SKIPPED_LINE.match(line):
            continue
        body = _LIST_MARKER.sub("", line).strip()
        yield from (part.strip() for part in _SENTENCE_END.split(body) if part.strip())


def question_for(sentence: str, doc: str) -> str | None:
    """An extractive question the sentence answers, or None when it holds no fact to ask."""
    if not MIN_SENTENCE <= len(sentence) <= MAX_SENTENCE or sentence.endswith("?"):
        return None
    definition = _DEFINITION.match(sentence)
    if definition:
        return f"What is {_lowered_article(definition.group('term'))}?"
    number = _NUMBER.search(sentence)
    if number:
        return _cloze("number", sentence, number.start(), number.end(), doc)
    name = _NAME.search(sentence)
    if name:
        return _cloze("name", sentence, name.start(), name.end(), doc)
    return None


def _lowered_article(term: str) -> str:
    first, _, rest = term.partition(" ")
    return f"{first.lower()} {rest}" if rest and first in ("A", "An", "The") else term


def _cloze(what: str, sentence: str, start: int, end: int, doc: str) -> str:
    blanked = sentence[:start] + "___" + sentence[end:]
    return f'Which {what} fills the blank in {doc}: "{blanked}"?'


def offline_candidates(passages: Iterable[Passage]) -> Iterator[Draft]:
    """A draft for each passage, in the order given, from its first sentence that
    qualifies; a passage whose sentences all fail gives none."""
    for passage in passages:
        draft = _draft_of(passage)
        if draft is not None:
            yield draft


def _draft_of(passage: Passage) -> Draft | None:
    for sentence in sentences(passage.text):
        question = question_for(sentence, passage.doc)
        if question is not None:
            quote = (Quote(passage.doc, sentence),)
            return Draft(SINGLE_FACT, question, sentence, OFFLINE_SOURCE, evidence=quote)
    return None
