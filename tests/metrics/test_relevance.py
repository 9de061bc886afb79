"""Lexical answer relevance and the judge's rating scale."""

from __future__ import annotations

import pytest

from ragguard.metrics.relevance import fold, judge_relevance, lexical_relevance


def test_plural_folding():
    assert [fold(w) for w in ["requests", "queries", "status", "access", "keys", "api"]] == [
        "request",
        "query",
        "status",
        "access",
        "key",
        "api",
    ]


def test_share_of_question_terms_in_the_answer():
    question = "How many requests per minute are allowed?"  # terms: request, minute, allowed
    answer = "You can send 100 requests per minute per API key."
    assert lexical_relevance(question, answer) == pytest.approx(2 / 3)
    assert lexical_relevance(question, "Each minute allows one request, allowed by key.") == 1.0
    assert lexical_relevance(question, "Pagination uses cursors.") == 0.0


def test_defined_edge_cases():
    assert lexical_relevance("How many requests?", "") == 0.0
    assert lexical_relevance("How many requests?", None) == 0.0
    assert lexical_relevance("What is it?", "Anything at all.") == 1.0


@pytest.mark.parametrize(("rating", "value"), [(1, 0.0), (2, 0.25), (3, 0.5), (4, 0.75), (5, 1.0)])
def test_judge_rating_maps_to_unit_interval(rating, value):
    assert judge_relevance(rating) == value
