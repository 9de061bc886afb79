"""The checks a draft must pass: quotes verbatim (white space aside), no near-duplicates."""

from __future__ import annotations

from ragguard.testset.drafting.checks import (
    NEAR_DUPLICATE,
    SeenQuestions,
    quote_found,
    quotes_found,
    similarity,
    squeezed,
    word_set,
)
from ragguard.testset.drafting.model import Draft, Quote, Turn

DOC = "Refunds\n\nA refund is issued within\n  14 days of the request.\nSee `POST /v1/refunds`."


def test_a_quote_is_found_across_line_breaks_and_indentation() -> None:
    assert quote_found("A refund is issued within 14 days of the request.", DOC)


def test_only_white_space_is_forgiven() -> None:
    assert not quote_found("a refund is issued within 14 days", DOC)  # case
    assert not quote_found("A refund is issued ... of the request.", DOC)  # an ellipsis
    assert not quote_found('"A refund is issued within 14 days"', DOC)  # quotation marks
    assert not quote_found("A refund is issued within 10 days", DOC)  # a changed fact
    assert not quote_found("   ", DOC)


def test_every_quote_of_a_draft_must_be_in_its_own_document() -> None:
    texts = {"refunds.md": squeezed(DOC), "other.md": "Nothing here."}
    good = Quote("refunds.md", "issued within 14 days")
    elsewhere = Quote("other.md", "issued within 14 days")
    turn = Turn("q", "a", (good,))
    assert quotes_found(Draft("single-fact", "q", "a", "s", evidence=(good,)), texts)
    assert not quotes_found(Draft("comparison", "q", "a", "s", evidence=(good, elsewhere)), texts)
    assert not quotes_found(Draft("multi-hop", "q", "a", "s", hops=((good,), (elsewhere,))), texts)
    assert quotes_found(Draft("follow-up", "q", "a", "s", turns=(turn, turn)), texts)
    unknown = Quote("gone.md", "issued")
    assert not quotes_found(Draft("single-fact", "q", "a", "s", evidence=(unknown,)), texts)


def test_similarity_is_the_jaccard_of_word_sets() -> None:
    first = word_set("How long does a refund take?")
    second = word_set("How long does a refund take to arrive?")
    assert similarity(first, second) == 6 / 8
    assert similarity(frozenset(), frozenset()) == 0.0


def test_near_duplicates_of_the_test_set_and_of_kept_drafts_are_refused() -> None:
    seen = SeenQuestions(["How long does a refund take?"])
    assert seen.repeats("how long does a REFUND take")  # same words: 1.0
    assert seen.repeats("How long does a refund take to arrive?")  # 0.75, the threshold
    assert NEAR_DUPLICATE == 0.75
    draft = Draft("single-fact", "Which carriers ship orders?", "a", "s")
    assert seen.keep(draft)
    assert not seen.keep(Draft("single-fact", "Which carriers ship the orders?", "a", "s"))
    assert not seen.repeats("What is the rate limit per API key?")
