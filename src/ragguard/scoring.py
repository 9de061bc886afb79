"""Scoring: a test set and a run in, :class:`Results` out. No I/O.

A question whose run errored or is missing scores 0 on every metric and is counted, so a
gate can never improve by crashing. Retrieval metrics do not apply to ``answerable: false``
questions; they are left out of those questions' values and of the metric's n.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from ragguard.metrics.evidence import (
    judge_ranking,
    score_documents,
    score_judged,
)
from ragguard.metrics.generation import judge_items, judge_outcomes, with_generation
from ragguard.metrics.judging import Judge
from ragguard.metrics.names import MetricSpec
from ragguard.metrics.retrieval import Labels, score_ranking
from ragguard.metrics.settings import DEFAULT_MIN_COVERAGE, GenerationSettings
from ragguard.results import (
    STATUS_ERROR,
    STATUS_MISSING,
    STATUS_OK,
    MetricSummary,
    QuestionResult,
    Results,
)
from ragguard.runs import Chunk, RunRecord
from ragguard.stats import Bootstrap, mean
from ragguard.testset import Question, TestSet

MISSING_MESSAGE = "no entry for this question in the run"


def score_question(
    question: Question,
    record: RunRecord | None,
    specs: Sequence[MetricSpec],
    origins: Mapping[str, Chunk] | None = None,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
) -> QuestionResult:
    """Score one question from its run record (``None`` when the run has no entry).

    ``origins`` (the corpus's chunks by id) completes retrieved chunks that lack the text
    or document that evidence labels are judged by.
    """
    retrieval = [spec for spec in specs if spec.is_retrieval] if question.answerable else []
    judgments: dict[str, int] = {}
    if record is None:
        status, error, values = (
            STATUS_MISSING,
            MISSING_MESSAGE,
            dict.fromkeys(_names(retrieval), 0.0),
        )
    elif record.error:
        status, error, values = STATUS_ERROR, record.error, dict.fromkeys(_names(retrieval), 0.0)
    else:
        status, error = STATUS_OK, None
        values, judgments = (
            _retrieval_values(question, record, retrieval, origins, min_coverage)
            if retrieval
            else ({}, {})
        )
    return QuestionResult(
        id=question.id,
        question=question.question,
        status=status,
        metrics=values,
        retrieved=tuple(record.retrieved_ids) if record else (),
        relevant=dict(question.relevant),
        fingerprint=question.fingerprint,
        answerable=question.answerable,
        critical=question.critical,
        tags=question.tags,
        reference_answer=question.reference_answer,
        answer=record.answer if record else None,
        latency_ms=record.latency_ms if record else None,
        error=error,
        evidence={evidence.key: evidence.grade for evidence in question.evidence},
        judgments=judgments,
    )


def _retrieval_values(
    question: Question,
    record: RunRecord,
    specs: Sequence[MetricSpec],
    origins: Mapping[str, Chunk] | None,
    min_coverage: float,
) -> tuple[dict[str, float], dict[str, int]]:
    """Chunk- and document-level values in the order of ``specs``, and, with evidence
    labels, the grade each retrieved chunk earned."""
    chunk_specs = [spec for spec in specs if not spec.is_document_level]
    judgments: dict[str, int] = {}
    if question.evidence:
        judged = judge_ranking(question, record.retrieved, origins, min_coverage)
        values = score_judged(judged, chunk_specs)
        judgments = judged.chunk_grades(record.retrieved_ids)
    else:
        labels = Labels.from_grades(question.relevant)
        values = score_ranking(record.retrieved_ids, labels, chunk_specs)
    doc_specs = [spec for spec in specs if spec.is_document_level]
    if doc_specs:
        values.update(score_documents(question, record.retrieved, doc_specs, origins))
    return {spec.name: values[spec.name] for spec in specs if spec.name in values}, judgments


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
    min_coverage: float = DEFAULT_MIN_COVERAGE,
) -> Results:
    """Score every question of the test set against the run's records.

    Generation metrics in ``specs`` are computed with ``generation`` (default: lexical); the
    context of an answer is its retrieved chunks' text, from the run or from ``corpus``.
    Judge calls (when a generation metric uses the judge) go to ``judge`` in one batch.
    Evidence labels judge retrieved chunks by their text and document, completed from
    ``origins`` (the corpus's chunks), with ``min_coverage`` (docs/metrics.md).
    """
    names = tuple(spec.name for spec in specs)
    settings = generation or GenerationSettings()
    wanted = [spec.name for spec in specs if spec.is_generation]
    items = judge_items(testset.questions, records, wanted, settings, corpus) if wanted else []
    outcomes = judge_outcomes(items, judge)
    questions = tuple(
        with_generation(
            score_question(q, records.get(q.id), specs, origins, min_coverage),
            q,
            records.get(q.id),
            wanted,
            settings,
            corpus,
            outcomes.get(q.id),
        )
        for q in testset
    )
    return Results(
        suite=suite,
        created_at=created_at or datetime.now(timezone.utc).isoformat(timespec="seconds"),
        metrics=names,
        summary=summarize(questions, names),
        questions=questions,
        testset_fingerprint=testset.fingerprint,
        config=dict(config or {}),
        git=dict(git or {}),
    )
