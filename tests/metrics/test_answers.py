"""answer_f1 (SQuAD token F1) and refusal detection."""

from __future__ import annotations

import pytest

from ragguard.metrics.answers import answer_f1, declined, is_refusal, squad_normalize
from ragguard.metrics.text import segment


def test_squad_normalisation():
    assert squad_normalize("The  Retry-After header, in SECONDS!") == "retryafter header in seconds"
    assert squad_normalize("An apple and a pear") == "apple and pear"


def test_token_f1_by_hand():
    # answer tokens: wait retryafter seconds then retry (5); reference: wait for number of
    # seconds in retryafter header then retry (10); overlap 5 -> P 1, R 0.5, F1 2/3.
    reference = "Wait for the number of seconds in the Retry-After header, then retry."
    assert answer_f1("Wait Retry-After seconds, then retry.", reference) == pytest.approx(2 / 3)
    assert answer_f1(reference, reference) == 1.0
    assert answer_f1("Pagination uses cursors.", reference) == 0.0


def test_repeated_tokens_count_once_each():
    # Counter intersection: "retry retry retry" vs "retry later" overlaps in one token.
    assert answer_f1("retry retry retry", "retry later") == pytest.approx(
        2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2)
    )


def test_empty_texts():
    assert answer_f1("", "") == 1.0
    assert answer_f1(None, "Retry later.") == 0.0
    assert answer_f1("Retry later.", "the") == 0.0  # the reference normalises to nothing


@pytest.mark.parametrize(
    "text",
    [
        "I don't know.",
        "I don\u2019t have enough information to answer that.",
        "I'm not sure how long tokens last.",
        "I cannot find that in the documentation.",
        "The documentation does not mention refunds.",
        "The provided context doesn't cover webhooks for test mode.",
        "There is no information about refunds in the docs.",
        "Refund timing is not documented in the available sources.",
        "That cannot be determined from the context.",
    ],
)
def test_refusal_sentences(text):
    assert is_refusal(text)


@pytest.mark.parametrize(
    "text",
    [
        "Tokens expire after 60 minutes.",
        "Requests are not retried automatically.",
        "You cannot send more than 100 requests per minute.",
        "The documentation says tokens expire after an hour.",
    ],
)
def test_statements_are_not_refusals(text):
    assert not is_refusal(text)


def test_an_answer_declines_when_half_its_statements_refuse():
    assert declined(segment("I don't know. Please contact support."))
    assert not declined(
        segment("I don't know the exact reset time. Limits are 100 a minute. Use a key.")
    )
    assert not declined(segment(""))
