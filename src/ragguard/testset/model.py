"""The labelled test set: questions, graded relevance labels and fingerprints.

:mod:`ragguard.testset.load` reads a YAML list, JSON Lines (one question object a line) or
CSV with a header row; TREC qrels and BEIR folders are read by :mod:`ragguard.testset.formats`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragguard.core.errors import InputError

# Grades are small integers; the cap keeps 2^grade (ndcg_exp's gain) a finite float.
MAX_GRADE = 100

# A question's review status: a draft waits for a reviewer; absent means reviewed.
DRAFT = "draft"
REVIEWED = "reviewed"
STATUSES = (DRAFT, REVIEWED)


@dataclass(frozen=True, slots=True)
class Evidence:
    """A label that names where the answer is, not which chunk holds it.

    A document, and optionally a span of it: a ``quote`` of its text, a character range
    ``chars`` (start inclusive, end exclusive) or a line range ``lines`` (both inclusive,
    1-based). Without a span the whole document is the evidence. Chunks are judged by
    whether they cover it (:mod:`ragguard.metrics.evidence`), so the label survives a
    rechunk that changes every chunk id.
    """

    doc: str
    grade: int = 1
    quote: str | None = None
    chars: tuple[int, int] | None = None
    lines: tuple[int, int] | None = None

    @property
    def key(self) -> str:
        """A stable text naming this evidence (fingerprints, messages)."""
        if self.quote is not None:
            return f"{self.doc}: {json.dumps(self.quote, ensure_ascii=False)}"
        if self.chars is not None:
            return f"{self.doc}: chars {self.chars[0]}-{self.chars[1]}"
        if self.lines is not None:
            return f"{self.doc}: lines {self.lines[0]}-{self.lines[1]}"
        return self.doc


@dataclass(frozen=True, slots=True)
class Hop:
    """One retrieval an agent is expected to make, in order, with its own labels."""

    relevant: Mapping[str, int] = field(default_factory=dict)
    evidence: tuple[Evidence, ...] = ()

    @property
    def key(self) -> list[Any]:
        """The hop's labels as a stable value (fingerprints)."""
        return [sorted(self.relevant.items()), sorted([e.key, e.grade] for e in self.evidence)]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call the system is expected to make: its name, and the arguments that must
    match (a subset: keys not named are not checked)."""

    name: str
    arguments: Mapping[str, Any] | None = None


TOOL_ORDERS = ("any", "strict")


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a conversation so far: the user's (``role`` user) or the system's
    answer (``assistant``), as chat APIs write them."""

    role: str
    content: str

    def to_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class Question:
    """One test question and its labels.

    ``relevant`` maps chunk ids to grades (0 = judged not relevant, 1 = partly useful,
    2 = answers it, ...). A chunk counts as relevant when its grade is at least 1.
    ``evidence`` holds the labels that name a document or a span of one instead of a chunk.
    """

    id: str
    question: str
    relevant: Mapping[str, int] = field(default_factory=dict)
    reference_answer: str | None = None
    answerable: bool = True
    critical: bool = False
    tags: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)
    evidence: tuple[Evidence, ...] = ()
    # An agent's expected retrievals in order, and the tool calls it should make
    # (docs/agents.md); ``relevant``/``evidence`` then hold at least the hops' labels.
    hops: tuple[Hop, ...] = ()
    expected_tools: tuple[ToolCall, ...] = ()
    tool_order: str = "any"
    # A turn of a conversation (docs/agents.md): the conversation's id (this question's id is
    # ``<conversation>#<turn>``), and, while it is asked, the messages before it.
    conversation: str | None = None
    history: tuple[Message, ...] = ()
    # A drafted question (``ragguard testset draft``) waits for a reviewer: it is not asked,
    # scored or gated unless a run includes drafts (docs/formats.md). ``kind`` and ``source``
    # say what kind of question a drafter made and from what; neither is scored.
    status: str = "reviewed"
    kind: str | None = None
    source: str | None = None

    @property
    def is_draft(self) -> bool:
        """Whether the question is a draft no reviewer has accepted yet."""
        return self.status == DRAFT

    @property
    def fingerprint(self) -> str:
        """A hash of what scoring depends on: the id, the labels and answerability, and the
        hops and expected tools when there are any."""
        return label_fingerprint(
            self.id, self.relevant, self.answerable, self.evidence, self.agent_labels
        )

    @property
    def agent_labels(self) -> dict[str, Any] | None:
        """The hops and expected tool calls as a stable value, or None without either."""
        if not self.hops and not self.expected_tools:
            return None
        tools = [[call.name, call.arguments] for call in self.expected_tools]
        return {"hops": [hop.key for hop in self.hops], "tools": tools, "order": self.tool_order}

    @property
    def has_relevant(self) -> bool:
        """Whether any label, chunk or evidence, has a grade of at least 1."""
        return any(g >= 1 for g in self.relevant.values()) or any(
            e.grade >= 1 for e in self.evidence
        )


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))  # built once: hot


def label_fingerprint(
    question_id: str,
    relevant: Mapping[str, int],
    answerable: bool,
    evidence: tuple[Evidence, ...] = (),
    agent_labels: Mapping[str, Any] | None = None,
) -> str:
    """A hash of the labels; a question without evidence, hops or expected tools hashes as
    it always did."""
    payload: dict[str, Any] = {"id": question_id, "relevant": relevant, "answerable": answerable}
    if evidence:
        payload["evidence"] = sorted([e.key, e.grade] for e in evidence)
    if agent_labels:
        payload["agent"] = agent_labels
    text = _CANONICAL.encode(payload)  # sort_keys also orders the labels
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class TestSet:
    """An ordered collection of questions with unique ids.

    ``source`` is where it came from and ``lines`` the line of each question's entry in it
    (neither is part of equality). A run may also mention ids that are not scored:
    ``unjudged`` ones, which the source lists without labels (BEIR queries of another split).
    """

    __test__ = False  # not a pytest test class

    questions: tuple[Question, ...]
    source: str = field(default="", compare=False)
    unjudged: frozenset[str] = frozenset()
    lines: Mapping[str, int | None] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for question in self.questions:
            if question.id in seen:
                raise InputError(
                    self.source or "test set", f"duplicate question id {question.id!r}"
                )
            seen.add(question.id)

    def __len__(self) -> int:
        return len(self.questions)

    def __iter__(self) -> Iterator[Question]:
        return iter(self.questions)

    @property
    def by_id(self) -> dict[str, Question]:
        return {question.id: question for question in self.questions}

    @property
    def known_ids(self) -> frozenset[str]:
        """Ids a run may have entries for: the questions and the unjudged ids."""
        return frozenset(question.id for question in self.questions) | self.unjudged

    @property
    def fingerprint(self) -> str:
        """A hash over every question's fingerprint, independent of question order."""
        return combined_fingerprint(question.fingerprint for question in self.questions)

    @property
    def drafts(self) -> tuple[Question, ...]:
        """The drafted questions no reviewer has accepted yet, in file order."""
        return tuple(question for question in self.questions if question.is_draft)

    def without_drafts(self) -> TestSet:
        """The test set a run evaluates by default: the reviewed questions alone. The drafts'
        ids stay known (``unjudged``), so a recorded run that answered them is not refused."""
        drafts = self.drafts
        if not drafts:
            return self
        kept = tuple(question for question in self.questions if not question.is_draft)
        lines = {q.id: self.lines.get(q.id) for q in kept}
        unjudged = self.unjudged | {q.id for q in drafts}
        return TestSet(kept, source=self.source, unjudged=unjudged, lines=lines)


def combined_fingerprint(fingerprints: Iterable[str]) -> str:
    """The test set fingerprint from its questions' (scoring computes each one once)."""
    digest = hashlib.sha256()
    for fingerprint in sorted(fingerprints):
        digest.update(fingerprint.encode())
    return digest.hexdigest()[:16]


def too_high_grade(chunk_id: str, grade: int) -> str:
    return grade_too_high(repr(chunk_id), grade)


def grade_too_high(what: str, grade: int) -> str:
    """The error for a grade over :data:`MAX_GRADE`; ``what`` names the label."""
    return (
        f"grade of {what} is {grade}; grades go from 0 to {MAX_GRADE} "
        "(0 judged not relevant, 1 partly useful, 2 answers it, ...)"
    )


_SPACE = re.compile(r"\s+")


def normal_text(text: str) -> str:
    """Text as quotes are matched: case folded, runs of whitespace as one space."""
    return _SPACE.sub(" ", text).strip().casefold()
