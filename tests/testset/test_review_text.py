"""A YAML test set edited as text by review: every byte but the change kept."""

from __future__ import annotations

import pytest

from ragguard.core.errors import InputError
from ragguard.testset.review_text import (
    accepted,
    drafts_in,
    entry_text,
    list_entries,
    rejected,
    replaced,
)

TEXT = """\
# Orders API questions.  Keep this comment.
- id: q1
  question: How do I authenticate?   # trailing comment
  relevant: [auth]

- id: d1
  question: "What is the limit?"
  relevant:
    - {doc: limits.md, quote: 100 requests per minute}
  kind: single-hop
  status: 'draft'    # from the drafter

# a comment before q2
- {id: q2, question: Pagination?, relevant: [pages], status: draft}
- id: q3
  question: |
    A block scalar
    over lines
  relevant: [x]
"""


def _draft(text: str, index: int = 0):
    return drafts_in(list_entries(text, "t.yaml"))[index]


def test_the_drafts_and_their_lines_are_found():
    entries = list_entries(TEXT, "t.yaml")
    assert [(e.start, e.end, e.is_draft) for e in entries] == [
        (1, 4, False),
        (5, 11, True),
        (13, 14, True),
        (14, 19, False),
    ]


def test_accept_changes_the_status_value_alone():
    result = accepted(TEXT, _draft(TEXT), "t.yaml")
    assert result == TEXT.replace("status: 'draft'    #", "status: 'reviewed'    #")
    flow = accepted(result, _draft(result), "t.yaml")
    assert flow == result.replace("pages], status: draft}", "pages], status: reviewed}")


def test_reject_removes_the_entry_and_the_blank_lines_after_it():
    result = rejected(TEXT, _draft(TEXT), "t.yaml")
    start = TEXT.index("- id: d1")
    assert result == TEXT[:start] + TEXT[TEXT.index("# a comment before q2") :]


def test_an_edit_replaces_the_entry_and_keeps_its_indentation():
    text = "questions:\n  - id: q1\n    question: Q?\n    relevant: [a]\n    status: draft\n"
    entry = _draft(text)
    assert entry_text(text, entry) == "- id: q1\n  question: Q?\n  relevant: [a]\n  status: draft\n"
    edited = "- id: q1\n  question: A better question?\n  relevant: [a]\n  status: draft\n"
    result = replaced(text, entry, edited, "t.yaml")
    assert result == text.replace("question: Q?", "question: A better question?")


def test_an_edit_that_is_not_one_entry_is_refused():
    with pytest.raises(InputError, match="one list item"):
        replaced(TEXT, _draft(TEXT), "id: d1\nquestion: Q?\n", "t.yaml")
    with pytest.raises(InputError, match="YAML syntax error"):
        replaced(TEXT, _draft(TEXT), "- id: [\n", "t.yaml")


def test_crlf_line_ends_are_kept():
    text = TEXT.replace("\n", "\r\n")
    result = rejected(text, _draft(text), "t.yaml")
    assert "\r\n" in result and "\n" not in result.replace("\r\n", "")
    assert accepted(text, _draft(text), "t.yaml").count("\r\n") == text.count("\r\n")


def test_rejecting_the_only_question_is_refused():
    text = "- id: d\n  question: Q?\n  relevant: [a]\n  status: draft\n"
    with pytest.raises(InputError, match="empty"):
        rejected(text, _draft(text), "t.yaml")
