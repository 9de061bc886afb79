"""Passages: cut at blank lines, marked covered, sampled spread across documents and weighted
toward what the test set does not cover; the same seed gives the same order."""

from __future__ import annotations

from collections import Counter

from ragguard.testset.coverage import corpus_coverage
from ragguard.testset.documents import Document, split_sections
from ragguard.testset.drafting.passages import (
    MAX_PASSAGE_CHARS,
    Passage,
    covered_spans,
    paragraphs,
    passages_of,
    spread,
)
from ragguard.testset.model import Evidence, Question

SENTENCE = "Every order carries a status that moves from pending to shipped. "


def document(doc_id: str, text: str) -> Document:
    return Document(doc_id, text, split_sections(text, ".md"))


def test_paragraphs_are_spans_between_blank_lines() -> None:
    text = "\nFirst line\nstill first.\n\n  \n\nSecond.\n"
    spans = paragraphs(text)
    assert [text[start:end] for start, end in spans] == ["First line\nstill first.", "Second."]


def test_short_paragraphs_are_joined_and_a_passage_stops_growing_at_the_cap() -> None:
    text = "\n\n".join(SENTENCE * 2 for _ in range(30))
    passages = passages_of(document("a.md", text), [])
    assert len(passages) > 5
    assert all(len(p.text) <= MAX_PASSAGE_CHARS for p in passages)
    assert all(p.text == text[p.start : p.end] for p in passages)


def test_a_lone_heading_is_no_passage() -> None:
    assert passages_of(document("a.md", "# Title\n"), []) == []


def test_passages_in_a_section_a_question_touches_are_covered() -> None:
    text = f"# Orders\n\n{SENTENCE * 4}\n\n# Refunds\n\nA refund takes 14 days to reach the card.\n"
    doc = document("a.md", text)
    question = Question(
        "q", "How long?", evidence=(Evidence("a.md", quote="A refund takes 14 days"),)
    )
    coverage = corpus_coverage([doc], [question]).documents[0]
    passages = passages_of(doc, covered_spans(doc, coverage))
    assert [(p.text.splitlines()[0], p.covered) for p in passages] == [
        ("# Orders", False),
        ("# Refunds", True),
    ]


def passage(doc: str, index: int, covered: bool = False) -> Passage:
    return Passage(doc, index * 10, index * 10 + 5, f"{doc} {index}", covered)


def test_every_document_gives_one_before_any_gives_two() -> None:
    by_doc = [
        [passage(doc, i) for i in range(count)] for doc, count in (("a", 5), ("b", 1), ("c", 3))
    ]
    order = spread(by_doc, seed=7)
    assert len(order) == 9
    assert {p.doc for p in order[:3]} == {"a", "b", "c"}
    assert {p.doc for p in order[3:5]} == {"a", "c"}


def test_the_same_seed_gives_the_same_order_and_another_seed_another() -> None:
    by_doc = [[passage(doc, i) for i in range(6)] for doc in "abcdef"]
    assert spread(by_doc, seed=1) == spread(by_doc, seed=1)
    assert spread(by_doc, seed=1) != spread(by_doc, seed=2)


def test_uncovered_documents_and_passages_tend_to_come_first() -> None:
    firsts: Counter[str] = Counter()
    uncovered_first = 0
    for seed in range(400):
        by_doc = [
            [passage("covered", i, covered=True) for i in range(3)],
            [passage("open", i, covered=False) for i in range(3)],
            [passage("mixed", 0, covered=True), passage("mixed", 1, covered=False)],
        ]
        order = spread(by_doc, seed)
        firsts[order[0].doc] += 1
        mixed = [p for p in order if p.doc == "mixed"]
        uncovered_first += not mixed[0].covered
    # weights 1 (covered), 4 (open) and 2.5 (mixed): the open document leads most often
    assert firsts["open"] > firsts["mixed"] > firsts["covered"]
    assert uncovered_first > 400 * 0.7  # 4 to 1 odds: 80% in expectation
