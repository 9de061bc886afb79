"""Drafted questions in a run: left out unless the run includes them (docs/review.md).

A question with ``status: draft`` waits for a reviewer. Every run that reads a test set
(``ragguard run``, ``score``, ``ci``, the API) chooses its questions here, once: the
reviewed ones, or all of them with ``include_drafts``. A run without drafts is unchanged.
"""

from __future__ import annotations

from os import PathLike

from ragguard.core.errors import InputError
from ragguard.pipeline.reporter import Reporter
from ragguard.testset.load import load_testset
from ragguard.testset.model import Question, TestSet

REVIEW_HINT = "review them with `ragguard testset review`"


def load_run_testset(
    path: str | PathLike[str], reporter: Reporter, *, include_drafts: bool = False
) -> TestSet:
    """The test set at ``path`` with the questions a run asks (:func:`run_questions`)."""
    return run_questions(load_testset(path), reporter, include_drafts=include_drafts)


def run_questions(testset: TestSet, reporter: Reporter, *, include_drafts: bool) -> TestSet:
    """The questions a run asks, scores and gates: the reviewed ones (the drafts left out,
    with a note saying how many), or every question with ``include_drafts``.

    A test set of drafts alone is an error: a run of no questions would pass any gate.
    """
    drafts = len(testset.drafts)
    if not drafts or include_drafts:
        return testset
    kept = testset.without_drafts()
    if not kept.questions:
        raise InputError(
            testset.source,
            f"every question is a draft ({drafts}); {REVIEW_HINT}, or run them as they are "
            "with --include-drafts",
        )
    reporter.note(f"ragguard: {drafts_left_out(drafts)}")
    return kept


def drafts_left_out(count: int) -> str:
    """The note that ``count`` drafted questions are not in the run."""
    what = "drafted question" if count == 1 else "drafted questions"
    return f"{count} {what} left out ({REVIEW_HINT}; --include-drafts runs them)"


def awaiting_review(path: str | PathLike[str]) -> tuple[Question, ...]:
    """The drafted questions of the test set at ``path``: the reports list them as awaiting
    review, and say the gate counts the reviewed questions only."""
    return load_testset(path).drafts
