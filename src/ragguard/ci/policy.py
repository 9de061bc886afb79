"""A comparison's verdict as GitHub sees it: the status state and description, and the step's exit code."""

from __future__ import annotations

from ragguard.ci.activity import (
    BASELINE,
    Activity,
)
from ragguard.compare import (
    ERROR,
    FAIL,
    INCOMPARABLE,
    PASS,
    WARN,
    Comparison,
)
from ragguard.core.exits import EXIT_ERROR, EXIT_FAIL, EXIT_OK
from ragguard.render.questions import failing_questions


def status_state(comparison: Comparison) -> str:
    """success / failure / error for the commit status."""
    if comparison.verdict == ERROR:
        return "error"
    return "failure" if comparison.blocks else "success"


def status_description(comparison: Comparison) -> str:
    """One plain line (the status API shows no markdown); clipped to 140 by the client."""
    if comparison.baseline_missing:
        return no_baseline_description(comparison)
    if comparison.reasons:
        reason = comparison.reasons[0]
        subject = f"{reason.subject} " if reason.subject else ""
        return f"{comparison.verdict}: {subject}{reason.text}"
    newly = len(comparison.of_kind("newly_failing"))
    return f"{comparison.verdict}: no regression; {newly} newly failing of {comparison.n_head}"


def no_baseline_description(comparison: Comparison) -> str:
    """Without a baseline nothing is compared: a pass says so, never "pass" alone."""
    failing = failing_questions(comparison)
    critical = sum(1 for q in failing if q.critical)
    counted = f"{len(failing)} of {comparison.n_head} questions fail" + (
        f" ({critical} critical)" if critical else ""
    )
    if comparison.verdict == PASS:
        return f"no baseline yet: {counted}; the comparison starts once a baseline is saved"
    return f"{comparison.verdict} (no baseline yet): {counted}"


def exit_code(comparison: Comparison, fail_on: str, activity: Activity) -> int:
    """Non-zero when the step should fail: a block (or a warn, with fail-on: warn)."""
    if comparison.verdict == ERROR:
        return EXIT_ERROR
    if fail_on == "never" or activity.kind == BASELINE:
        return EXIT_OK
    if comparison.blocks:
        return EXIT_FAIL if comparison.verdict == FAIL else EXIT_ERROR
    if fail_on == "warn" and comparison.verdict in (WARN, INCOMPARABLE):
        return EXIT_FAIL
    return EXIT_OK
