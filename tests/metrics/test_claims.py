"""What counts as a claim: framing, remarks about the context, citations (examples written
here; the measured effect on real answers is in benchmarks/faithfulness_real.py)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragguard.metrics import claims as claims_module
from ragguard.metrics.claims import (
    NO_CONTENT,
    NOT_A_COURTESY,
    NOT_A_LEAD_IN,
    NOT_A_QUESTION,
    NOT_A_REFERRAL,
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
        ("Sure, I'd be happy to help you with that!", NOT_A_COURTESY),
        ("Good luck!", NOT_A_COURTESY),
        (
            "If the problem persists, it may be best to consult a professional locksmith.",
            NOT_A_REFERRAL,
        ),
        ("It's recommended to seek guidance from an experienced framer.", NOT_A_REFERRAL),
        ("The passages provide enough information to answer the question.", NOT_ABOUT_CONTEXT),
        ("Passage 3 provides the necessary information to answer it.", NOT_ABOUT_CONTEXT),
        ("Passage 3: (unavailable)", NOT_ABOUT_CONTEXT),
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
        "Consulting firms charge by the hour.",  # names a profession, advises nothing
        "Passage 2 says two weeks is enough time to heal.",  # "enough", but about the topic
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


def test_citations_with_an_oxford_comma_or_a_count_are_not_quantities():
    """#29: "based on passages 1, 2, and 3" left the 3 behind as a number to find, and
    "Method 1 of 2" the 2: real clean answers were flagged for a number no chunk holds."""
    assert claim_of("It is 81 degrees (based on passages 1, 2, and 3).").quantities == {81.0}
    assert claim_of("Method 1 of 2 in passage 2 sets the default browser.").quantities == set()


def test_a_unit_conversion_in_parentheses_is_not_a_second_quantity():
    """#29: a model that adds the Celsius to a temperature states no new number."""
    claim = claim_of("In September it is 58 degrees Fahrenheit (15 degrees Celsius).")
    assert claim.quantities == {58.0}
    assert claim_of("Bake at 350\u00b0F (175\u00b0C) for 30 minutes.").quantities == {350.0, 30.0}
    # Not a unit: both numbers are claims.
    assert claim_of("It costs 5 dollars (4 euros).").quantities == {5.0, 4.0}


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


def test_relation_words_are_not_content():
    """#29: "Within a year." claims a year; "within", in every chunk of a shipping policy,
    made it look a quarter supported."""
    assert list(claim_of("Within a year.").stems) == ["year"]
    assert list(claim_of("Ships across the country within 2 days.").stems) == [
        "ship",
        "countri",
        "day",
    ]


_LOOKAHEAD = re.compile(r"^\(\?=\[[^\]]*\]\)")
_CITATION_PIECES = (
    *"pPsSdDcCrReEtTiIoOmM[]()~%,-\u2013&#. 0123456789\u017f\u0130",
    *("Step ", "passages ", "Source ", "[1, 2]", " (15 degrees Celsius)", " (about 3 km)"),
    "items 2 of 5 and 7",
)
_CITATION_TEXT = st.lists(st.sampled_from(_CITATION_PIECES), max_size=20).map("".join)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_CITATION_TEXT)
def test_the_lookahead_of_the_citation_patterns_changes_no_match(text) -> None:
    for pattern in (claims_module._CITATION, claims_module._CONVERSION):
        plain = re.compile(_LOOKAHEAD.sub("", pattern.pattern), pattern.flags)
        assert plain.pattern != pattern.pattern
        assert pattern.sub(" ", text) == plain.sub(" ", text)
