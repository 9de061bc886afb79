"""Drafted questions as a reviewer sees them: the terminal card of ``ragguard testset review``,
and the pull request comment's folded list of the drafts that await review.

A draft's text is untrusted (a model wrote it from the corpus): the terminal card passes it
through :func:`~ragguard.render.text.printable`, the comment through
:func:`~ragguard.render.text.escape_markdown`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragguard.render.text import escape_markdown, printable
from ragguard.testset.model import Question
from ragguard.testset.passages import Passage

QUOTES_SHOWN = 3  # evidence quotes of one draft in the comment


def gate_line(count: int) -> str:
    """The comment's line near the verdict when the head test set holds drafts."""
    if count == 1:
        return (
            "The gate counts reviewed questions only: 1 drafted question awaits review "
            "(listed below) and was not evaluated."
        )
    return (
        f"The gate counts reviewed questions only: {count} drafted questions await review "
        "(listed below) and were not evaluated."
    )


def drafts_context(drafts: Sequence[Question], shown: int) -> dict[str, Any]:
    """The template's ``drafts``: the gate line, the folded block's title, the first ``shown``
    drafts (escaped) and how many more there are; empty without drafts."""
    if not drafts:
        return {}
    count = len(drafts)
    what = "drafted question awaits" if count == 1 else "drafted questions await"
    return {
        "gate_line": gate_line(count),
        "title": f"{count} {what} review",
        "items": [_comment_item(question) for question in drafts[:shown]],
        "more": max(0, count - shown),
    }


def _comment_item(question: Question) -> dict[str, Any]:
    """One draft in the comment: its question and id, kind, evidence and reference answer."""
    kind = f" · {escape_markdown(question.kind, 60)}" if question.kind else ""
    quotes = [
        f"{escape_markdown(e.doc, 120)}: “{escape_markdown(e.quote, 300)}”"
        if e.quote
        else escape_markdown(e.doc, 120)
        for e in question.evidence
    ]
    chunks = [escape_markdown(chunk, 120) for chunk, grade in question.relevant.items() if grade]
    evidence = quotes + chunks
    more = len(evidence) - QUOTES_SHOWN
    return {
        "title": f"**{escape_markdown(question.question, 300)}** "
        f"(`{escape_markdown(question.id, 100)}`{kind})",
        "evidence": evidence[:QUOTES_SHOWN] + ([f"… and {more} more"] if more > 0 else []),
        "answer": escape_markdown(question.reference_answer, 300)
        if question.reference_answer
        else "",
    }


def draft_card(
    questions: Sequence[Question],
    passages_of: Sequence[Sequence[Passage]],
    position: int,
    total: int,
) -> str:
    """The terminal card of one draft entry (a question, or a conversation's turns) with its
    evidence: ``passages_of[i]`` are the labels of ``questions[i]`` as text."""
    first = questions[0]
    lines = [f"── draft {position} of {total} " + "─" * 40]
    name = first.conversation or first.id
    lines.append(f"id:        {printable(name, 120)}")
    lines.append(f"kind:      {printable(first.kind or '(not given)', 120)}")
    lines.append(f"source:    {printable(first.source or '(not given)', 200)}")
    for question, passages in zip(questions, passages_of, strict=True):
        lines.extend(_question_lines(question, passages, turns=len(questions) > 1))
    return "\n".join(lines) + "\n"


def _question_lines(question: Question, passages: Sequence[Passage], turns: bool) -> list[str]:
    head = f"turn {question.id.rsplit('#', 1)[-1]}: " if turns else "question:  "
    lines = ["", head + printable(question.question, 1000)]
    if question.reference_answer:
        lines.append("answer:    " + printable(question.reference_answer, 1000))
    if not question.answerable:
        lines.append("answerable: false (the system should decline)")
    for passage in passages:
        lines.append(f"evidence:  {printable(passage.label, 200)}")
        if passage.text or not passage.found:
            lines.append("  " + _passage_text(passage))
    return lines


def _passage_text(passage: Passage) -> str:
    """The quote between » and «, with the document's text around it when the corpus has it;
    a quote the document does not hold (or a missing document or chunk) says so."""
    if not passage.found:
        if not passage.text:
            return "(not in the corpus)"
        return f"»{printable(passage.text, 600)}« (not found in the corpus)"
    before = printable(passage.before, 400)
    after = printable(passage.after, 400)
    if passage.cut_before:
        before = "…" + before
    if passage.cut_after:
        after += "…"
    if before and passage.before[-1:].isspace():
        before += " "
    if after and passage.after[:1].isspace():
        after = " " + after
    return f"{before}»{printable(passage.text, 600)}«{after}"
