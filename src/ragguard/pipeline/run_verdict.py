"""Whether a run can be trusted, once it is scored: every call without a good answer counts
against ``max_error_rate`` — a system error, a call not made (the run was interrupted), and an
answer the judge could not judge (``judge_error``). The README's exit 3 ("too many system or
judge errors") is this verdict."""

from __future__ import annotations

from ragguard.results.model import STATUS_JUDGE_ERROR, Results, runs_of
from ragguard.system.outcome import RunOutcome, RunVerdict


def run_verdict(outcome: RunOutcome, results: Results) -> RunVerdict:
    """The verdict of a run from what the system answered (``outcome``) and what scoring
    made of it (``results``: the judge's errors, in every run of a repeated question)."""
    judge_errors = sum(
        1
        for question in results.questions
        for run in runs_of(question)
        if run.status == STATUS_JUDGE_ERROR
    )
    return outcome.trust(judge_errors)
