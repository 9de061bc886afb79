"""The gate's verdict: every reason for a verdict other than pass, and the exit code."""

from __future__ import annotations

from collections.abc import Sequence

from ragguard.compare.model import (
    EPSILON,
    ERROR,
    FAIL,
    INCOMPARABLE,
    NEWLY_FAILING,
    PASS,
    REMOVED,
    WARN,
    Comparison,
    QuestionDiff,
    Reason,
)
from ragguard.core.exits import EXIT_ERROR, EXIT_FAIL, EXIT_OK


def gate_reasons(comparison: Comparison) -> tuple[Reason, ...]:
    """Every reason for a verdict other than pass, most serious first."""
    reasons: list[Reason] = list(_nothing_compared(comparison))
    rules = comparison.rules
    errors, total, unit = evaluation_errors(comparison)
    if total and errors / total > rules.max_error_rate + EPSILON:
        reasons.append(
            Reason(
                ERROR,
                f"{errors} of {total} {unit} could not be evaluated ({errors / total:.1%}, "
                f"more than max_error_rate {rules.max_error_rate:.1%})",
            )
        )
    if comparison.setting_diffs:
        n = len(comparison.setting_diffs)
        reasons.append(
            Reason(
                INCOMPARABLE,
                f"{n} evaluation setting{'s' if n != 1 else ''} differ from the baseline's",
            )
        )
    for metric in (*comparison.metrics, *comparison.costs):
        if metric.verdict in (FAIL, WARN):
            reasons.extend(Reason(metric.verdict, note, metric.name) for note in metric.notes)
    known = {metric.name for metric in (*comparison.metrics, *comparison.costs)}
    ruled = [*rules.metrics, *comparison.per_question_rule]
    for name in dict.fromkeys(n for n in ruled if n not in known):
        reasons.append(Reason(WARN, "has a gate rule but is in neither results file", name))
    if rules.critical_blocks:
        for question in comparison.of_kind(NEWLY_FAILING):
            if question.critical:
                reasons.append(_critical_reason(question))
    reasons.extend(_removed_passing(comparison))
    order = {ERROR: 0, INCOMPARABLE: 1, FAIL: 2, WARN: 3}
    return tuple(sorted(reasons, key=lambda r: order[r.tier]))


def evaluation_errors(comparison: Comparison) -> tuple[int, int, str]:
    """What ``max_error_rate`` is checked on: the head's questions that could not be
    evaluated, or, when they were asked several times, its runs that could not (a question
    whose shown run was evaluated may have errored in others)."""
    repeats = comparison.repeats
    if repeats is not None and repeats.head_runs[1] > 1:
        return repeats.head_failed_calls, repeats.head_calls, "runs"
    return comparison.head_errors, comparison.n_head, "questions"


def _critical_reason(question: QuestionDiff) -> Reason:
    """A newly failing critical question blocks when it failed in a majority of its runs
    (its rechecks' tally, else its repeats'; one run decides alone); otherwise it is flaky
    and warns."""
    runs = question.decided_by
    if runs is None:
        return Reason(FAIL, "critical question newly fails", question.id)
    if question.flaky_failure:
        return Reason(WARN, f"critical question is flaky: {runs.line()}", question.id)
    return Reason(FAIL, f"critical question newly fails: {runs.line()}", question.id)


def _removed_passing(comparison: Comparison) -> tuple[Reason, ...]:
    """A question the baseline passed and the head no longer asks, or passes only because
    it was relabelled: changing the test set is how a regression would disappear, so it
    counts (``gate.on_removed``) unless accepted."""
    tier = FAIL if comparison.rules.on_removed == FAIL else WARN
    removed = tuple(
        Reason(tier, "removed; it passed in the baseline", question.id)
        for question in comparison.of_kind(REMOVED)
        if question.baseline_passed
    )
    relabelled = tuple(
        Reason(tier, "relabelled; passes only under the new labels", question.id)
        for question in comparison.questions
        if question.passes_by_relabel
    )
    return removed + relabelled


def _nothing_compared(comparison: Comparison) -> tuple[Reason, ...]:
    """Errors for a comparison that compared nothing: it must never pass green.

    No question in the head results; or, against a baseline, no question id or no metric
    in common (another suite's results, a renamed test set), or common metric names with no
    question valued on both sides: the gate "could not evaluate".
    """
    if comparison.n_head == 0:
        return (Reason(ERROR, "the head results hold no question; nothing was evaluated"),)
    if comparison.baseline_missing:
        return ()
    if comparison.n_paired == 0:
        return (Reason(ERROR, "no question id in common with the baseline; nothing was compared"),)
    if all(metric.only_in is not None for metric in comparison.metrics):
        return (Reason(ERROR, "no metric in common with the baseline; nothing was compared"),)
    if all(metric.only_in is not None or metric.n == 0 for metric in comparison.metrics):
        return (
            Reason(
                ERROR,
                "no question has a value of any common metric on both sides; nothing was compared",
            ),
        )
    return ()


def overall_verdict(reasons: Sequence[Reason]) -> str:
    tiers = {reason.tier for reason in reasons}
    for tier in (ERROR, INCOMPARABLE, FAIL, WARN):
        if tier in tiers:
            return tier
    return PASS


def exit_code(comparison: Comparison) -> int:
    """0 pass or warn, 1 fail, 3 error or incomparable (when set to fail)."""
    if comparison.verdict == FAIL:
        return EXIT_FAIL
    if comparison.verdict == ERROR or comparison.blocks:
        return EXIT_ERROR
    return EXIT_OK
