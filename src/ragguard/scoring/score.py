"""Scoring: a test set and a run in, :class:`Results` out. No I/O.

A question whose run errored or is missing scores 0 on every metric and is counted, so a
gate can never improve by crashing. Retrieval metrics do not apply to ``answerable: false``
questions; they are left out of those questions' values and of the metric's n.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ragguard.metrics.names import ABSTENTION, MetricSpec, with_agent_metrics
from ragguard.metrics.retrieval import Labels, score_ranking
from ragguard.metrics.stats import Bootstrap, mean
from ragguard.results.agent import AgentDetail
from ragguard.results.chunks import Chunk
from ragguard.results.model import (
    STATUS_ERROR,
    STATUS_MISSING,
    STATUS_OK,
    MetricSummary,
    QuestionResult,
    Results,
    question_result,
)
from ragguard.results.records import RunRecord
from ragguard.results.usage import Usage
from ragguard.scoring.agents import agent_specs, agent_values, zero_values
from ragguard.scoring.ranking import has_document_level, retrieval_specs, retrieval_values
from ragguard.testset.model import Question, TestSet, combined_fingerprint

if TYPE_CHECKING:
    from ragguard.metrics.judging import Judge
    from ragguard.metrics.settings import GenerationSettings

MISSING_MESSAGE = "no entry for this question in the run"


def score_question(
    question: Question,
    record: RunRecord | None,
    specs: Sequence[MetricSpec],
    origins: Mapping[str, Chunk] | None = None,
    min_coverage: float | None = None,
) -> QuestionResult:
    """Score one question from its run record (``None`` when the run has no entry).

    ``origins`` (the corpus's chunks by id) completes retrieved chunks that lack the text
    or document that evidence labels are judged by; ``min_coverage`` defaults to
    ``metrics.settings.DEFAULT_MIN_COVERAGE``.
    """
    if record is None:
        return score_ranked(question, None, specs)
    retrieval = retrieval_specs(specs) if _ranks_chunks(question) else ()
    values: dict[str, float] = {}
    judgments: dict[str, int] = {}
    agent = agent_specs(specs)
    detail = None
    if record.error:
        status, values = STATUS_ERROR, dict.fromkeys(_names(retrieval), 0.0)
        values.update(zero_values(question, agent))
    else:
        status = STATUS_OK
        if retrieval:
            values, judgments = retrieval_values(
                question, record.retrieved, retrieval, origins, min_coverage
            )
        if agent:
            agent_scores, detail = agent_values(question, record, agent, origins, min_coverage)
            values.update(agent_scores)
        if record.steps:
            detail = replace(detail or AgentDetail(), steps=len(record.steps))
    return _result(
        question,
        status,
        values,
        tuple(record.retrieved_ids),
        error=record.error or None,
        judgments=judgments,
        answer=record.answer,
        latency_ms=record.latency_ms,
        usage=record.usage,
        agent=detail,
    )


def score_ranked(
    question: Question,
    ranking: Sequence[str] | None,
    specs: Sequence[MetricSpec],
    origins: Mapping[str, Chunk] | None = None,
) -> QuestionResult:
    """Score one question from its ranked chunk ids alone (a TREC run; ``None`` when the run
    has no entry): the same values as :func:`score_question` with a record of those ids."""
    retrieval = retrieval_specs(specs) if _ranks_chunks(question) else ()
    if ranking is None:
        values = dict.fromkeys(_names(retrieval), 0.0)
        values.update(zero_values(question, agent_specs(specs)))
        return _result(question, STATUS_MISSING, values, (), error=MISSING_MESSAGE)
    if not retrieval:
        return ranked_result(question, {}, tuple(ranking))
    if question.evidence or has_document_level(retrieval):
        chunks = tuple(map(Chunk, ranking))
        values, judgments = retrieval_values(question, chunks, retrieval, origins, None)
        return ranked_result(question, values, tuple(ranking), judgments)
    values = score_ranking(ranking, Labels.from_grades(question.relevant), retrieval)
    return ranked_result(question, values, tuple(ranking))


def ranked_result(
    question: Question,
    values: dict[str, float],
    ranking: Sequence[str],
    judgments: dict[str, int] | None = None,
    fingerprint: str | None = None,
) -> QuestionResult:
    """What :func:`score_ranked` returns for a question the run ranks, from its values
    (also for a question scored in another process, parallel_scoring.py, which sends the
    question's ``fingerprint`` as it computed it)."""
    return _result(
        question, STATUS_OK, values, ranking, judgments=judgments, fingerprint=fingerprint
    )


SENT_FIELDS = (
    "status",
    "metrics",
    "error",
    "judgments",
    "answer",
    "latency_ms",
    "usage",
    "fingerprint",
    "agent",
)


def sent_fields(result: QuestionResult) -> tuple[object, ...]:
    """What another process sends of a question it scored with :func:`score_question` (the
    question's own fields, which this process has, left out): :func:`received_result`
    rebuilds it with the ids it retrieved."""
    return tuple(getattr(result, name) for name in SENT_FIELDS)


def received_result(
    question: Question, fields: Sequence[object], retrieved: Sequence[str]
) -> QuestionResult:
    """The question's result from :func:`sent_fields` and its retrieved ids."""
    sent = dict(zip(SENT_FIELDS, fields, strict=True))
    return _result(
        question,
        sent["status"],  # type: ignore[arg-type]
        sent["metrics"],  # type: ignore[arg-type]
        retrieved,
        error=sent["error"],  # type: ignore[arg-type]
        judgments=sent["judgments"],  # type: ignore[arg-type]
        answer=sent["answer"],  # type: ignore[arg-type]
        latency_ms=sent["latency_ms"],  # type: ignore[arg-type]
        usage=sent["usage"],  # type: ignore[arg-type]
        fingerprint=sent["fingerprint"],  # type: ignore[arg-type]
        agent=sent["agent"],  # type: ignore[arg-type]
    )


def _result(
    question: Question,
    status: str,
    values: dict[str, float],
    retrieved: Sequence[str],
    *,
    error: str | None = None,
    judgments: dict[str, int] | None = None,
    answer: str | None = None,
    latency_ms: float | None = None,
    usage: Usage | None = None,
    fingerprint: str | None = None,
    agent: AgentDetail | None = None,
) -> QuestionResult:
    return question_result(
        id=question.id,
        question=question.question,
        status=status,
        metrics=values,
        retrieved=retrieved,
        relevant=dict(question.relevant),
        fingerprint=fingerprint or question.fingerprint,
        answerable=question.answerable,
        critical=question.critical,
        tags=question.tags,
        reference_answer=question.reference_answer,
        answer=answer,
        sentences=(),
        latency_ms=latency_ms,
        usage=usage,
        error=error,
        evidence={evidence.key: evidence.grade for evidence in question.evidence},
        judgments=judgments or {},
        repeats=(),
        agent=agent,
        conversation=question.conversation,
    )


def _ranks_chunks(question: Question) -> bool:
    """Whether retrieval metrics apply: an answerable question with labels (one answered by
    tool calls alone has none)."""
    return question.answerable and (not question.expected_tools or question.has_relevant)


def _names(specs: Sequence[MetricSpec]) -> list[str]:
    return [spec.name for spec in specs]


def summarize(
    questions: Sequence[QuestionResult], metric_names: Sequence[str]
) -> dict[str, MetricSummary]:
    """Mean, n and 95% interval of each metric over the questions it applies to."""
    summary: dict[str, MetricSummary] = {}
    bootstraps: dict[int, Bootstrap] = {}
    for name in metric_names:
        values = [q.metrics[name] for q in questions if name in q.metrics]
        if not values:
            continue
        bootstrap = bootstraps.setdefault(len(values), Bootstrap(len(values)))
        interval = bootstrap.interval(values)
        summary[name] = MetricSummary(mean(values), len(values), interval.low, interval.high)
    return summary


def specs_for(testset: TestSet, specs: Sequence[MetricSpec]) -> tuple[MetricSpec, ...]:
    """The metrics a run of ``testset`` is scored on: ``specs``, with an agent's defaults
    when the test set has hops or expected tools (metrics/names.py ``with_agent_metrics``)."""
    return with_agent_metrics(
        tuple(specs),
        any(q.hops for q in testset),
        any(q.expected_tools for q in testset),
    )


def with_default_abstention(
    testset: TestSet,
    specs: Sequence[MetricSpec],
    runs: Sequence[Mapping[str, RunRecord]],
    auto: bool = True,
) -> tuple[MetricSpec, ...]:
    """``specs`` with ``abstention`` added at the end when :func:`abstention_by_default` and
    some run entry carries an answer (a retrieval-only run has none to judge)
    (docs/generation.md "Abstention by default")."""
    specs = tuple(specs)
    by_default = abstention_by_default(testset, specs, auto)
    if by_default and any(map(has_answer, runs)):
        return (*specs, MetricSpec(ABSTENTION))
    return specs


def abstention_by_default(testset: TestSet, specs: Sequence[MetricSpec], auto: bool) -> bool:
    """Whether a run with answers gets ``abstention`` added: ``auto`` (``abstention: {auto:
    false}`` turns it off), the list does not name it, and the test set marks a question
    ``answerable: false``."""
    if not auto or any(spec.base == ABSTENTION for spec in specs):
        return False
    return any(not question.answerable for question in testset)


def has_answer(records: Mapping[str, RunRecord]) -> bool:
    """Whether an entry the system answered without an error carries an answer."""
    return any(not record.error and record.answer is not None for record in records.values())


def score_run(
    testset: TestSet,
    records: Mapping[str, RunRecord],
    specs: Sequence[MetricSpec],
    *,
    suite: str,
    config: Mapping[str, Any] | None = None,
    git: Mapping[str, str | None] | None = None,
    created_at: str | None = None,
    generation: GenerationSettings | None = None,
    judge: Judge | None = None,
    corpus: Mapping[str, str] | None = None,
    origins: Mapping[str, Chunk] | None = None,
    min_coverage: float | None = None,
) -> Results:
    """Score every question of the test set against the run's records.

    Generation metrics in ``specs`` are computed with ``generation`` (default: lexical); the
    context of an answer is its retrieved chunks' text, from the run or from ``corpus``.
    Judge calls (when a generation metric uses the judge) go to ``judge`` in one batch.
    Evidence labels judge retrieved chunks by their text and document, completed from
    ``origins`` (the corpus's chunks), with ``min_coverage`` (docs/metrics.md).
    """
    specs = specs_for(testset, specs)
    names = tuple(spec.name for spec in specs)
    wanted = [spec.name for spec in specs if spec.is_generation]
    questions = tuple(
        score_question(q, records.get(q.id), specs, origins, min_coverage) for q in testset
    )
    if wanted:
        questions = _with_generation(questions, testset, records, wanted, generation, judge, corpus)
    return results_of(questions, names, suite, config, git, created_at)


def _with_generation(
    scored: tuple[QuestionResult, ...],
    testset: TestSet,
    records: Mapping[str, RunRecord],
    wanted: list[str],
    generation: GenerationSettings | None,
    judge: Judge | None,
    corpus: Mapping[str, str] | None,
) -> tuple[QuestionResult, ...]:
    """The scored questions with their generation metrics (imported only when asked for:
    the lexical and judge machinery is most of a short run's start-up)."""
    from ragguard.metrics.generation import judge_items, judge_outcomes, with_generation
    from ragguard.metrics.settings import GenerationSettings

    settings = generation or GenerationSettings()
    items = judge_items(testset.questions, records, wanted, settings, corpus)
    outcomes = judge_outcomes(items, judge)
    return tuple(
        with_generation(result, q, records.get(q.id), wanted, settings, corpus, outcomes.get(q.id))
        for result, q in zip(scored, testset, strict=True)
    )


def score_rankings(
    testset: TestSet,
    rankings: Mapping[str, Sequence[str]],
    specs: Sequence[MetricSpec],
    *,
    suite: str,
    config: Mapping[str, Any] | None = None,
    git: Mapping[str, str | None] | None = None,
    created_at: str | None = None,
    origins: Mapping[str, Chunk] | None = None,
) -> Results:
    """Score rankings of chunk ids by question id (a TREC run) on retrieval metrics.

    The same results as :func:`score_run` with records that carry only ids, without
    building a record and a chunk object per retrieved id (ten million in a 100,000-query
    run of 100 documents). Generation metrics need answers, which rankings do not have.
    """
    generation = [spec.name for spec in specs if spec.is_generation]
    if generation:
        raise ValueError(f"rankings have no answers to score {', '.join(generation)}")
    questions = tuple(score_ranked(q, rankings.get(q.id), specs, origins) for q in testset)
    return results_of(questions, tuple(spec.name for spec in specs), suite, config, git, created_at)


def results_of(
    questions: tuple[QuestionResult, ...],
    names: tuple[str, ...],
    suite: str,
    config: Mapping[str, Any] | None = None,
    git: Mapping[str, str | None] | None = None,
    created_at: str | None = None,
) -> Results:
    """The results of scored questions: their summary and the test set's fingerprint."""
    return Results(
        suite=suite,
        created_at=created_at or datetime.now(timezone.utc).isoformat(timespec="seconds"),
        metrics=names,
        summary=summarize(questions, names),
        questions=questions,
        testset_fingerprint=combined_fingerprint(q.fingerprint for q in questions),
        config=dict(config or {}),
        git=dict(git or {}),
    )
