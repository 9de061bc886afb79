"""Retrieval metrics on hand-worked cases, the seed's worked examples, and the scoring rules.

Each expected value is worked out in the comment beside it from DESIGN.md section 3.
"""

from __future__ import annotations

import math

import pytest

from ragguard.demo import SEED_DIR
from ragguard.metrics.names import MetricSpec, parse_metric_list
from ragguard.metrics.retrieval import (
    Labels,
    discount,
    explain,
    relevant_ranks,
    score_ranking,
)
from ragguard.results.chunks import Chunk
from ragguard.results.model import STATUS_ERROR, STATUS_MISSING, STATUS_OK
from ragguard.results.records import RunRecord, load_run
from ragguard.scoring.score import score_question, score_run
from ragguard.testset.load import load_testset
from ragguard.testset.model import Question, TestSet


def score(ranking: list[str], grades: dict[str, int], metrics: str) -> dict[str, float]:
    return score_ranking(ranking, Labels.from_grades(grades), parse_metric_list(metrics))


# The seed's worked examples, from the files shipped in the package.


def test_seed_retry_429_example_digit_for_digit() -> None:
    testset = load_testset(SEED_DIR / "retry-429.testset.yaml")
    run = load_run(SEED_DIR / "retry-429.run.jsonl")
    question = testset.by_id["retry-after-429"]
    ranking = run.records["retry-after-429"].retrieved_ids
    assert ranking == ["error-codes", "pagination", "rate-limits", "webhooks"]

    working = explain(ranking, question.relevant, 3)
    assert f"{working.hits / working.k:.3f}" == "0.667"  # precision@3 = 2/3
    assert f"{working.hits / working.n_relevant:.3f}" == "1.000"  # recall@3 = 2/2
    assert f"{1 / working.first_rank:.3f}" == "1.000"  # reciprocal rank = 1/1
    assert [f"{row.gain:.3f}" for row in working.rows] == ["1.000", "0.000", "1.000"]
    assert f"{working.dcg:.3f}" == "2.000"  # 1/log2(2) + 0/log2(3) + 2/log2(4)
    assert f"{working.idcg:.3f}" == "2.631"  # 2/log2(2) + 1/log2(3)
    assert f"{working.ndcg:.3f}" == "0.760"

    values = score_ranking(
        ranking,
        Labels.from_grades(question.relevant),
        parse_metric_list("precision@3,recall@3,mrr,ndcg@3"),
    )
    assert {name: f"{value:.3f}" for name, value in values.items()} == {
        "precision@3": "0.667",
        "recall@3": "1.000",
        "mrr": "1.000",
        "ndcg@3": "0.760",
    }
    assert values["ndcg@3"] == pytest.approx(working.ndcg, abs=1e-12)


def test_seed_four_questions_hit_rate_and_mrr() -> None:
    testset = load_testset(SEED_DIR / "four-questions.testset.yaml")
    run = load_run(SEED_DIR / "four-questions.run.jsonl")
    results = score_run(
        testset, run.records, parse_metric_list("hit_rate@1,hit_rate@3,mrr"), suite="seed"
    )
    summary = results.summary
    assert f"{summary['hit_rate@1'].value:.2f}" == "0.50"  # authenticate, next-page at rank 1
    assert f"{summary['hit_rate@3'].value:.2f}" == "0.75"  # error-404 never retrieved
    assert f"{summary['mrr'].value:.3f}" == "0.625"  # (1 + 1/2 + 1 + 0) / 4
    assert {name: s.n for name, s in summary.items()} == dict.fromkeys(summary, 4)
    by_id = results.by_id
    assert by_id["requests-per-minute"].metrics["mrr"] == 0.5
    assert by_id["error-404"].metrics == {"hit_rate@1": 0.0, "hit_rate@3": 0.0, "mrr": 0.0}


# Hand-worked cases.


def test_discount_is_one_over_log2_of_rank_plus_one() -> None:
    assert discount(1) == 1.0
    assert discount(3) == 0.5
    assert discount(7) == pytest.approx(1 / 3)
    assert discount(1000) == pytest.approx(1 / math.log2(1001))


def test_relevant_ranks_are_one_based_and_ascending_with_their_grades() -> None:
    labels = Labels.from_grades({"a": 2, "b": 0, "c": 1})
    assert relevant_ranks(["x", "c", "b", "a"], labels) == ([2, 4], [1, 2])
    assert relevant_ranks([], labels) == ([], [])


def test_ndcg_linear_and_exponential_gain() -> None:
    grades = {"a": 2, "b": 1}
    values = score(["b", "x", "a"], grades, "ndcg@3,ndcg_exp@3")
    # linear: DCG = 1/1 + 2/2 = 2; IDCG = 2/1 + 1/log2(3)
    assert values["ndcg@3"] == pytest.approx(2 / (2 + 1 / math.log2(3)))
    # exponential: gains 2^g - 1 -> b: 1, a: 3. DCG = 1/1 + 3/2; IDCG = 3/1 + 1/log2(3)
    assert values["ndcg_exp@3"] == pytest.approx(2.5 / (3 + 1 / math.log2(3)))
    assert values["ndcg_exp@3"] < values["ndcg@3"]  # the best chunk is late; exp punishes more


def test_ndcg_ideal_uses_all_labels_cut_at_k() -> None:
    # Three relevant chunks, k = 2: IDCG@2 = 3/1 + 2/log2(3), not counting the grade-1 chunk.
    grades = {"a": 3, "b": 2, "c": 1}
    assert score(["a", "b"], grades, "ndcg@2")["ndcg@2"] == pytest.approx(1.0)
    # Only c retrieved, first: DCG@2 = 1.
    assert score(["c", "x"], grades, "ndcg@2")["ndcg@2"] == pytest.approx(
        1 / (3 + 2 / math.log2(3))
    )
    # The relevant chunk just past k does not count.
    assert score(["x", "y", "a"], grades, "ndcg@2")["ndcg@2"] == 0.0


def test_precision_divides_by_k_even_when_fewer_were_retrieved() -> None:
    values = score(["a"], {"a": 1}, "precision@1,precision@5,recall@5,hit_rate@5")
    assert values == {"precision@1": 1.0, "precision@5": 0.2, "recall@5": 1.0, "hit_rate@5": 1.0}


def test_empty_ranking_scores_zero() -> None:
    metrics = "hit_rate@3,recall@3,precision@3,mrr,mrr@3,ndcg@3,ndcg_exp@3,map,map@3"
    assert score([], {"a": 2, "b": 1}, metrics) == dict.fromkeys(metrics.split(","), 0.0)


def test_recall_counts_relevant_chunks_in_top_k() -> None:
    grades = {"a": 1, "b": 3, "c": 1, "d": 0}
    values = score(["x", "a", "d", "b", "y", "c"], grades, "recall@1,recall@2,recall@4,recall@6")
    assert values == {"recall@1": 0.0, "recall@2": 1 / 3, "recall@4": 2 / 3, "recall@6": 1.0}


def test_mrr_and_mrr_at_k() -> None:
    values = score(["w", "x", "y", "a", "b"], {"a": 1, "b": 2}, "mrr,mrr@3,mrr@4,mrr@10")
    assert values == {"mrr": 0.25, "mrr@3": 0.0, "mrr@4": 0.25, "mrr@10": 0.25}


def test_map_and_map_at_k_divide_by_all_relevant() -> None:
    # Relevant a, b, c (d never retrieved): precision at a (rank 1) = 1/1, at b (rank 3) = 2/3,
    # at c (rank 6) = 3/6. Average precision divides by |Rel| = 4.
    grades = {"a": 1, "b": 2, "c": 1, "d": 3}
    values = score(["a", "x", "b", "y", "z", "c"], grades, "map,map@1,map@3,map@5,map@100")
    assert values["map"] == pytest.approx((1 + 2 / 3 + 3 / 6) / 4)
    assert values["map@1"] == pytest.approx(1 / 4)
    assert values["map@3"] == pytest.approx((1 + 2 / 3) / 4)
    assert values["map@5"] == values["map@3"]
    assert values["map@100"] == values["map"]


def test_grade_zero_is_judged_not_relevant() -> None:
    grades = {"judged-no": 0, "yes": 1}
    values = score(["judged-no", "yes"], grades, "hit_rate@1,precision@2,mrr,ndcg@2,recall@2")
    assert values == {
        "hit_rate@1": 0.0,
        "precision@2": 0.5,
        "mrr": 0.5,
        "ndcg@2": pytest.approx(1 / math.log2(3)),  # DCG = 1/log2(3), IDCG = 1
        "recall@2": 1.0,  # |Rel| = 1: the grade-0 chunk is not counted
    }


def test_labels_without_a_relevant_chunk_score_zero() -> None:
    assert score(["a", "b"], {"a": 0}, "hit_rate@2,mrr,ndcg@2,map") == {
        "hit_rate@2": 0.0,
        "mrr": 0.0,
        "ndcg@2": 0.0,
        "map": 0.0,
    }


def test_unknown_rankings_chunks_and_duplicated_labels_do_not_change_values() -> None:
    # Values depend only on where the relevant chunks are, not on what else is there.
    first = score(["n1", "a", "n2", "b"], {"a": 2, "b": 1}, "ndcg@4,map,precision@4")
    second = score(["zz", "a", "yy", "b"], {"a": 2, "b": 1, "q": 0}, "ndcg@4,map,precision@4")
    assert first == second


def test_specs_as_list_tuple_or_iterator_give_the_same_values() -> None:
    ranking, labels = ["x", "a", "b"], Labels.from_grades({"a": 1, "b": 2})
    specs = [MetricSpec("mrr"), MetricSpec("ndcg", 2)]
    expected = {"mrr": 0.5, "ndcg@2": pytest.approx(1 / math.log2(3) / (2 + 1 / math.log2(3)))}
    assert score_ranking(ranking, labels, specs) == expected
    assert score_ranking(ranking, labels, tuple(specs)) == expected
    assert score_ranking(ranking, labels, iter(specs)) == expected
    specs.append(MetricSpec("hit_rate", 1))  # the same list, changed: recompiled
    assert score_ranking(ranking, labels, specs) == {**expected, "hit_rate@1": 0.0}


def test_many_different_metric_lists_each_get_their_own_values() -> None:
    """More lists of specs than the compiled-plan cache keeps: each still scores right."""
    ranking, labels = ["x", "a"], Labels.from_grades({"a": 1})
    for k in range(1, 600):
        specs = [MetricSpec("hit_rate", k), MetricSpec("precision", k)]
        assert score_ranking(ranking, labels, specs) == {
            f"hit_rate@{k}": 0.0 if k == 1 else 1.0,
            f"precision@{k}": 0.0 if k == 1 else 1 / k,
        }


def test_values_come_in_the_order_of_the_specs() -> None:
    values = score(["a"], {"a": 1}, "recall@1,mrr,hit_rate@1")
    assert list(values) == ["recall@1", "mrr", "hit_rate@1"]


def test_not_a_retrieval_metric_or_missing_cut_off_is_refused() -> None:
    labels = Labels.from_grades({"a": 1})
    with pytest.raises(ValueError, match="needs a cut-off"):
        score_ranking(["a"], labels, [MetricSpec("ndcg")])
    with pytest.raises(ValueError, match="not a retrieval metric"):
        score_ranking(["a"], labels, [MetricSpec("faithfulness")])


# Scoring rules (scoring.py): missing and errored questions score 0 and are counted;
# answerable: false questions get no retrieval metrics.

SPECS = parse_metric_list("hit_rate@1,mrr,ndcg@2")


def question(qid: str, relevant: dict[str, int], answerable: bool = True) -> Question:
    return Question(id=qid, question=f"question {qid}", relevant=relevant, answerable=answerable)


def test_missing_question_scores_zero_and_is_counted() -> None:
    testset = TestSet((question("q1", {"a": 1}), question("q2", {"b": 1})))
    results = score_run(testset, {"q1": RunRecord("q1", (Chunk("a"),))}, SPECS, suite="s")
    missing = results.by_id["q2"]
    assert missing.status == STATUS_MISSING
    assert missing.metrics == {"hit_rate@1": 0.0, "mrr": 0.0, "ndcg@2": 0.0}
    assert results.summary["mrr"].value == 0.5  # (1 + 0) / 2
    assert results.summary["mrr"].n == 2
    assert results.counts[STATUS_MISSING] == 1


def test_errored_question_scores_zero_even_with_a_good_ranking() -> None:
    record = RunRecord("q1", (Chunk("a"),), error="TimeoutError: no answer in 30 s")
    result = score_question(question("q1", {"a": 1}), record, SPECS)
    assert result.status == STATUS_ERROR
    assert result.error == "TimeoutError: no answer in 30 s"
    assert result.metrics == {"hit_rate@1": 0.0, "mrr": 0.0, "ndcg@2": 0.0}


def test_errored_questions_count_in_the_summary() -> None:
    testset = TestSet((question("q1", {"a": 1}), question("q2", {"a": 1})))
    records = {
        "q1": RunRecord("q1", (Chunk("a"),)),
        "q2": RunRecord("q2", (Chunk("a"),), error="boom"),
    }
    summary = score_run(testset, records, SPECS, suite="s").summary
    assert (summary["hit_rate@1"].value, summary["hit_rate@1"].n) == (0.5, 2)


def test_unanswerable_question_gets_no_retrieval_metrics() -> None:
    testset = TestSet((question("q1", {"a": 1}), question("nope", {}, answerable=False)))
    records = {
        "q1": RunRecord("q1", (Chunk("x"), Chunk("a"))),
        "nope": RunRecord("nope", (Chunk("a"),), answer="I don't know."),
    }
    results = score_run(testset, records, SPECS, suite="s")
    assert results.by_id["nope"].status == STATUS_OK
    assert results.by_id["nope"].metrics == {}
    assert results.summary["mrr"].value == 0.5  # q1 only
    assert results.summary["mrr"].n == 1
    unanswerable_missing = score_question(question("nope", {}, answerable=False), None, SPECS)
    assert (unanswerable_missing.status, unanswerable_missing.metrics) == (STATUS_MISSING, {})
