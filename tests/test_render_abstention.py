"""The why of a question that answered what the test set marks unanswerable (#29 item 5),
the same words in the comment's one-line why, the summary's item, the terminal and JUnit."""

from __future__ import annotations

from dataclasses import replace

from ragguard.compare import NEWLY_FAILING, QuestionDiff, RuleMiss
from ragguard.render.questions import (
    answered_unanswerable,
    answered_unanswerable_text,
    failing_item,
    miss_text,
    one_line_why,
)

WHY = "answered a question the test set marks unanswerable ({}); expected a refusal"
ANSWERED = QuestionDiff(
    "salary",
    "What is the CEO's salary?",
    NEWLY_FAILING,
    (),
    False,
    misses=(RuleMiss("abstention", 1.0, 0.0, 1.0),),
)


def test_the_reason_says_what_was_expected() -> None:
    assert answered_unanswerable_text() == WHY.format("`answerable: false`")
    assert answered_unanswerable_text(markdown=False) == WHY.format("answerable: false")
    assert miss_text("abstention", 1.0, 0.0, 1.0) == WHY.format("`answerable: false`")
    assert miss_text("mrr", 1.0, 0.5, 1.0) == "`mrr` 1.000 → 0.500 (needs ≥ 1)"


def test_the_comment_and_the_summary_give_the_reason() -> None:
    assert answered_unanswerable(ANSWERED)
    assert one_line_why(ANSWERED) == WHY.format("`answerable: false`")
    assert failing_item(ANSWERED, None)["lines"] == [WHY.format("`answerable: false`")]


def test_an_unanswerable_question_that_errored_is_not_said_to_have_answered() -> None:
    """An empty answer (status error) also scores abstention 0: the error is its why."""
    errored = replace(ANSWERED, head_status="error", error="empty answer")
    assert not answered_unanswerable(errored)
    assert one_line_why(errored) == "error: empty answer"
    assert failing_item(errored, None)["lines"] == ["error: empty answer"]
