"""Generation metrics per question through score_run: the defined cases, never NaN."""

from __future__ import annotations

import json
import math

import pytest

from ragguard.metrics.names import parse_metric_list
from ragguard.metrics.settings import GenerationSettings, JudgeSettings
from ragguard.results.chunks import Chunk
from ragguard.results.io import results_from_dict
from ragguard.results.records import RunRecord
from ragguard.scoring.score import score_run
from ragguard.testset.model import Question, TestSet

PASSAGE = (
    "Each API key may send 100 requests per minute. Extra requests return status 429 with a "
    "Retry-After header."
)
SEED_ANSWER = (
    "You can send 100 requests per minute per API key. Extra requests return status 429. "
    "Limits reset every hour."
)
METRICS = parse_metric_list("hit_rate@1,faithfulness,answer_relevance,answer_f1,abstention")


def q(qid: str, answerable: bool = True, reference: str | None = None) -> Question:
    return Question(
        id=qid,
        question="How many requests per minute are allowed?",
        relevant={"rate-limits": 1} if answerable else {},
        answerable=answerable,
        reference_answer=reference,
    )


def rec(qid: str, answer: str | None, chunks=(("rate-limits", PASSAGE),), error=None) -> RunRecord:
    return RunRecord(qid, tuple(Chunk(cid, text) for cid, text in chunks), answer, error=error)


def score(questions, records, specs=METRICS, **kwargs):
    results = score_run(
        TestSet(tuple(questions)), {r.id: r for r in records}, specs, suite="t", **kwargs
    )
    data = json.loads(results.to_json())  # allow_nan=False: raises on any NaN
    for question in data["questions"]:
        assert all(math.isfinite(v) for v in question["metrics"].values())
    assert results_from_dict(data).questions == results.questions
    return results


def test_seed_answer_scores_two_thirds_with_sentences_kept():
    results = score([q("seed")], [rec("seed", SEED_ANSWER)])
    (question,) = results.questions
    assert question.status == "ok"
    assert question.metrics["faithfulness"] == pytest.approx(2 / 3)
    assert [(s.id, s.supported, s.score, s.evidence) for s in question.sentences] == [
        ("s1", True, 1.0, "rate-limits"),
        ("s2", True, 1.0, "rate-limits"),
        ("s3", False, 0.0, None),
    ]
    assert "abstention" not in question.metrics  # answerable question
    assert "answer_f1" not in question.metrics  # no reference answer
    assert results.summary["faithfulness"].n == 1


def test_chunk_text_can_come_from_a_corpus():
    results = score(
        [q("seed")],
        [rec("seed", SEED_ANSWER, chunks=(("rate-limits", None),))],
        corpus={"rate-limits": PASSAGE},
    )
    assert results.questions[0].metrics["faithfulness"] == pytest.approx(2 / 3)


def test_answer_f1_against_the_reference():
    reference = "Each API key may send 100 requests per minute."
    results = score([q("a", reference=reference)], [rec("a", reference)])
    assert results.questions[0].metrics["answer_f1"] == 1.0


def test_empty_answer_is_an_error_with_zero_generation_metrics():
    results = score(
        [q("a", reference="x"), q("b", answerable=False)], [rec("a", "  "), rec("b", None)]
    )
    a, b = results.questions
    assert (a.status, a.error) == (
        "error",
        "empty answer (generation metrics need the system's answer)",
    )
    assert a.metrics == {
        "hit_rate@1": 1.0,
        "faithfulness": 0.0,
        "hallucination_free": 0.0,
        "answer_relevance": 0.0,
        "answer_f1": 0.0,
    }
    assert b.status == "error"
    assert b.metrics == {"faithfulness": 0.0, "hallucination_free": 0.0, "abstention": 0.0}


def test_refusal_of_an_unanswerable_question_is_a_correct_abstention():
    results = score([q("u", answerable=False)], [rec("u", "I don't know. The docs do not say.")])
    (u,) = results.questions
    assert u.status == "ok"
    assert u.metrics == {"abstention": 1.0}


def test_answering_an_unanswerable_question_scores_abstention_zero_and_is_checked():
    results = score([q("u", answerable=False)], [rec("u", "Limits reset every hour.")])
    (u,) = results.questions
    assert u.metrics == {"abstention": 0.0, "faithfulness": 0.0, "hallucination_free": 0.0}
    assert u.status == "ok"


def test_refusing_an_answerable_question_counts_against_it():
    results = score([q("a", reference="100 requests per minute")], [rec("a", "I don't know.")])
    (a,) = results.questions
    assert a.status == "abstained"
    assert a.metrics["faithfulness"] == 0.0
    assert a.metrics["answer_relevance"] == 0.0
    assert a.metrics["answer_f1"] == 0.0
    assert [(s.supported, s.note) for s in a.sentences] == [(None, "declined")]
    assert results.counts["abstained"] == 1


def test_empty_context_supports_nothing():
    results = score([q("a")], [rec("a", SEED_ANSWER, chunks=())])
    (a,) = results.questions
    assert a.metrics["faithfulness"] == 0.0
    assert {s.note for s in a.sentences} == {"empty context"}


def test_run_error_and_missing_entry_score_zero_and_keep_their_status():
    results = score([q("a"), q("b"), q("c", answerable=False)], [rec("a", None, error="boom")])
    a, b, c = results.questions
    assert (a.status, b.status, c.status) == ("error", "missing", "missing")
    assert a.metrics["faithfulness"] == 0.0 and a.metrics["answer_relevance"] == 0.0
    assert c.metrics == {"faithfulness": 0.0, "hallucination_free": 0.0, "abstention": 0.0}


def test_method_judge_without_a_judge_client_is_a_judge_error_never_a_pass():
    settings = GenerationSettings(
        faithfulness_method="judge", judge=JudgeSettings("http://127.0.0.1:9/v1", "m")
    )
    results = score([q("a")], [rec("a", SEED_ANSWER)], generation=settings)
    (a,) = results.questions
    assert a.status == "judge_error"
    assert a.metrics["faithfulness"] == 0.0
    assert a.metrics["answer_relevance"] == pytest.approx(2 / 3)  # lexical, unaffected
    assert results.counts["judge_error"] == 1


def test_retrieval_only_scoring_is_unchanged():
    results = score([q("a")], [rec("a", None)], specs=parse_metric_list("hit_rate@1,mrr"))
    assert results.questions[0].metrics == {"hit_rate@1": 1.0, "mrr": 1.0}
    assert results.questions[0].sentences == ()


def test_hallucination_free_is_one_only_when_no_statement_is_unsupported():
    specs = parse_metric_list("faithfulness,hallucination_free")
    clean = "You can send 100 requests per minute per API key. Extra requests return status 429."
    results = score(
        [q("clean"), q("seed"), q("refused"), q("unanswerable", answerable=False)],
        [
            rec("clean", clean),
            rec("seed", SEED_ANSWER),
            rec("refused", "I don't know."),
            rec("unanswerable", "I don't know."),
        ],
        specs,
    )
    by_id = {question.id: question.metrics for question in results.questions}
    assert by_id["clean"] == {"faithfulness": 1.0, "hallucination_free": 1.0}
    assert by_id["seed"]["hallucination_free"] == 0.0  # one unsupported sentence of three
    assert by_id["refused"]["hallucination_free"] == 0.0  # as its faithfulness 0
    assert "hallucination_free" not in by_id["unanswerable"]  # a correct abstention
    assert results.summary["hallucination_free"].value == pytest.approx(1 / 3)
