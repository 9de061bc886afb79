"""Pairing baseline and head questions by id, and re-scoring relabelled baseline questions."""

from __future__ import annotations

from dataclasses import replace

from ragguard.compare.model import FAILED_STATUSES
from ragguard.metrics.names import MetricNameError, MetricSpec, parse_metric
from ragguard.metrics.retrieval import Labels, score_ranking
from ragguard.results.model import QuestionResult, Results


def retrieval_spec(name: str) -> MetricSpec | None:
    try:
        spec = parse_metric(name)
    except MetricNameError:
        return None
    return spec if spec.is_retrieval else None


def rescore_baseline(baseline: Results, head: Results) -> Results:
    """The baseline with relabelled questions re-scored under the head's labels.

    A relabelled question has the same id and a different label fingerprint. The baseline
    kept its retrieved ids, so its retrieval metrics are recomputed with the head's labels:
    fixing a label then changes both sides alike and never shows as a regression. With
    evidence labels on either side the baseline keeps its values (judging a chunk by
    evidence needs its text, which results do not keep); the question is still marked
    relabelled.
    """
    head_by_id = head.by_id
    questions = []
    for question in baseline.questions:
        now = head_by_id.get(question.id)
        if now is not None and now.fingerprint != question.fingerprint:
            question = _relabel(question, now)
        questions.append(question)
    return replace(baseline, questions=tuple(questions))


def rescorable(old: QuestionResult, now: QuestionResult) -> bool:
    """Whether ``old``'s retrieval can be re-scored under ``now``'s labels: chunk-id labels
    on both sides (evidence needs the chunks' text, which results do not keep)."""
    return not (now.evidence or old.evidence)


def _relabel(old: QuestionResult, now: QuestionResult) -> QuestionResult:
    """``old`` re-scored under ``now``'s labels where its retrieved ids allow it: chunk-id
    labels, chunk-level metrics. Values judged by evidence or by documents need the chunks'
    text or documents, which results do not keep; they stay as they were."""
    by_ids = rescorable(old, now)
    specs = [
        spec
        for name in old.metrics
        if (spec := retrieval_spec(name)) is not None and by_ids and not spec.is_document_level
    ]
    rescored = {spec.name for spec in specs}
    kept = {name: v for name, v in old.metrics.items() if name not in rescored}
    if not now.answerable:
        retrieval: dict[str, float] = {}
        kept = {name: v for name, v in kept.items() if retrieval_spec(name) is None}
    elif old.status in FAILED_STATUSES:
        retrieval = {spec.name: 0.0 for spec in specs}
    else:
        retrieval = score_ranking(list(old.retrieved), Labels.from_grades(now.relevant), specs)
    ordered = {name: retrieval.get(name, kept.get(name)) for name in old.metrics}
    metrics = {name: value for name, value in ordered.items() if value is not None}
    return replace(
        old,
        metrics=metrics,
        repeats=(),  # the runs' rankings are not kept: the shown (worst) run alone is re-scored
        relevant=dict(now.relevant),
        evidence=dict(now.evidence),
        fingerprint=now.fingerprint,
        answerable=now.answerable,
    )


def rescore_under(question: QuestionResult, labels_of: QuestionResult) -> QuestionResult:
    """``question`` re-scored under ``labels_of``'s labels (the head under the baseline's, to
    see whether a relabel is what makes it pass); same limits as :func:`rescore_baseline`."""
    return _relabel(question, labels_of)


def relabelled_ids(baseline: Results, head: Results) -> set[str]:
    """Ids in both files whose label fingerprint changed."""
    head_by_id = head.by_id
    return {
        q.id
        for q in baseline.questions
        if q.id in head_by_id and head_by_id[q.id].fingerprint != q.fingerprint
    }


def paired_questions(
    baseline: Results, head: Results
) -> list[tuple[QuestionResult, QuestionResult]]:
    baseline_by_id = baseline.by_id
    return [(baseline_by_id[q.id], q) for q in head.questions if q.id in baseline_by_id]


def metric_names(baseline: Results, head: Results) -> list[str]:
    return list(dict.fromkeys([*head.metrics, *baseline.metrics]))
