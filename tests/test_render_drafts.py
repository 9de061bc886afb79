"""The drafts awaiting review in the PR comment and the job summary (render/drafts.py)."""

from __future__ import annotations

from compare_cases import results
from ragguard.compare import compare
from ragguard.config.sections.gate import GateRules
from ragguard.render import render_comment, render_summary
from ragguard.render.drafts import drafts_context
from ragguard.testset.model import Evidence, Question


def _drafts(count: int) -> tuple[Question, ...]:
    return tuple(
        Question(
            id=f"d{i}",
            question=f"Drafted question {i}?",
            evidence=(Evidence("limits.md", quote=f"quote {i}"),),
            status="draft",
        )
        for i in range(count)
    )


def test_the_comment_lists_ten_drafts_and_counts_the_rest():
    comparison = compare(results(), results(), GateRules())
    comment = render_comment(comparison, drafts=_drafts(25))
    assert "<details><summary>25 drafted questions await review</summary>" in comment
    assert "**Drafted question 9?** (`d9`)" in comment
    assert "Drafted question 10?" not in comment
    assert "- … and 15 more" in comment
    assert "25 drafted questions await review (listed below) and were not evaluated." in comment


def test_the_summary_lists_up_to_a_hundred():
    comparison = compare(results(), results(), GateRules())
    summary = render_summary(comparison, drafts=_drafts(120))
    assert "Drafted question 99?" in summary and "Drafted question 100?" not in summary
    assert "- … and 20 more" in summary


def test_without_drafts_the_comment_is_unchanged():
    comparison = compare(results(), results(), GateRules())
    assert render_comment(comparison, drafts=()) == render_comment(comparison)
    assert "drafted" not in render_comment(comparison)


def test_a_draft_with_many_labels_shows_three_and_counts_the_rest():
    draft = Question(
        id="d",
        question="Q?",
        relevant={"c1": 1, "c2": 1, "c0": 0},
        evidence=(Evidence("a.md", quote="x"), Evidence("b.md")),
        status="draft",
    )
    [item] = drafts_context((draft,), 10)["items"]
    assert item["evidence"] == ["a\\.md: “x”", "b\\.md", "c1", "… and 1 more"]
