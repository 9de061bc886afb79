"""The results model (``ragguard.results/1``): the dataclasses, their dict form, and the
constructors the bulk paths use.

A results file holds everything compare needs, so it doubles as the baseline: the summary,
and per question its metric values, status, retrieved ids, labels, answer and verdicts.
:mod:`ragguard.results.io` writes and reads the file.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from itertools import repeat
from typing import Any

from ragguard import __version__
from ragguard.results.agent import AgentDetail
from ragguard.results.judging import JudgeCosts
from ragguard.results.usage import Usage

SCHEMA = "ragguard.results/1"
SUPPORTED_SCHEMAS = (SCHEMA,)

STATUS_OK = "ok"
STATUS_ERROR = "error"
STATUS_MISSING = "missing"
STATUS_ABSTAINED = "abstained"
STATUS_JUDGE_ERROR = "judge_error"
STATUSES = (STATUS_OK, STATUS_ERROR, STATUS_MISSING, STATUS_ABSTAINED, STATUS_JUDGE_ERROR)


@dataclass(frozen=True, slots=True)
class SentenceVerdict:
    """One answer sentence and whether the context supports it."""

    id: str
    text: str
    supported: bool | None
    score: float | None = None
    evidence: str | None = None
    note: str | None = None  # why unsupported or unchecked, e.g. "number 9 not in the evidence"


@dataclass(frozen=True, slots=True)
class RepeatRun:
    """One of the runs of a question asked several times (``system.repeat``, repeats.py)."""

    status: str
    metrics: dict[str, float]
    error: str | None = None
    latency_ms: float | None = None


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """Everything known about one question in one run."""

    id: str
    question: str
    status: str
    metrics: dict[str, float]
    # A tuple, or ids read from a results file and split on first use (lines.py).
    retrieved: Sequence[str] = ()
    relevant: dict[str, int] = field(default_factory=dict)
    fingerprint: str = ""
    answerable: bool = True
    critical: bool = False
    tags: tuple[str, ...] = ()
    reference_answer: str | None = None
    answer: str | None = None
    sentences: tuple[SentenceVerdict, ...] = ()
    latency_ms: float | None = None
    error: str | None = None
    # With evidence labels: the labels (Evidence.key, grade), and the grade each retrieved
    # chunk earned by the evidence it covers (chunks that cover none are absent).
    evidence: dict[str, int] = field(default_factory=dict)
    judgments: dict[str, int] = field(default_factory=dict)
    usage: Usage | None = None  # what the system reported this answer cost (usage.py)
    # Asked several times (``system.repeat``): each run; the fields above combine them
    # (repeats.py). Empty for a question asked once.
    repeats: tuple[RepeatRun, ...] = ()
    # An agent's question (hops or expected tools): its hops and tool calls (agent.py).
    agent: AgentDetail | None = None
    conversation: str | None = None  # a turn of a conversation: the conversation's id

    @property
    def judged_chunks(self) -> dict[str, int]:
        """Grades of the chunks this run can judge: labelled ids and covered evidence."""
        return {**self.relevant, **self.judgments} if self.judgments else self.relevant


@dataclass(frozen=True, slots=True)
class MetricSummary:
    """The mean of a metric over the questions it applies to, with a 95% interval."""

    value: float
    n: int
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class ShardInfo:
    """Marks a results file as one part of a sharded run (``ragguard run --shard i/n``).

    ``positions`` gives, for each of the part's questions (in its order), the question's
    place in the whole test set of ``testset_size`` questions, so merging restores the
    unsharded order without the test set at hand. The ids covered are the questions' ids.
    """

    index: int
    count: int
    testset_size: int
    positions: tuple[int, ...]


@dataclass(frozen=True)
class Results:
    suite: str
    created_at: str
    metrics: tuple[str, ...]
    summary: dict[str, MetricSummary]
    questions: tuple[QuestionResult, ...]
    testset_fingerprint: str
    config: dict[str, Any] = field(default_factory=dict)
    git: dict[str, str | None] = field(default_factory=dict)
    ragguard_version: str = __version__
    shard: ShardInfo | None = None
    judge: JudgeCosts | None = None  # what judging cost (judging.py); None: no judge

    @property
    def config_fingerprint(self) -> str:
        return config_fingerprint(self.config)

    @property
    def counts(self) -> dict[str, int]:
        """Questions per status, every status listed."""
        counted = Counter(question.status for question in self.questions)
        return {status: counted.get(status, 0) for status in STATUSES}

    @property
    def by_id(self) -> dict[str, QuestionResult]:
        return {question.id: question for question in self.questions}

    def to_dict(self) -> dict[str, Any]:
        data = header_to_dict(self)
        data["questions"] = [question_to_dict(question) for question in self.questions]
        return data

    def to_json(self) -> str:
        """The results file's text (:func:`ragguard.results.io.results_json`)."""
        from ragguard.results.io import results_json

        return results_json(self)

    def json_chunks(self, lines: Mapping[int, str] | None = None) -> Iterator[str]:
        """The results file's text in pieces (:func:`ragguard.results.io.json_chunks`)."""
        from ragguard.results.io import json_chunks

        return json_chunks(self, lines)


def config_fingerprint(config: Mapping[str, Any]) -> str:
    """A hash of the settings that make two runs comparable."""
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def header_to_dict(results: Results) -> dict[str, Any]:
    """Everything but the questions."""
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "suite": results.suite,
        "created_at": results.created_at,
        "ragguard_version": results.ragguard_version,
        "git": dict(results.git),
        "testset": {"fingerprint": results.testset_fingerprint, "size": len(results.questions)},
        "config": {"fingerprint": results.config_fingerprint, "settings": results.config},
        "metrics": list(results.metrics),
        "summary": {
            name: {"value": s.value, "n": s.n, "ci": [s.low, s.high]}
            for name, s in results.summary.items()
        },
        "counts": results.counts,
    }
    if results.shard is not None:
        data["shard"] = _shard_to_dict(results.shard)
    if results.judge is not None:
        data["judge"] = results.judge.to_dict()
    return data


def _shard_to_dict(shard: ShardInfo) -> dict[str, Any]:
    return {
        "index": shard.index,
        "count": shard.count,
        "testset_size": shard.testset_size,
        "positions": list(shard.positions),
    }


def question_to_dict(question: QuestionResult) -> dict[str, Any]:
    data = _question_fields(question)
    if question.evidence:
        data["evidence"] = question.evidence
        data["judgments"] = question.judgments
    if question.repeats:
        data["repeats"] = [repeat_to_dict(run) for run in question.repeats]
    if question.agent is not None:
        data["agent"] = question.agent.to_dict()
    if question.conversation is not None:
        data["conversation"] = question.conversation
    return data


def repeat_to_dict(run: RepeatRun) -> dict[str, Any]:
    return {
        "status": run.status,
        "metrics": run.metrics,
        "error": run.error,
        "latency_ms": run.latency_ms,
    }


def _question_fields(question: QuestionResult) -> dict[str, Any]:
    return {
        "id": question.id,
        "question": question.question,
        "status": question.status,
        "metrics": question.metrics,
        "retrieved": list(question.retrieved),
        "relevant": question.relevant,
        "fingerprint": question.fingerprint,
        "answerable": question.answerable,
        "critical": question.critical,
        "tags": list(question.tags),
        "reference_answer": question.reference_answer,
        "answer": question.answer,
        "sentences": [
            {
                "id": s.id,
                "text": s.text,
                "supported": s.supported,
                "score": s.score,
                "evidence": s.evidence,
                "note": s.note,
            }
            for s in question.sentences
        ],
        "latency_ms": question.latency_ms,
        "error": question.error,
    } | ({"usage": question.usage.to_dict()} if question.usage is not None else {})


# Each field's slot setter: a frozen dataclass's __init__ sets every field through
# object.__setattr__, three times slower (a third of reading a large file's questions).
_SLOT_SETTERS = tuple(
    (field.name, QuestionResult.__dict__[field.name].__set__) for field in fields(QuestionResult)
)


def question_result(**values: Any) -> QuestionResult:
    """``QuestionResult(**values)`` for checked values of every field (each one given),
    its slots set directly: for the bulk paths, reading a results file and scoring a run."""
    question = object.__new__(QuestionResult)
    for name, set_slot in _SLOT_SETTERS:
        set_slot(question, values[name])
    return question


def question_results(columns: Mapping[str, Iterable[Any]], count: int) -> list[QuestionResult]:
    """:func:`question_result` column-wise: ``count`` questions from checked values given
    field by field (every field: a column of at least ``count`` values, or
    ``itertools.repeat`` of one), each slot set by ``map`` in C; a 100,000-question file
    would otherwise call about 2 million setters from Python."""
    questions = list(map(object.__new__, repeat(QuestionResult, count)))
    for name, set_slot in _SLOT_SETTERS:
        deque(map(set_slot, questions, columns[name]), maxlen=0)
    return questions


def run_count(question: QuestionResult) -> int:
    """How many times the question was asked (1 without repeats)."""
    return len(question.repeats) or 1


def runs_of(question: QuestionResult) -> tuple[RepeatRun, ...]:
    """The question's runs: its repeats, or itself as the one run."""
    if question.repeats:
        return question.repeats
    return (as_run(question),)


def as_run(question: QuestionResult) -> RepeatRun:
    return RepeatRun(question.status, question.metrics, question.error, question.latency_ms)
