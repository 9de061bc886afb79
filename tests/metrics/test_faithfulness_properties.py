"""Properties of lexical faithfulness on generated answers and contexts (hypothesis): what
must hold for any text, not only for the examples written in test_faithfulness.py."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from ragguard.metrics.faithfulness import faithfulness_score, lexical_verdicts
from ragguard.metrics.text import segment, split_sentences

# Words that make overlaps, numbers, negations, citations and framing likely.
WORDS = (
    "api key keys request requests minute minutes send sends status 429 100 1,000 two "
    "token tokens expire expired hour hours retry header webhook deliveries signed "
    "not never no without the a is are each per may can passage (Passage 2) [1] "
    "based provided passages mention however important note 2.3.1 $5 10ms PS4"
)
VOCABULARY = tuple(WORDS.split())

words = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=12)
sentences = words.map(lambda chosen: " ".join(chosen).capitalize() + ".")
paragraphs = st.lists(sentences, min_size=1, max_size=5).map(" ".join)
contexts = st.lists(paragraphs, min_size=0, max_size=4).map(
    lambda texts: [(f"c{n}", text) for n, text in enumerate(texts)]
)
thresholds = st.sampled_from((0.3, 0.5, 0.75, 1.0))
# Derandomized: CI sees the same examples every run (a search with more examples is run by
# hand: RAGGUARD_PROPERTY_EXAMPLES=5000).
PROPERTY = settings(
    max_examples=int(os.environ.get("RAGGUARD_PROPERTY_EXAMPLES", "150")),
    deadline=None,
    derandomize="RAGGUARD_PROPERTY_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow],
)


def check_invariants(answer: str, context, threshold: float, question: str = "") -> None:
    segments = segment(answer)
    verdicts = lexical_verdicts(segments, context, threshold, question)
    assert [v.id for v in verdicts] == [s.id for s in segments]
    for verdict in verdicts:
        if verdict.supported is None:
            assert verdict.score is None and verdict.note.startswith("not a claim")
        else:
            assert 0.0 <= verdict.score <= 1.0
            assert verdict.supported is (verdict.score >= threshold)
            assert verdict.supported or verdict.note
    assert 0.0 <= faithfulness_score(verdicts) <= 1.0
    assert lexical_verdicts(segments, context, threshold, question) == verdicts


@PROPERTY
@given(answer=paragraphs, context=contexts, threshold=thresholds, question=paragraphs)
def test_verdicts_are_well_formed_for_generated_prose(answer, context, threshold, question):
    check_invariants(answer, context, threshold, question)


@PROPERTY
@given(answer=st.text(max_size=400), chunk=st.text(max_size=400), threshold=thresholds)
@example(answer="0", chunk="", threshold=0.3)  # a claim of a number alone, nothing to match it
def test_any_text_at_all_gives_well_formed_verdicts(answer, chunk, threshold):
    check_invariants(answer, [("c", chunk)], threshold, question=chunk[:40])


@PROPERTY
@given(context=contexts.filter(bool), data=st.data())
def test_a_sentence_copied_from_the_context_is_supported(context, data):
    _, text = data.draw(st.sampled_from(context))
    copied = data.draw(st.sampled_from(split_sentences(text)))
    claims = [v for v in lexical_verdicts(segment(copied), context, 1.0) if v.supported is not None]
    assume(claims)
    assert all((v.supported, v.score) == (True, 1.0) for v in claims), claims


@PROPERTY
@given(answer=paragraphs, context=contexts.filter(bool), threshold=thresholds)
def test_a_claim_in_words_the_context_never_uses_is_unsupported(answer, context, threshold):
    invented = "Quokkas photosynthesize marmalade during eclipses."
    verdicts = lexical_verdicts(segment(answer + " " + invented), context, threshold)
    assert (verdicts[-1].text, verdicts[-1].supported, verdicts[-1].score) == (invented, False, 0.0)
    assert verdicts[-1].note == (
        "not in the context: quokkas, photosynthesize, marmalade, eclipses (in no chunk)"
    )
