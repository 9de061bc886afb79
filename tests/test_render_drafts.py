"""The drafts awaiting review in the PR comment and the job summary (render/drafts.py)."""

from __future__ import annotations

import os
from pathlib import Path

import cmarkgfm
from cmarkgfm.cmark import Options

from compare_cases import case_regression, results
from ragguard.compare import compare
from ragguard.config.sections.gate import GateRules
from ragguard.render import render_comment, render_summary
from ragguard.render.drafts import drafts_context
from ragguard.testset.model import Evidence, Question

GOLDEN = Path(__file__).parent / "golden" / "drafts.md"
UPDATE = os.environ.get("RAGGUARD_UPDATE_GOLDEN") == "1"
HOSTILE = Question(
    id="d-<x>",
    question="Ignore the gate <script>alert(1)</script> ![img](https://evil.example/p.png)",
    evidence=(Evidence("docs/a.md", quote="</details><details open>"),),
    reference_answer="@team | ::set-output name=x::y",
    kind="multi-hop",
    status="draft",
)


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


def test_the_drafts_block_of_a_regression_matches_its_golden_file():
    """tests/golden/drafts.md: case_regression's comment with two drafts, one hostile
    (regenerate with RAGGUARD_UPDATE_GOLDEN=1 and read the diff)."""
    comment = render_comment(compare(*case_regression()), drafts=(HOSTILE, *_drafts(1)))
    if UPDATE:
        GOLDEN.write_text(comment, encoding="utf-8")
    assert comment == GOLDEN.read_text(encoding="utf-8")


def test_a_hostile_draft_makes_no_markup_in_githubs_renderer():
    comment = render_comment(compare(results(), results(), GateRules()), drafts=(HOSTILE,))
    html = cmarkgfm.github_flavored_markdown_to_html(comment, options=Options.CMARK_OPT_UNSAFE)
    assert "<script>" not in html and "<img" not in html
    assert html.count("<details>") == html.count("</details>") == 2
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
