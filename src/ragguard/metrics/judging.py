"""The interface between the generation metrics and a judge: what is asked, what comes back.

The metrics define it and the LLM judge (the ``judge`` package: prompts, HTTP client, cache)
implements it, so scoring stays pure and never imports the edge. A judge takes
:class:`JudgeItem` values (one per answer) and returns a :class:`JudgeOutcome` for each: a
parsed :class:`JudgeVerdict`, or the reason there is none (an outcome without a verdict is a
judge error for that answer, never a pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ragguard.metrics.text import Segment


@dataclass(frozen=True)
class JudgeItem:
    """One answer to judge: its question id (the key), question, segments and context."""

    key: str
    question: str
    segments: tuple[Segment, ...]
    context: tuple[tuple[str, str], ...]
    not_claims: frozenset[str] = frozenset()  # ids shown to the judge but not judged

    @property
    def sentence_ids(self) -> list[str]:
        """The ids the judge must give a verdict for: the claims."""
        return [segment.id for segment in self.segments if segment.id not in self.not_claims]

    @property
    def chunk_ids(self) -> list[str]:
        return [chunk_id for chunk_id, _ in self.context]


@dataclass(frozen=True, slots=True)
class SentenceJudgement:
    id: str
    supported: bool
    evidence: str | None


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """The judge's parsed reply for one answer."""

    sentences: tuple[SentenceJudgement, ...]
    relevance: int
    declined: bool

    @property
    def by_id(self) -> dict[str, SentenceJudgement]:
        return {sentence.id: sentence for sentence in self.sentences}


@dataclass(frozen=True)
class JudgeOutcome:
    """The verdict for one answer, or why there is none."""

    verdict: JudgeVerdict | None
    error: str | None = None
    cached: bool = False


class Judge(Protocol):
    """What scoring needs of a judge (the judge package's ``JudgeClient`` is one)."""

    def judge_many(self, items: Sequence[JudgeItem]) -> dict[str, JudgeOutcome]: ...
