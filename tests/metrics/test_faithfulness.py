"""Lexical faithfulness: the seed's example exactly, claims and framing, evidence, quantities,
contradictions, and the labelled tricky-sentence set with the accuracy the docs report."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragguard.judge.calibrate import lexical_agreement, load_calibration
from ragguard.metrics.claims import (
    NO_CONTENT,
    NOT_A_LEAD_IN,
    NOT_A_QUESTION,
    NOT_A_REFUSAL,
    NOT_ABOUT_CONTEXT,
)
from ragguard.metrics.faithfulness import (
    faithfulness_score,
    is_negated,
    lexical_verdicts,
    verdict_lines,
)
from ragguard.metrics.faithfulness_model import shipped_model
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
    sentence = segment("Each API key may send requests per minute.")
    (verdict,) = lexical_verdicts(sentence, context, threshold=0.5)
    # All five content words occur in the context (each once: equal weights), but no chunk
    # holds more than two of them.
    assert verdict.supported is False
    assert verdict.score == pytest.approx(2 / 5)
    assert verdict.note == "not in the context: send, requests, minute"


def test_evidence_joins_adjacent_sentences_of_one_chunk_but_not_distant_ones():
    sentence = segment("Each API key has a quota of 100 requests per minute.")
    near = [("rl", "Each API key has a quota. The quota is 100 requests per minute.")]
    (verdict,) = lexical_verdicts(sentence, near, threshold=0.9)
    assert (verdict.supported, verdict.score) == (True, 1.0)
    far = [
        (
            "rl",
            "Each API key has a quota. Pagination uses cursors. Cursors expire. "
            "The limit is 100 requests per minute.",
        )
    ]
    (verdict,) = lexical_verdicts(sentence, far, threshold=0.9)
    assert verdict.supported is False
    assert 0.3 < verdict.score < 0.9


def test_words_of_the_question_count_as_given():
    sentence = segment("Automotive technicians are paid by the hour.")
    context = [("pay", "Most shops pay by the hour.")]
    assert lexical_verdicts(sentence, context)[0].supported is False
    question = "How are automotive technicians paid?"
    (verdict,) = lexical_verdicts(sentence, context, question=question)
    assert (verdict.supported, verdict.score) == (True, 1.0)


def test_inflections_are_folded():
    context = [("geo", "Technicians in Alaska earn the highest average pay by location.")]
    (verdict,) = lexical_verdicts(segment("Earning the highest pay is located in Alaska."), context)
    assert verdict.supported is True


def test_best_chunk_is_the_evidence_and_ties_go_to_the_higher_rank():
    context = [("low", "Pagination uses cursors."), ("x", PASSAGE), ("y", PASSAGE)]
    (verdict,) = lexical_verdicts(segment("Extra requests return status 429."), context)
    assert (verdict.supported, verdict.evidence, verdict.score) == (True, "x", 1.0)


def test_a_changed_number_makes_the_sentence_unsupported():
    (verdict,) = lexical_verdicts(
        segment("Each API key may send 1000 requests per minute, status 429."),
        [("rate-limits", PASSAGE)],
    )
    assert (verdict.supported, verdict.score) == (False, 0.0)
    assert verdict.note == "number 1000 not in the evidence"
    assert verdict.evidence == "rate-limits"


@pytest.mark.parametrize(
    "sentence",
    [
        "You can send 100 requests per minute per API key (Passage 1).",
        "According to passage 2, you can send 100 requests per minute per API key.",
        "You can send one hundred requests per minute per API key [1].",
        "You can send 100.0 requests per minute per API key, as in step 3.",
    ],
)
def test_citations_and_written_numbers_are_not_taken_for_quantities(sentence):
    (verdict,) = lexical_verdicts(segment(sentence), [("rate-limits", PASSAGE)])
    assert verdict.supported is True, verdict.note


def test_thousands_separators_and_written_numbers_are_the_same_quantity():
    context = [("c", "Each plan allows 1,000 calls and two retries.")]
    (verdict,) = lexical_verdicts(segment("Each plan allows 1000 calls and 2 retries."), context)
    assert verdict.supported is True


@pytest.mark.parametrize(
    ("sentence", "context", "note"),
    [
        (
            "Extra requests never return status 429.",
            PASSAGE,
            "contradicts the context: only the statement is negated",
        ),
        (
            "Webhook deliveries are signed.",
            "Webhook deliveries are never signed.",
            "contradicts the context: only the evidence is negated",
        ),
    ],
)
def test_a_flipped_claim_is_a_contradiction(sentence, context, note):
    (verdict,) = lexical_verdicts(segment(sentence), [("c", context)])
    assert (verdict.supported, verdict.score, verdict.note) == (False, 0.0, note)


@pytest.mark.parametrize(
    ("sentence", "chunk"),
    [
        # the negation is in another sentence of the chunk
        (
            "Tokens expire after 60 minutes.",
            "Tokens are not refreshed. Tokens expire after 60 minutes.",
        ),
        # ... in a neighbouring clause
        (
            "Scrape the plastic off with a wooden spatula.",
            "Scrape the plastic off with a wooden spatula, taking care not to damage the drum.",
        ),
        # ... or not a denial at all
        (
            "Technicians are paid by the hour or by commission.",
            "Technicians are paid by the hour or by commission (commission or not).",
        ),
    ],
)
def test_a_negation_elsewhere_is_no_contradiction(sentence, chunk):
    (verdict,) = lexical_verdicts(segment(sentence), [("c", chunk)])
    assert verdict.supported is True, verdict.note


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("Requests are not retried.", True),
        ("Tokens never expire.", True),
        ("You don\u2019t need a key.", True),
        ("It can't be changed.", True),
        ("Requests without a key fail.", True),
        ("Requests are retried.", False),
        ("Annotations are kept.", False),
        ("Paid by the hour (commission or not).", False),
        ("It is not only fast but cheap.", False),
        ("Send no more than 100 requests.", False),
    ],
)
def test_negation_cues(text, negated):
    assert is_negated(text) is negated


@pytest.mark.parametrize(
    ("answer", "note"),
    [
        ("Based on the given passages, to fix a lift valve follow these steps:", NOT_A_LEAD_IN),
        ("How do automotive technicians get paid?", NOT_A_QUESTION),
        ("The passages do not provide specific information on pay rates.", NOT_A_REFUSAL),
        ("None is mentioned in the given passages.", NOT_ABOUT_CONTEXT),
        ("Passage 3 doesn't say anything about salaries in Ohio.", NOT_ABOUT_CONTEXT),
        ("I hope this helps!", "not a claim: a courtesy"),
        ("Yes.", NO_CONTENT),
    ],
)
def test_framing_and_remarks_about_the_context_are_not_claims(answer, note):
    (verdict,) = lexical_verdicts(segment(answer), [("rl", PASSAGE)])
    assert (verdict.supported, verdict.score, verdict.note) == (None, None, note)


def test_a_real_answer_with_framing_counts_only_its_claims():
    answer = (
        "Based on the provided passages, here is the answer:\n\n"
        "According to passage 1, you can send 100 requests per minute per API key. "
        "Extra requests return status 429 (Passage 1). "
        "However, the passages do not mention when the limits reset."
    )
    verdicts = lexical_verdicts(segment(answer), [("rate-limits", PASSAGE)])
    assert [v.supported for v in verdicts] == [None, True, True, None]
    assert faithfulness_score(verdicts) == 1.0


def test_an_invented_sentence_among_copied_ones_is_caught():
    answer = (
        "Each API key may send 100 requests per minute. "
        "Extra requests return status 429 with a Retry-After header. "
        "Unused quota rolls over to the next billing month."
    )
    verdicts = lexical_verdicts(segment(answer), [("rate-limits", PASSAGE)])
    assert [v.supported for v in verdicts] == [True, True, False]
    assert (
        verdicts[2].note
        == "not in the context: unused, quota, rolls, next, billing, month (in no chunk)"
    )


def test_statements_without_content_words_are_not_counted():
    verdicts = lexical_verdicts(
        segment("Yes. Extra requests return status 429."), [("rl", PASSAGE)]
    )
    assert [(v.supported, v.note) for v in verdicts] == [(None, NO_CONTENT), (True, None)]
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
        "    NOT A CLAIM: NO CONTENT WORDS",
        "NOT FOUND (0.00): EACH API KEY MAY SEND 200 REQUESTS PER MINUTE.",
        "    NUMBER 200 NOT IN THE EVIDENCE",
        "Faithfulness: 0/1 sentences supported",
    ]


def test_threshold_is_respected():
    sentence = segment("Extra requests return status 429 quickly.")  # 4 of 5 words
    assert lexical_verdicts(sentence, [("rl", PASSAGE)], threshold=0.6)[0].supported is True
    assert lexical_verdicts(sentence, [("rl", PASSAGE)], threshold=0.7)[0].supported is False


def test_a_word_the_context_repeats_everywhere_counts_less():
    context = [("c", "Tokens expire when signed. Tokens rotate. Tokens refresh. Tokens are kept.")]
    rare_found = lexical_verdicts(segment("Signed keys expire."), context)[0].score
    common_found = lexical_verdicts(segment("Tokens expire quarterly."), context)[0].score
    # Both find two words of three and miss one the context never uses ("keys", "quarterly",
    # which weighs most); "tokens" is in every sentence, so finding it proves less.
    assert common_found < rare_found < 1.0


def test_verdict_is_exactly_the_score_against_the_threshold():
    """The benchmark tunes the threshold on recorded scores: that needs this to hold."""
    answer = ANSWER + " Each API key may send 1000 requests. Extra requests never return 429."
    for threshold in (0.3, 0.5, 0.75):
        for v in lexical_verdicts(segment(answer), [("rl", PASSAGE)], threshold):
            assert v.supported is (v.score >= threshold)


def test_scoring_is_linear_in_the_answer_length():
    """Operation count, not time: the segmenter looks back only to the previous space."""
    sentence = "Extra requests return status 429 e.g. after a burst. "
    short, long = sentence * 200, sentence * 400
    assert len(segment(long)) == 2 * len(segment(short))


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


def test_the_tricky_set_at_the_other_strictness_levels_is_what_the_docs_report():
    items = load_calibration(TRICKY)
    table = DOC.read_text(encoding="utf-8").split("<!-- tricky-table -->")[1]
    rows = {
        cells[0]: cells
        for line in table.splitlines()[2:]
        if line.startswith("| ") and (cells := [c.strip() for c in line.strip("|").split("|")])
    }
    for column, level in ((3, "balanced"), (4, "strict")):
        threshold = shipped_model().threshold(level)
        for kind in sorted({item.kind for item in items}):
            agreement = lexical_agreement([i for i in items if i.kind == kind], threshold)
            assert rows[kind][column] == f"{agreement.agree}/{agreement.n}", (kind, level)
        overall = lexical_agreement(items, threshold)
        assert rows["all"][column] == f"{overall.agree}/{overall.n}"
        assert f"{level.capitalize()}: {overall.kappa:.2f}" in table
