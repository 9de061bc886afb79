"""ragguard's retrieval metrics agree with trec_eval (through pytrec_eval) per question.

Randomized graded cases, many seeds: ties in scores, rankings shorter than k and longer
than 100, questions with one label or many, judged chunks of grade 0, relevant chunks that
were never retrieved. pytrec_eval is given what trec_eval would read: scores that reproduce
the ranking (or, for the TREC reader test, the raw tied scores).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pytest
import pytrec_eval  # the reference implementation; in the `test` extra, so never skipped

from ragguard.metrics.names import MetricSpec, parse_metric_list
from ragguard.metrics.retrieval import Labels, score_ranking
from ragguard.testset.formats.trec import parse_qrels
from ragguard.testset.formats.trec_runs import parse_trec_run

TOLERANCE = 1e-9
CASES = 200
CUTOFFS = (1, 2, 3, 5, 10, 20, 100, 150)
CUT = ",".join(map(str, CUTOFFS))
# ragguard metric base -> trec_eval measure family (cut-off measures end with "_k").
CUTOFF_MEASURES = {
    "ndcg": "ndcg_cut",
    "recall": "recall",
    "precision": "P",
    "map": "map_cut",
    "hit_rate": "success",
}
TREC_MEASURES = {f"{family}.{CUT}" for family in CUTOFF_MEASURES.values()} | {"recip_rank", "map"}
SPECS = parse_metric_list(
    [f"{base}@{k}" for base in CUTOFF_MEASURES for k in CUTOFFS]
    + [f"mrr@{k}" for k in CUTOFFS]
    + [f"ndcg_exp@{k}" for k in CUTOFFS]
    + ["mrr", "map"]
)
# Doc ids whose string order differs from their numeric order, with mixed case, so the
# tie-break (doc id descending, byte order) is exercised.
ID_STYLES: tuple[Callable[[int], str], ...] = (
    lambda i: f"d{i}",
    lambda i: f"doc-{i:04d}",
    lambda i: f"{'Dd'[i % 2]}{i}",
    lambda i: f"{i}",
)


@dataclass(frozen=True)
class Case:
    seed: int
    grades: dict[str, int]
    ranking: list[str]
    scores: dict[str, float]


def random_case(seed: int) -> Case:
    """Graded labels and a ranking; scores have ties but the dict order is trec_eval's."""
    rng = random.Random(seed)
    make_id = rng.choice(ID_STYLES)
    pool = [make_id(i) for i in range(rng.choice((5, 20, 60, 250)))]
    judged = rng.sample(pool, min(len(pool), rng.choice((1, 1, 2, 3, 5, 8, 30))))
    grades = {doc: rng.choice((0, 1, 1, 2, 3)) for doc in judged}
    grades[rng.choice(judged)] = rng.randint(1, 3)  # at least one relevant chunk
    length = rng.choice((1, 2, 3, 4, 7, 10, 15, 40, 101, 130, len(pool)))
    candidates = rng.sample(pool, min(length, len(pool)))
    if rng.random() < 0.3:  # bias some rankings towards judged chunks
        candidates.sort(key=lambda doc: (doc not in grades, rng.random()))
    scores = {doc: float(rng.randint(0, max(1, len(candidates) // 3))) for doc in candidates}
    return Case(seed, grades, candidates, scores)


def scores_for_order(ranking: Sequence[str]) -> dict[str, float]:
    """Distinct scores that make trec_eval rank the chunks in exactly this order."""
    return {doc: float(len(ranking) - rank) for rank, doc in enumerate(ranking)}


def trec_eval_values(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    measures: set[str] = TREC_MEASURES,
) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(
        {q: dict(judged) for q, judged in qrels.items()}, measures
    )
    return evaluator.evaluate({q: dict(docs) for q, docs in run.items()})


def reference_value(spec: MetricSpec, measured: Mapping[str, float]) -> float | None:
    """The trec_eval value that a ragguard metric must equal, when one is measured here."""
    if spec.base == "mrr" and spec.k is None:
        return measured["recip_rank"]
    if spec.base == "map" and spec.k is None:
        return measured["map"]
    if spec.base in CUTOFF_MEASURES:
        return measured[f"{CUTOFF_MEASURES[spec.base]}_{spec.k}"]
    return None  # mrr@k and ndcg_exp@k are checked against their own pytrec_eval runs


def mismatches(
    ours: Mapping[str, Mapping[str, float]],
    theirs: Mapping[str, Mapping[str, float]],
    specs: Sequence[MetricSpec],
    pick: Callable[[MetricSpec, Mapping[str, float]], float | None] = reference_value,
) -> list[str]:
    assert ours.keys() == theirs.keys()
    found = []
    for query, values in ours.items():
        for spec in specs:
            expected = pick(spec, theirs[query])
            if expected is not None and abs(values[spec.name] - expected) > TOLERANCE:
                found.append(
                    f"case {query}: {spec.name} = {values[spec.name]!r}, trec_eval {expected!r}"
                )
    return found


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    return [random_case(seed) for seed in range(CASES)]


def test_cases_cover_the_hard_shapes(cases: list[Case]) -> None:
    """The generator really produces the shapes the agreement tests claim to cover."""
    relevant = [{d for d, g in c.grades.items() if g >= 1} for c in cases]
    assert any(len(r) == 1 for r in relevant)
    assert any(len(r) >= 10 for r in relevant)
    assert any(len(c.ranking) < 3 for c in cases)
    assert any(len(c.ranking) > 100 for c in cases)
    assert any(
        0 in c.grades.values() and any(d in c.ranking for d, g in c.grades.items() if g == 0)
        for c in cases
    )
    assert any(r - set(c.ranking) for r, c in zip(relevant, cases, strict=True))
    assert any(not r & set(c.ranking) for r, c in zip(relevant, cases, strict=True))
    assert any(len(set(c.scores.values())) < len(c.scores) for c in cases)


def test_every_metric_agrees_with_trec_eval_on_random_graded_rankings(
    cases: list[Case],
) -> None:
    ours = {
        str(c.seed): score_ranking(c.ranking, Labels.from_grades(c.grades), SPECS) for c in cases
    }
    theirs = trec_eval_values(
        {str(c.seed): c.grades for c in cases},
        {str(c.seed): scores_for_order(c.ranking) for c in cases},
    )
    assert mismatches(ours, theirs, SPECS) == []


@pytest.mark.parametrize("k", CUTOFFS)
def test_mrr_at_k_is_recip_rank_of_the_run_cut_at_k(cases: list[Case], k: int) -> None:
    spec = MetricSpec("mrr", k)
    ours = {
        str(c.seed): score_ranking(c.ranking, Labels.from_grades(c.grades), [spec]) for c in cases
    }
    theirs = trec_eval_values(
        {str(c.seed): c.grades for c in cases},
        {str(c.seed): scores_for_order(c.ranking[:k]) for c in cases},
        {"recip_rank"},
    )
    assert mismatches(ours, theirs, [spec], lambda _, m: m["recip_rank"]) == []


def test_ndcg_exp_is_trec_eval_ndcg_with_exponential_gains_in_the_qrels(
    cases: list[Case],
) -> None:
    """trec_eval's gain is the qrels grade, so grades of 2^g - 1 give ndcg_exp."""
    specs = [MetricSpec("ndcg_exp", k) for k in CUTOFFS]
    ours = {
        str(c.seed): score_ranking(c.ranking, Labels.from_grades(c.grades), specs) for c in cases
    }
    theirs = trec_eval_values(
        {str(c.seed): {d: 2**g - 1 for d, g in c.grades.items()} for c in cases},
        {str(c.seed): scores_for_order(c.ranking) for c in cases},
        {f"ndcg_cut.{CUT}"},
    )
    assert mismatches(ours, theirs, specs, lambda s, m: m[f"ndcg_cut_{s.k}"]) == []


def trec_files(cases: Sequence[Case]) -> tuple[str, str]:
    """The cases as TREC qrels and run text, run lines shuffled and ranks meaningless."""
    qrels = "".join(f"{c.seed} 0 {d} {g}\n" for c in cases for d, g in c.grades.items())
    lines = [f"{c.seed} Q0 {d} 0 {s!r} tag\n" for c in cases for d, s in c.scores.items()]
    random.Random(7).shuffle(lines)
    return qrels, "".join(lines)


def test_trec_reader_breaks_score_ties_like_trec_eval(cases: list[Case]) -> None:
    """Tied scores go through ragguard's TREC reader and through trec_eval itself."""
    qrels_text, run_text = trec_files(cases)
    labels = parse_qrels(qrels_text, "qrels.txt")
    run = parse_trec_run(run_text, "run.txt")
    ours = {
        query: score_ranking(record.retrieved_ids, Labels.from_grades(labels[query]), SPECS)
        for query, record in run.records.items()
    }
    theirs = trec_eval_values(labels, {str(c.seed): c.scores for c in cases})
    assert mismatches(ours, theirs, SPECS) == []


def test_tie_break_is_doc_id_descending_as_in_trec_eval() -> None:
    """A small hand case: all scores tied, so the order is the doc ids, descending."""
    run = parse_trec_run(
        "q Q0 d10 1 0.5 t\nq Q0 d9 2 0.5 t\nq Q0 D2 3 0.5 t\nq Q0 d1 4 0.25 t\n", "run.txt"
    )
    assert run.records["q"].retrieved_ids == ["d9", "d10", "D2", "d1"]
    grades = {"d10": 1, "d1": 2}
    ours = score_ranking(
        run.records["q"].retrieved_ids, Labels.from_grades(grades), parse_metric_list("mrr")
    )
    theirs = trec_eval_values(
        {"q": grades}, {"q": {"d10": 0.5, "d9": 0.5, "D2": 0.5, "d1": 0.25}}, {"recip_rank"}
    )
    assert ours["mrr"] == pytest.approx(theirs["q"]["recip_rank"], abs=TOLERANCE) == 0.5
