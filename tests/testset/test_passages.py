"""What a reviewer is shown of a question's labels (testset/passages.py): a question with
hops shows each hop's labels under its hop, not their union."""

from __future__ import annotations

from ragguard.render.drafts import draft_card
from ragguard.testset.load import load_testset
from ragguard.testset.passages import passages

ENTRY = """\
- id: refund-pro
  question: Can I get a refund on the Pro plan after 30 days?
  hops:
    - relevant: [plans#4]
    - relevant: [{doc: refunds.md, quote: "refundable for 60 days"}]
  relevant: [plans#4, faq#2]
"""
DOCUMENTS = {"refunds.md": "Pro plans are refundable for 60 days."}
CHUNKS = {"plans#4": "Pro costs $20.", "faq#2": "Ask support."}


def test_each_hop_shows_its_own_labels_then_the_question_adds_the_rest(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(ENTRY)
    question = load_testset(path).questions[0]
    shown = passages(question, DOCUMENTS, CHUNKS)
    assert [p.label for p in shown] == ["hop 1: chunk plans#4", "hop 2: refunds.md", "chunk faq#2"]
    card = draft_card([question], [shown], 1, 1)
    assert "evidence:  hop 2: refunds.md\n  Pro plans are »refundable for 60 days«.\n" in card


def test_a_question_without_hops_shows_its_labels_as_before(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(
        '- id: q\n  question: Q?\n  relevant: [faq#2, {doc: refunds.md, quote: "60 days"}]\n'
    )
    question = load_testset(path).questions[0]
    assert [p.label for p in passages(question, DOCUMENTS, CHUNKS)] == [
        "refunds.md",
        "chunk faq#2",
    ]
