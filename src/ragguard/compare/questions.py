"""Question by question: the pass rule, and what changed for each (newly failing, fixed, ...)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ragguard.compare.agents import hop_changes, tool_change
from ragguard.compare.model import (
    ADDED,
    EPSILON,
    FAILED_STATUSES,
    FIXED,
    HALLUCINATION_METRIC,
    NEWLY_FAILING,
    PASSING,
    REMOVED,
    STILL_FAILING,
    QuestionDiff,
    RankChange,
    RuleMiss,
    RunTally,
    Unlabelled,
)
from ragguard.compare.pairing import rescorable, rescore_under, retrieval_spec
from ragguard.config.sections.gate import GateRules
from ragguard.metrics.names import ABSTENTION
from ragguard.metrics.retrieval import Labels, relevant_ranks
from ragguard.results.model import QuestionResult, RepeatRun, Results, run_count, runs_of

_DIGIT_RUNS = re.compile(r"(\d+)")


def per_question_rule(
    rules: GateRules, baseline: Results | None, head: Results
) -> dict[str, float]:
    """The configured per-question rule, or the default built from the shared metrics.

    Default: ``hit_rate@3: 1`` (else the hit_rate with the smallest k above 1, else any
    hit_rate) and ``faithfulness: 1.0`` (else ``hallucination_free: 1``), and for an agent's
    test set ``hops_reached: 1`` and ``tool_recall: 1``, where those metrics are present.
    Either rule gets ``abstention: 1`` (:func:`_with_abstention`).
    """
    names = [n for n in head.metrics if baseline is None or n in baseline.metrics]
    if rules.per_question is not None:
        return _with_abstention(dict(rules.per_question), names)
    hits = sorted(
        (spec.k or 0, spec.name)
        for n in names
        if (spec := retrieval_spec(n)) is not None and spec.base == "hit_rate"
    )
    rule: dict[str, float] = {}
    if hits:
        chosen = next((name for k, name in hits if k == 3), None)
        chosen = chosen or next((name for k, name in hits if k > 1), hits[0][1])
        rule[chosen] = 1.0
    if HALLUCINATION_METRIC in names:
        rule[HALLUCINATION_METRIC] = 1.0
    elif "hallucination_free" in names:
        rule["hallucination_free"] = 1.0
    for agent_metric in ("hops_reached", "tool_recall"):  # an agent's broken hop or tool
        if agent_metric in names:
            rule[agent_metric] = 1.0
    return _with_abstention(rule, names)


def _with_abstention(rule: dict[str, float], names: Sequence[str]) -> dict[str, float]:
    """The rule with ``abstention: 1`` where both results score abstention and the rule does
    not name it (a configured rule too; ``abstention: 0`` there lets an answered
    ``answerable: false`` question pass): answering what the test set marks unanswerable
    fails the question (docs/generation.md "Abstention by default")."""
    if ABSTENTION in names and ABSTENTION not in rule:
        rule[ABSTENTION] = 1.0
    return rule


def passes(question: QuestionResult, rule: Mapping[str, float]) -> bool:
    """A question passes when it passes in a strict majority of its runs (its one run,
    without repeats)."""
    return pass_tally(question, rule).passes


def pass_tally(question: QuestionResult, rule: Mapping[str, float]) -> RunTally:
    """In how many of the question's runs it passed (``run_passes``)."""
    runs = runs_of(question)
    errored = sum(1 for run in runs if run.status in FAILED_STATUSES)
    return RunTally(sum(1 for run in runs if run_passes(run, rule)), len(runs), errored)


def run_passes(run: RepeatRun, rule: Mapping[str, float]) -> bool:
    """A run passes when it was evaluated and meets every threshold that applies."""
    if run.status in FAILED_STATUSES:
        return False
    return all(
        run.metrics[name] >= threshold - EPSILON
        for name, threshold in rule.items()
        if name in run.metrics
    )


def _first_error(question: QuestionResult) -> str | None:
    """The error of a question that could not be evaluated, or of its first run that could
    not (asked several times, the run shown may be one that was evaluated)."""
    if question.status in FAILED_STATUSES:
        return question.error
    return next(
        (run.error for run in question.repeats if run.status in FAILED_STATUSES and run.error),
        None,
    )


def repeated_tally(question: QuestionResult, rule: Mapping[str, float]) -> RunTally | None:
    """The tally of a question asked several times; None for one asked once."""
    return pass_tally(question, rule) if run_count(question) > 1 else None


def question_diffs(
    baseline: Results, head: Results, rule: Mapping[str, float], relabelled: set[str]
) -> tuple[QuestionDiff, ...]:
    baseline_by_id = baseline.by_id
    head_ids = {q.id for q in head.questions}
    diffs = [
        question_diff(baseline_by_id.get(q.id), q, rule, q.id in relabelled) for q in head.questions
    ]
    diffs += [
        QuestionDiff(
            q.id,
            q.question,
            REMOVED,
            q.tags,
            q.critical,
            baseline_status=q.status,
            baseline_passed=passes(q, rule),
            baseline_runs=repeated_tally(q, rule),
        )
        for q in baseline.questions
        if q.id not in head_ids
    ]
    return tuple(sorted(diffs, key=lambda d: (not d.critical, id_order(d.id))))


def mark_relabels(
    diffs: tuple[QuestionDiff, ...], baseline: Results, head: Results, rule: Mapping[str, float]
) -> tuple[QuestionDiff, ...]:
    """One account of each relabelled question.

    One that passed in the baseline under its labels, passes now, and fails when the head is
    scored under the baseline's labels passes by the relabel: it counts like a removal
    (``gate.on_removed``) until someone accepts it, and it is not "fixed" (under the new
    labels the re-scored baseline fails, under the old the head does): its kind is passing.
    One whose baseline could not be re-scored (evidence labels: judging its chunks needs their
    text) is marked ``relabel_kept``, so no report says it was re-scored.
    """
    before, now = baseline.by_id, head.by_id
    marked = []
    for diff in diffs:
        if diff.relabelled and not rescorable(before[diff.id], now[diff.id]):
            diff = replace(diff, relabel_kept=True)
        if (
            diff.relabelled
            and passes(before[diff.id], rule)
            and passes(now[diff.id], rule)
            and not passes(rescore_under(now[diff.id], before[diff.id]), rule)
        ):
            diff = replace(diff, passes_by_relabel=True, kind=PASSING)
        marked.append(diff)
    return tuple(marked)


def id_order(question_id: str) -> tuple[tuple[tuple[int, int | str], ...], str]:
    """A sort key that puts q3 before q12: runs of digits compare as numbers (the id itself
    breaks ties such as q3 and q03)."""
    parts = tuple(
        (0, int(part)) if part.isdigit() else (1, part)
        for part in _DIGIT_RUNS.split(question_id)
        if part
    )
    return parts, question_id


def question_diff(
    before: QuestionResult | None,
    now: QuestionResult,
    rule: Mapping[str, float],
    relabelled: bool = False,
) -> QuestionDiff:
    head_ok = passes(now, rule)
    base = QuestionDiff(
        now.id,
        now.question,
        ADDED,
        now.tags,
        now.critical,
        head_status=now.status,
        error=_first_error(now),
        head_runs=repeated_tally(now, rule),
    )
    if before is None:
        return replace(base, **_why(None, now, rule)) if not head_ok else base
    was_ok = passes(before, rule)
    kind = {
        (True, True): PASSING,
        (True, False): NEWLY_FAILING,
        (False, True): FIXED,
        (False, False): STILL_FAILING,
    }[(was_ok, head_ok)]
    diff = replace(
        base,
        kind=kind,
        baseline_status=before.status,
        baseline_runs=repeated_tally(before, rule),
        relabelled=relabelled,
        critical=now.critical or before.critical,  # unmarking takes effect once merged
        unmarked_critical=before.critical and not now.critical,
    )
    return replace(diff, **_why(before, now, rule)) if not head_ok else diff


def _why(
    before: QuestionResult | None, now: QuestionResult, rule: Mapping[str, float]
) -> dict[str, Any]:
    misses = tuple(
        RuleMiss(name, before.metrics.get(name) if before else None, now.metrics[name], threshold)
        for name, threshold in rule.items()
        if name in now.metrics and now.metrics[name] < threshold - EPSILON
    )
    hallucinated = tuple(s for s in now.sentences if s.supported is False)
    evaluated = now.status not in FAILED_STATUSES
    return {
        "misses": misses,
        "rank_change": _rank_change(before, now, misses) if evaluated else None,
        "hallucinated": hallucinated,
        "unlabelled": _new_unlabelled(before, now, misses) if evaluated else None,
        "hops": hop_changes(before, now) if evaluated else (),
        "tools": tool_change(before, now) if evaluated else None,
        "conversation": now.conversation,
    }


def _new_unlabelled(
    before: QuestionResult | None, now: QuestionResult, misses: Sequence[RuleMiss]
) -> Unlabelled | None:
    """Chunks in the head's top k that carry no label and were not in the baseline's top k,
    k being the smallest cut-off among the retrieval rules the question misses."""
    cutoffs = [
        spec.k or len(now.retrieved)
        for miss in misses
        if (spec := retrieval_spec(miss.metric)) is not None and not spec.is_document_level
    ]
    if not cutoffs or not now.answerable:
        return None
    k = min(cutoffs)
    judged = now.judged_chunks
    earlier = set(before.retrieved[:k]) if before is not None else set()
    chunks = tuple(c for c in now.retrieved[:k] if c not in judged and c not in earlier)
    return Unlabelled(k, chunks) if chunks else None


def _rank_change(
    before: QuestionResult | None, now: QuestionResult, misses: Sequence[RuleMiss]
) -> RankChange | None:
    cutoffs = [
        spec.k or len(now.retrieved) or 1
        for miss in misses
        if (spec := retrieval_spec(miss.metric)) is not None
    ]
    if not cutoffs:
        return None
    if now.evidence:
        return _evidence_move(before, now, min(cutoffs))
    if not now.judged_chunks:
        return None
    labels = Labels.from_grades(now.judged_chunks)
    chunk, head_rank = _best_relevant(now.retrieved, labels)
    baseline_rank = None
    if before is not None:
        old_chunk, baseline_rank = _best_relevant(before.retrieved, labels)
        if baseline_rank is not None:
            chunk = old_chunk
            head_rank = _rank_of(now.retrieved, chunk)
    if chunk is None:
        chunk = min(labels.relevant, key=lambda c: (-labels.relevant[c], c))
    return RankChange(chunk, min(cutoffs), baseline_rank, head_rank)


def _evidence_move(before: QuestionResult | None, now: QuestionResult, k: int) -> RankChange | None:
    """Where the evidence went: the chunk holding it in the baseline and in the head, each
    judged in its own run (a rechunk renames every chunk, so the baseline's id says nothing
    about the head's ranking); None when neither run retrieved it."""
    new_chunk, head_rank = _best_judged(now)
    old_chunk, baseline_rank = _best_judged(before) if before is not None else (None, None)
    if old_chunk is None:
        if new_chunk is None:
            return None
        return RankChange(new_chunk, k, None, head_rank, evidence=True)
    moved = new_chunk if new_chunk is not None and new_chunk != old_chunk else None
    return RankChange(old_chunk, k, baseline_rank, head_rank, head_chunk=moved, evidence=True)


def _best_judged(question: QuestionResult) -> tuple[str | None, int | None]:
    """The best chunk of the question's own ranking by its own judgments, and its rank."""
    if not question.judged_chunks:
        return None, None
    return _best_relevant(question.retrieved, Labels.from_grades(question.judged_chunks))


def _best_relevant(retrieved: Sequence[str], labels: Labels) -> tuple[str | None, int | None]:
    ranks, _ = relevant_ranks(list(retrieved), labels)
    if not ranks:
        return None, None
    return retrieved[ranks[0] - 1], ranks[0]


def _rank_of(retrieved: Sequence[str], chunk: str) -> int | None:
    return retrieved.index(chunk) + 1 if chunk in retrieved else None


def failed_count(questions: Iterable[QuestionResult]) -> int:
    return sum(1 for q in questions if q.status in FAILED_STATUSES)
