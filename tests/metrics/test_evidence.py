"""Evidence labels: the coverage rule, chunk-level metrics by coverage, document-level twins."""

from __future__ import annotations

import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from ragguard.metrics.evidence import (
    coverage,
    document_ranking,
    judge_ranking,
    score_documents,
    score_judged,
)
from ragguard.metrics.names import parse_metric, parse_metric_list
from ragguard.metrics.retrieval import Labels, score_ranking
from ragguard.results.chunks import Chunk
from ragguard.testset.model import Evidence, Question

QUOTE = "Each API key may send 100 requests per minute"
DOC = "rate-limits.md"

ALL_BASES = parse_metric_list(
    "hit_rate@1,hit_rate@3,recall@2,recall@5,precision@1,precision@3,mrr,mrr@2,"
    "ndcg@1,ndcg@3,ndcg@10,ndcg_exp@3,map,map@3,judged@1,judged@3,judged@10"
)


def test_a_quote_held_whole_is_covered_and_case_or_spacing_do_not_matter():
    evidence = Evidence(DOC, quote=QUOTE)
    chunk = Chunk(
        "c1", text="Limits.\n  each api key   MAY send 100 requests\nper minute.", doc=DOC
    )
    assert coverage(evidence, chunk) == 1.0


def test_a_quote_split_by_a_chunk_boundary_is_covered_by_the_longer_part():
    evidence = Evidence(DOC, quote=QUOTE)
    cut = 30
    first = Chunk("a", text="Intro. " + QUOTE[:cut], doc=DOC)
    second = Chunk("b", text=QUOTE[cut:] + " More.", doc=DOC)
    assert coverage(evidence, first) == pytest.approx(cut / len(QUOTE))
    assert coverage(evidence, second) == pytest.approx((len(QUOTE) - cut) / len(QUOTE))


def test_another_document_or_missing_text_covers_nothing():
    evidence = Evidence(DOC, quote=QUOTE)
    assert coverage(evidence, Chunk("c", text=QUOTE, doc="other.md")) == 0.0
    assert coverage(evidence, Chunk("c", text=QUOTE)) == 0.0
    assert coverage(evidence, Chunk("c", doc=DOC)) == 0.0


def test_ranges_cover_by_their_overlap_and_a_whole_document_by_any_chunk():
    assert coverage(Evidence(DOC, chars=(100, 200)), Chunk("c", doc=DOC, chars=(150, 400))) == 0.5
    assert coverage(Evidence(DOC, chars=(100, 200)), Chunk("c", doc=DOC, chars=(200, 400))) == 0
    assert coverage(Evidence(DOC, lines=(10, 13)), Chunk("c", doc=DOC, lines=(12, 40))) == 0.5
    assert coverage(Evidence(DOC, lines=(10, 13)), Chunk("c", doc=DOC, chars=(0, 9))) == 0.0
    assert coverage(Evidence(DOC), Chunk("c", doc=DOC)) == 1.0


def _question(relevant=None, evidence=()):
    return Question("q", "?", relevant=relevant or {}, evidence=tuple(evidence))


def test_metrics_count_each_evidence_once_and_a_chunk_that_merges_two_keeps_recall():
    first = Evidence(DOC, quote="Each API key may send 100 requests per minute", grade=2)
    second = Evidence(DOC, quote="Exceeding it returns status 429", grade=1)
    question = _question(evidence=[first, second])
    merged = [
        Chunk("x", text="Unrelated text about pagination.", doc="pagination.md"),
        Chunk("big", text=f"{first.quote}. {second.quote}.", doc=DOC),
    ]
    judged = judge_ranking(question, merged)
    values = score_judged(judged, parse_metric_list("recall@2,precision@2,mrr,ndcg@2,map"))
    assert values["recall@2"] == 1.0
    assert values["precision@2"] == 0.5
    assert values["mrr"] == 0.5
    assert values["map"] == 0.5  # both labels first covered at rank 2, precision there 1/2
    assert 0 < values["ndcg@2"] <= 1.0
    assert judged.chunk_grades(["x", "big"]) == {"big": 2}


def test_a_rechunk_that_keeps_the_evidence_scores_as_before_and_one_that_splits_it_drops():
    question = _question(evidence=[Evidence(DOC, quote=QUOTE, grade=2)])
    specs = parse_metric_list("hit_rate@1,recall@3,ndcg@3")
    before = [Chunk("rate-limits", text=f"Limits. {QUOTE}. Retry.", doc=DOC)]
    kept = [Chunk(f"{DOC}#3", text=f"{QUOTE}.", doc=DOC), Chunk(f"{DOC}#4", text="Retry.", doc=DOC)]
    third = len(QUOTE) // 3
    split = [
        Chunk(f"{DOC}#{i}", text=QUOTE[i * third : (i + 1) * third], doc=DOC) for i in range(3)
    ]
    score = lambda chunks: score_judged(judge_ranking(question, chunks), specs)  # noqa: E731
    assert score(before) == score(kept) == {"hit_rate@1": 1.0, "recall@3": 1.0, "ndcg@3": 1.0}
    assert score(split) == {"hit_rate@1": 0.0, "recall@3": 0.0, "ndcg@3": 0.0}


def test_the_coverage_threshold_is_a_setting():
    question = _question(evidence=[Evidence(DOC, quote=QUOTE)])
    part = [Chunk("a", text=QUOTE[:15], doc=DOC)]
    specs = parse_metric_list("hit_rate@1")
    assert score_judged(judge_ranking(question, part), specs)["hit_rate@1"] == 0.0
    loose = judge_ranking(question, part, min_coverage=0.25)
    assert score_judged(loose, specs)["hit_rate@1"] == 1.0


def test_chunks_are_completed_from_the_corpus_by_id():
    question = _question(evidence=[Evidence(DOC, quote=QUOTE)])
    origins = {"c1": Chunk("c1", text=QUOTE, doc=DOC)}
    judged = judge_ranking(question, [Chunk("c1")], origins)
    assert judged.covered == ((0,),)


grades = st.integers(min_value=0, max_value=3)
ids = st.sampled_from([f"c{i}" for i in range(12)])


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    labels=st.dictionaries(ids, grades, min_size=1, max_size=8),
    ranking=st.lists(ids, unique=True, max_size=12),
)
def test_with_chunk_id_labels_the_coverage_path_is_trec_evals(labels, ranking):
    """Chunk-id labels seen as evidence each chunk covers alone give exactly the values of
    the trec_eval-checked scorer, for every metric."""
    question = _question(relevant=labels)
    judged = judge_ranking(question, [Chunk(c) for c in ranking])
    by_coverage = score_judged(judged, ALL_BASES)
    by_ids = score_ranking(ranking, Labels.from_grades(labels), ALL_BASES)
    assert by_coverage == pytest.approx(by_ids, abs=1e-12)


def test_document_metrics_are_trec_evals_on_the_ranking_of_documents():
    question = _question(
        evidence=[Evidence("a.md", quote="alpha", grade=2), Evidence("c.md", lines=(1, 2))]
    )
    chunks = [
        Chunk("b#1", doc="b.md"),
        Chunk("a#1", doc="a.md"),
        Chunk("b#2", doc="b.md"),
        Chunk("x"),
        Chunk("c#9", doc="c.md"),
    ]
    assert document_ranking(chunks, None) == ["b.md", "a.md", "\0x", "c.md"]
    specs = parse_metric_list("doc_recall@2,doc_ndcg@3,doc_map,doc_precision@3,doc_mrr")
    ours = score_documents(question, chunks, specs)
    qrels = {"q": {"a.md": 2, "c.md": 1}}
    run = {"q": {doc: 10.0 - i for i, doc in enumerate(document_ranking(chunks, None))}}
    trec = pytrec_eval.RelevanceEvaluator(
        qrels, {"recall.2", "ndcg_cut.3", "map", "P.3", "recip_rank"}
    ).evaluate(run)["q"]
    assert ours == pytest.approx(
        {
            "doc_recall@2": trec["recall_2"],
            "doc_ndcg@3": trec["ndcg_cut_3"],
            "doc_map": trec["map"],
            "doc_precision@3": trec["P_3"],
            "doc_mrr": trec["recip_rank"],
        },
        abs=1e-9,
    )


def test_document_metrics_use_the_corpus_for_labelled_chunk_ids():
    question = _question(relevant={"a#1": 1})
    origins = {"a#1": Chunk("a#1", doc="a.md"), "a#2": Chunk("a#2", doc="a.md")}
    spec = parse_metric("doc_hit_rate@1")
    assert score_documents(question, [Chunk("a#2")], [spec], origins) == {"doc_hit_rate@1": 1.0}
    assert score_documents(question, [Chunk("a#2")], [spec]) == {}


def test_words_a_chunk_shares_with_the_quote_elsewhere_do_not_count():
    evidence = Evidence(DOC, quote=QUOTE)
    elsewhere = Chunk("c", text="Rotate each API key may be done from the dashboard.", doc=DOC)
    assert coverage(evidence, elsewhere) == 0.0
    inside = Chunk("c", text="100 requests", doc=DOC)  # a chunk inside the quote
    assert coverage(evidence, inside) == pytest.approx(len("100 requests") / len(QUOTE))
