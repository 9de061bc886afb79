"""The decision on one claim: the support share less the learned penalties, the strictness
levels, and the reasons a flagged claim shows (#29 items 1 and 2)."""

from __future__ import annotations

import pytest

from ragguard.metrics.faithfulness import DEFAULT_THRESHOLD, STRICTNESS_LEVELS, lexical_verdicts
from ragguard.metrics.faithfulness_model import (
    FEATURES,
    Findings,
    missing_names,
    model_from,
    reasons,
    shipped_model,
)
from ragguard.metrics.text import segment

MODEL = model_from(
    {
        "penalties": {"unseen": 0.3, "name": 0.2},
        "levels": {"lenient": 0.05, "balanced": 0.2, "strict": 0.4},
        "default_level": "balanced",
    }
)


def test_the_score_is_the_share_less_the_penalties_of_what_was_found():
    plain = Findings(share=0.8, unseen=0.0)
    assert MODEL.score(plain) == pytest.approx(0.8)
    found = Findings(share=0.8, unseen=0.5, names=("Gustave",))
    assert MODEL.score(found) == pytest.approx(0.8 - 0.3 * 0.5 - 0.2)
    assert MODEL.score(Findings(share=0.1, unseen=1.0, names=("X",))) == 0.0  # never below 0


def test_a_failed_hard_check_scores_0_and_is_the_only_reason():
    found = Findings(share=1.0, unseen=0.0, number="number 200 not in the evidence")
    assert MODEL.score(found) == 0.0
    assert reasons(found, MODEL) == ["number 200 not in the evidence"]
    negated = Findings(share=1.0, unseen=0.0, contradiction="contradicts the context")
    assert (MODEL.score(negated), reasons(negated, MODEL)) == (0.0, ["contradicts the context"])


def test_the_reasons_show_every_finding_that_lowered_the_score():
    found = Findings(
        share=0.3,
        unseen=0.5,
        names=("Gustave", "Eiffel"),
        missing_words=("built", "gustave", "eiffel"),
        unseen_words=("gustave", "eiffel"),
    )
    assert reasons(found, MODEL) == [
        "name Gustave, Eiffel not in the context",
        "not in the context: built, gustave, eiffel (in no chunk: gustave, eiffel)",
    ]
    every = Findings(share=0.0, unseen=1.0, missing_words=("a", "b"), unseen_words=("a", "b"))
    assert reasons(every, MODEL) == ["not in the context: a, b (in no chunk)"]


def test_a_finding_whose_penalty_is_not_positive_is_no_reason():
    neutral = model_from(
        {"penalties": {"unseen": 0.0, "name": -0.1}, "levels": {"x": 0.3}, "default_level": "x"}
    )
    found = Findings(
        share=0.1, unseen=1.0, names=("Zed",), missing_words=("zed",), unseen_words=("zed",)
    )
    assert reasons(found, neutral) == ["not in the context: zed"]


def test_names_are_capitalised_words_after_a_sentence_start_that_the_context_lacks():
    text = "Aristotle wrote it in Greece. Then Plato: Yes, in Athens."
    assert missing_names(text, {"athen"}.__contains__) == ("Greece", "Plato")
    # The tail of a compound and a stopword name nothing.
    assert (
        missing_names("It returns a Retry-After header, After all.", {"retri"}.__contains__) == ()
    )


def test_the_shipped_model_is_plain_data_with_ordered_levels():
    model = shipped_model()
    assert set(model.penalties) == set(FEATURES)
    assert all(penalty > 0 for penalty in model.penalties.values())  # each can be a reason
    assert tuple(model.levels) == STRICTNESS_LEVELS == ("lenient", "balanced", "strict")
    assert model.levels["lenient"] < model.levels["balanced"] < model.levels["strict"]
    assert model.levels[model.default_level] == DEFAULT_THRESHOLD


def test_a_name_no_chunk_holds_lowers_a_claim_and_is_its_reason():
    context = [("t", "The tower was built in 1889 in the city for the fair.")]
    copied, named = lexical_verdicts(
        segment("The tower was built in 1889 for the fair. The tower was built by Gustave Eiffel."),
        context,
        shipped_model().threshold("strict"),
    )
    assert copied.supported is True
    # Two of its four words weigh the most (no chunk has them), and they are names.
    assert named.supported is False
    assert named.note == (
        "name Gustave, Eiffel not in the context; not in the context: gustave, eiffel (in no chunk)"
    )


def test_a_level_is_a_threshold_on_the_one_score():
    (verdict,) = lexical_verdicts(
        segment("The tower was built for the fair by Gustave."),
        [("t", "The tower was built in 1889 in the city for the fair.")],
    )
    assert 0 < verdict.score < 1
    for level in STRICTNESS_LEVELS:
        threshold = shipped_model().threshold(level)
        (at_level,) = lexical_verdicts(
            segment("The tower was built for the fair by Gustave."),
            [("t", "The tower was built in 1889 in the city for the fair.")],
            threshold,
        )
        assert at_level.score == verdict.score
        assert at_level.supported == (verdict.score >= threshold)
