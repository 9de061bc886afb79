"""Offline extractive drafts: definitions, numbers and names, the sentence as quote and answer."""

from __future__ import annotations

from ragguard.testset.drafting.offline import offline_candidates, question_for, sentences
from ragguard.testset.drafting.passages import Passage


def test_sentences_skip_headings_tables_and_code_and_drop_list_markers() -> None:
    text = (
        "# Limits\n| a | b |\n```\ncode = 1\n```\n- Each key may send 100 requests a minute. "
        "Extra requests get 429.\n"
    )
    assert list(sentences(text)) == [
        "code = 1",
        "Each key may send 100 requests a minute.",
        "Extra requests get 429.",
    ]


def test_a_definition_is_asked_as_what_is() -> None:
    sentence = "An idempotency key is a unique value the client sends with a POST request."
    assert question_for(sentence, "idempotency.md") == "What is an idempotency key?"


def test_a_number_is_blanked_out() -> None:
    sentence = "Old versions are supported for at least 12 months after a release."
    assert question_for(sentence, "versioning.md") == (
        'Which number fills the blank in versioning.md: "Old versions are supported for at '
        'least ___ months after a release."?'
    )


def test_a_name_mid_sentence_is_blanked_out() -> None:
    sentence = "Official client libraries are published for Python and for the browser."
    assert "for ___ and for the browser" in (question_for(sentence, "sdks.md") or "")


def test_sentences_without_a_fact_too_short_or_questions_give_none() -> None:
    assert question_for("the rest of this page explains how things work here.", "a.md") is None
    assert question_for("Wait 5 s.", "a.md") is None
    assert question_for("Can I send 100 requests a minute to the API server?", "a.md") is None


def test_a_draft_per_passage_with_the_sentence_as_its_quote_and_answer() -> None:
    text = (
        "Nothing to ask here at all, only words.\nRefunds reach the customer's card within 14 days."
    )
    passages = [Passage("refunds.md", 0, len(text), text, False)]
    (draft,) = list(offline_candidates(passages))
    assert draft.kind == "single-fact" and draft.source == "offline-extractive"
    assert draft.answer == "Refunds reach the customer's card within 14 days."
    assert [(q.doc, q.quote) for q in draft.evidence] == [("refunds.md", draft.answer)]
