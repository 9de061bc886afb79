"""What counts as a claim: framing, remarks about the context, citations (examples written
here; the measured effect on real answers is in benchmarks/faithfulness_real.py)."""

from __future__ import annotations

import pytest

from ragguard.metrics.claims import (
    NO_CONTENT,
    NOT_A_COURTESY,
    NOT_A_LEAD_IN,
    NOT_A_QUESTION,
    NOT_A_REFUSAL,
    NOT_ABOUT_CONTEXT,
    claim_of,
    non_claims,
    why_not_a_claim,
    without_citations,
)
from ragguard.metrics.text import segment


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Here are the steps to reset the router:", NOT_A_LEAD_IN),
        ("**To fix a lift valve, follow these steps:**", NOT_A_LEAD_IN),
        ("What are the benefits of hiking?", NOT_A_QUESTION),
        ("I'm sorry, but I cannot answer that from the documents.", NOT_A_REFUSAL),
        (
            "There does not seem to be any information in the passages about pricing.",
            NOT_ABOUT_CONTEXT,
        ),
        ("The provided information does not include the 2023 figures.", NOT_A_REFUSAL),
        ("Passage 2 says nothing about Alaska.", NOT_ABOUT_CONTEXT),
        ("I hope this helps! Let me know.", NOT_A_COURTESY),
        ("Overall, based on the given passages:", NOT_A_LEAD_IN),
        ("However, it is important to note the following.", NO_CONTENT),
    ],
)
def test_statements_that_are_not_claims(text, reason):
    assert why_not_a_claim(text) == reason


@pytest.mark.parametrize(
    "text",
    [
        "According to passage 2, technicians in Alaska earn $23.70 per hour.",
        "Passage 1 explains that tokens expire after 60 minutes.",
        "Tokens are not refreshed automatically.",  # a negation alone is a claim
        "The passages describe three ways to get rid of mice: traps, bait and steel wool.",
        "Requests take 10ms (Passage 3).",
    ],
)
def test_attributions_and_negations_are_claims(text):
    assert why_not_a_claim(text) is None


def test_citations_are_removed_but_units_and_names_are_kept():
    assert without_citations("Dizziness (Passage 1) and nausea [2].").split() == [
        "Dizziness",
        "(",
        ")",
        "and",
        "nausea",
        ".",
    ]
    assert without_citations("see passages 1, 2 and 3 or step 4").split() == ["see", "or"]
    assert without_citations("It takes 10ms on passage 10ms hardware.") == (
        "It takes 10ms on passage 10ms hardware."
    )


def test_a_claim_keeps_its_content_words_spelled_as_written_and_its_quantities():
    claim = claim_of("According to passage 2, technicians earn $23.70 per hour in Alaska.")
    assert claim is not None
    assert claim.stems == {
        "technician": "technicians",
        "earn": "earn",
        "hour": "hour",
        "alaska": "alaska",
    }
    assert claim.quantities == {23.7}
    assert claim_of("Yes.") is None
    assert claim_of("$5-$10.") is not None  # quantities alone are a claim


def test_non_claims_are_found_by_segment_id():
    answer = (
        "Based on the passages, here is the answer:\n\n"
        "- Tokens expire after 60 minutes.\n"
        "- The passages do not mention refresh tokens.\n"
    )
    assert non_claims(segment(answer)) == {"s1": NOT_A_LEAD_IN, "s3": NOT_A_REFUSAL}
