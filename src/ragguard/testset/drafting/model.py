"""What a drafted question is: its kind, text, evidence quotes, reference answer and source;
and the tally of what drafting kept and dropped."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field

from ragguard.testset.model import DRAFT

SINGLE_FACT = "single-fact"
MULTI_HOP = "multi-hop"
COMPARISON = "comparison"
UNANSWERABLE = "unanswerable"
FOLLOW_UP = "follow-up"
KINDS = (SINGLE_FACT, MULTI_HOP, COMPARISON, UNANSWERABLE, FOLLOW_UP)
# Kinds drafted from two passages (of two documents when the corpus has two).
TWO_PASSAGE_KINDS = (MULTI_HOP, COMPARISON)
# The only kind the offline extractive mode can draft: a sentence is its own evidence.
OFFLINE_KINDS = (SINGLE_FACT,)
OFFLINE_SOURCE = "offline-extractive"
DRAFT_STATUS = DRAFT  # the loader's status of a question no reviewer has accepted


@dataclass(frozen=True, slots=True)
class Quote:
    """A verbatim quote of a document: the evidence of a draft."""

    doc: str
    quote: str


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of a follow-up draft: the user's question, its answer and its evidence."""

    question: str
    answer: str
    evidence: tuple[Quote, ...]


@dataclass(frozen=True, slots=True)
class Draft:
    """A drafted question. ``evidence`` holds its quotes; a multi-hop draft has ``hops`` (a
    tuple of quotes per retrieval) instead, a follow-up draft ``turns``; an unanswerable
    draft has no evidence."""

    kind: str
    question: str
    answer: str | None
    source: str
    evidence: tuple[Quote, ...] = ()
    hops: tuple[tuple[Quote, ...], ...] = ()
    turns: tuple[Turn, ...] = ()

    @property
    def id(self) -> str:
        """``draft-`` and a short hash of the question text: stable across runs."""
        text = "\n".join(self.questions)
        return "draft-" + hashlib.sha256(text.encode()).hexdigest()[:10]

    @property
    def questions(self) -> tuple[str, ...]:
        """The question's text, or each turn's."""
        return tuple(turn.question for turn in self.turns) if self.turns else (self.question,)

    @property
    def quotes(self) -> tuple[Quote, ...]:
        """Every quote the draft carries, wherever it sits."""
        hops = tuple(quote for hop in self.hops for quote in hop)
        turns = tuple(quote for turn in self.turns for quote in turn.evidence)
        return self.evidence + hops + turns


@dataclass
class Tally:
    """What drafting kept and dropped, for the summary line."""

    drafted: Counter[str] = field(default_factory=Counter)
    not_found: int = 0
    duplicates: int = 0
    malformed: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def dropped(self) -> int:
        return self.not_found + self.duplicates + self.malformed + len(self.failures)

    def line(self) -> str:
        """``drafted N questions (kinds...), dropped M: K quotes not found ...``."""
        count = sum(self.drafted.values())
        kinds = ", ".join(f"{self.drafted[kind]} {kind}" for kind in KINDS if self.drafted[kind])
        text = (
            f"drafted {count} question{'s' if count != 1 else ''} ({kinds or 'none'}), "
            f"dropped {self.dropped}: {self.not_found} quotes not found in the document, "
            f"{self.duplicates} near-duplicates, {self.malformed} malformed replies"
        )
        if self.failures:
            text += f", {len(self.failures)} failed judge calls"
        return text
