"""Rechecks: newly failing questions run again, so that one unlucky run of a noisy system
does not block on its own.

A newly failing critical question (every newly failing question with ``recheck_all``) is
asked ``gate.recheck`` more times; it blocks only when it fails in a majority of its runs,
the first included, and is reported as flaky otherwise. This module holds the pure parts:
which questions to recheck, the tally of the reruns, and the comparison with the tallies.

With repeats (``system.repeat``) the head's own runs are the first runs of the tally, the
reruns' runs added to them (docs/compare.md, "Repeats").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ragguard.compare.model import NEWLY_FAILING, Comparison, Recheck, RunTally
from ragguard.compare.questions import pass_tally
from ragguard.compare.verdict import gate_reasons, overall_verdict
from ragguard.results.judging import combined_costs
from ragguard.results.model import Results


def recheck_ids(comparison: Comparison) -> tuple[str, ...]:
    """The questions to run again: newly failing and critical (any, with ``recheck_all``);
    none when ``gate.recheck`` is 0. A question the head asked several times is rechecked
    too: its reruns add to its runs (docs/compare.md, "Repeats": without them, critical
    questions asked 3 times block on noise 10-19 % of the time at n=100-200, computed)."""
    rules = comparison.rules
    if rules.recheck <= 0:
        return ()
    return tuple(
        question.id
        for question in comparison.of_kind(NEWLY_FAILING)
        if question.critical or rules.recheck_all
    )


def tally_rechecks(
    comparison: Comparison, ids: Sequence[str], reruns: Sequence[Results]
) -> dict[str, Recheck]:
    """Each question's failures over its first runs (the head's: one that failed, or its
    repeats) and the reruns' runs; a question missing from a rerun, or failing with an error
    there, counts as failed in it."""
    rule = comparison.per_question_rule
    head = {question.id: question for question in comparison.questions}
    tallies: dict[str, Recheck] = {}
    for question_id in ids:
        first = head[question_id].head_runs or RunTally(0, 1)
        failed, runs = first.failed, first.runs
        for rerun in reruns:
            result = rerun.by_id.get(question_id)
            tally = pass_tally(result, rule) if result is not None else RunTally(0, 1)
            failed, runs = failed + tally.failed, runs + tally.runs
        tallies[question_id] = Recheck(failed, runs)
    return tallies


def with_rechecks(
    comparison: Comparison, tallies: Mapping[str, Recheck], reruns: Sequence[Results] = ()
) -> Comparison:
    """The comparison with each rechecked question's tally, and its verdict decided again;
    with the ``reruns``, also what judging them cost (``recheck_judge``: the reports add it
    to the head run's, the ``judge_cost`` budget does not, docs/compare.md)."""
    if not tallies:
        return comparison
    questions = tuple(
        replace(question, recheck=tallies[question.id]) if question.id in tallies else question
        for question in comparison.questions
    )
    spent = combined_costs(rerun.judge for rerun in reruns)
    draft = replace(comparison, questions=questions, recheck_judge=spent)
    reasons = gate_reasons(draft)
    return replace(draft, verdict=overall_verdict(reasons), reasons=reasons)
