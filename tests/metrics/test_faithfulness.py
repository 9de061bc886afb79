"""Lexical faithfulness: the seed's example exactly, per-chunk evidence, numbers, negation,
and the labelled tricky-sentence set with the accuracy the docs report."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragguard.calibrate import lexical_agreement, load_calibration
from ragguard.metrics.faithfulness import faithfulness_score, lexical_verdicts, verdict_lines
from ragguard.metrics.text import segment

PASSAGE = (
    "Each API key may send 100 requests per minute. Extra requests return status 429 with a "
    "Retry-After header."
)
ANSWER = (
    "You can send 100 requests per minute per API key. Extra requests return status 429. "
    "Limits reset every hour."
)
ROOT = Path(__file__).resolve().parents[2]
TRICKY = ROOT / "tests" / "data" / "faithfulness_tricky.yaml"
DOC = ROOT / "docs" / "generation.md"


def test_seed_example_exactly():
    verdicts = lexical_verdicts(segment(ANSWER), [("rate-limits", PASSAGE)])
    assert verdict_lines(verdicts) == [
        "SUPPORTED (1.00): You can send 100 requests per minute per API key.",
        "SUPPORTED (1.00): Extra requests return status 429.",
        "NOT FOUND (0.00): Limits reset every hour.",
        "Faithfulness: 2/3 sentences supported",
    ]
    assert faithfulness_score(verdicts) == pytest.approx(2 / 3)
    assert [v.evidence for v in verdicts] == ["rate-limits", "rate-limits", None]


def test_evidence_is_one_chunk_not_words_scattered_across_chunks():
    context = [
        ("a", "Each API key is listed in the dashboard."),
        ("b", "You may send requests over HTTPS."),
        ("c", "The limit is counted per minute."),
    ]
    (verdict,) = lexical_verdicts(segment("Each API key may send requests per minute."), context)
    # All five content terms occur in the context, but no chunk holds more than two of them.
    assert verdict.supported is False
    assert verdict.score == pytest.approx(2 / 5)
    assert verdict.note == "share below 0.75"


def test_best_chunk_is_the_evidence_and_ties_go_to_the_higher_rank():
    context = [("low", "Pagination uses cursors."), ("x", PASSAGE), ("y", PASSAGE)]
    (verdict,) = lexical_verdicts(segment("Extra requests return status 429."), context)
    assert (verdict.supported, verdict.evidence, verdict.score) == (True, "x", 1.0)


def test_a_number_the_evidence_lacks_makes_the_sentence_unsupported():
    (verdict,) = lexical_verdicts(
        segment("Each API key may send 200 requests per minute, status 429."),
        [("rate-limits", PASSAGE)],
    )
    assert verdict.supported is False
    assert verdict.score == pytest.approx(7 / 8)
    assert verdict.note == "number 200 not in the evidence"


def test_a_number_found_in_another_chunk_moves_the_evidence_there():
    context = [("old", "Each API key may send 50 requests per minute."), ("new", PASSAGE)]
    (verdict,) = lexical_verdicts(segment("An API key may send 100 requests per minute."), context)
    assert (verdict.supported, verdict.evidence) == (True, "new")


@pytest.mark.parametrize(
    ("sentence", "context", "note"),
    [
        (
            "Requests are not retried automatically.",
            "Requests are retried automatically by the SDK.",
            "negation mismatch: only the sentence is negated",
        ),
        (
            "Webhook deliveries are signed.",
            "Webhook deliveries are never signed.",
            "negation mismatch: only the evidence is negated",
        ),
    ],
)
def test_negation_mismatch_makes_the_sentence_unsupported(sentence, context, note):
    (verdict,) = lexical_verdicts(segment(sentence), [("c", context)])
    assert verdict.supported is False
    assert verdict.note == note


def test_negation_is_compared_with_the_closest_sentence_of_the_chunk():
    chunk = "Tokens are not refreshed by the server. Tokens expire after 60 minutes."
    (verdict,) = lexical_verdicts(segment("Tokens expire after 60 minutes."), [("auth", chunk)])
    assert verdict.supported is True


def test_statements_without_content_terms_are_not_counted():
    verdicts = lexical_verdicts(
        segment("Yes. Extra requests return status 429."), [("rl", PASSAGE)]
    )
    assert [(v.supported, v.note) for v in verdicts] == [(None, "no content terms"), (True, None)]
    assert faithfulness_score(verdicts) == 1.0


def test_empty_context_supports_nothing():
    verdicts = lexical_verdicts(segment(ANSWER), [])
    assert all(v.supported is False and v.score == 0.0 for v in verdicts)
    assert {v.note for v in verdicts} == {"empty context"}
    assert faithfulness_score(verdicts) == 0.0


def test_no_statement_at_all_scores_zero():
    assert faithfulness_score(()) == 0.0
    assert faithfulness_score(lexical_verdicts(segment("Yes."), [("rl", PASSAGE)])) == 0.0


def test_verdict_lines_show_the_notes_of_failed_checks():
    verdicts = lexical_verdicts(
        segment("Yes. Each API key may send 200 requests per minute."), [("rl", PASSAGE)]
    )
    assert verdict_lines(verdicts, clean=str.upper) == [
        "NOT CHECKED: YES.",
        "    NO CONTENT TERMS",
        "NOT FOUND (0.83): EACH API KEY MAY SEND 200 REQUESTS PER MINUTE.",
        "    NUMBER 200 NOT IN THE EVIDENCE",
        "Faithfulness: 0/1 sentences supported",
    ]


def test_threshold_is_respected():
    sentence = segment("Extra requests return status 429 quickly.")  # 5 of 6 terms
    assert lexical_verdicts(sentence, [("rl", PASSAGE)], threshold=0.8)[0].supported is True
    assert lexical_verdicts(sentence, [("rl", PASSAGE)], threshold=0.9)[0].supported is False


def documented_accuracy() -> dict[str, str]:
    """The 'lexical' column of the tricky-set table in docs/generation.md, by kind."""
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- tricky-table -->")[1]
    rows = re.findall(r"^\| (\S[^|]*?) \| (\d+) \| (\d+/\d+ = [0-9.]+) \|", table, re.M)
    return {kind: value for kind, _, value in rows}


def test_tricky_set_accuracy_is_what_the_docs_report():
    items = load_calibration(TRICKY)
    kinds = {item.kind for item in items}
    assert {"paraphrase", "changed number", "flipped negation", "copied vocabulary"} <= kinds
    measured = {}
    for kind in sorted(kinds):
        agreement = lexical_agreement([item for item in items if item.kind == kind])
        measured[kind] = f"{agreement.agree}/{agreement.n} = {agreement.accuracy:.2f}"
    overall = lexical_agreement(items)
    measured["all"] = f"{overall.agree}/{overall.n} = {overall.accuracy:.2f}"
    assert documented_accuracy() == measured
    assert f"Overall Cohen's kappa is {overall.kappa:.2f}." in DOC.read_text(encoding="utf-8")
