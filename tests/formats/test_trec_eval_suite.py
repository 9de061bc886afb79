"""trec_eval's own test suite, scored by `ragguard score`: every measure ragguard has, to the
four decimals trec_eval prints, per query and over all queries (tests/data/trec_eval/).

The runs in trec_eval's Makefile (``quicktest``) that this reproduces:

- ``trec_eval -m all_trec -q qrels.test results.test`` (out.test.aq);
- ``trec_eval -m all_trec -q -c qrels.test results.trunc`` (out.test.aqc): ``-c`` counts
  the queries a run misses as 0, which is what ragguard always does;
- ``trec_eval qrels.test.with-comments results.test`` (out.test): ``#`` lines in qrels;
- ``trec_eval qrels.comment.test results.comment.test`` (out.comment.test): a run with
  queries no qrels judge (ignored, with a warning) and a query whose judgments are all 0
  (scored 0 and counted: 31 queries).
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "trec_eval"
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

# ragguard's name for a trec_eval measure, and how to turn ragguard's value into trec_eval's
MEASURES: dict[str, str] = {"map": "map", "recip_rank": "mrr"}
for k in CUTOFFS:
    MEASURES |= {
        f"P_{k}": f"precision@{k}",
        f"recall_{k}": f"recall@{k}",
        f"ndcg_cut_{k}": f"ndcg@{k}",
        f"map_cut_{k}": f"map@{k}",
    }
MEASURES |= {f"success_{k}": f"hit_rate@{k}" for k in (1, 5, 10)}
UNJUDGED = {f"unj_{k}": f"judged@{k}" for k in (5, 10, 20)}  # unj = 1 - judged (k retrieved)


def expected(name: str) -> dict[str, dict[str, float]]:
    """trec_eval's printed values: {query or 'all': {measure: value}}."""
    values: dict[str, dict[str, float]] = {}
    for line in (DATA / name).read_text().splitlines():
        measure, query, value = line.split()
        if measure in MEASURES or measure in UNJUDGED or measure == "num_q":
            values.setdefault(query, {})[measure] = float(value)
    return values


def file_of(name: str, folder: Path) -> Path:
    packed = DATA / f"{name}.gz"
    if not packed.exists():
        return DATA / name
    path = folder / name
    with gzip.open(packed) as source, path.open("wb") as target:
        shutil.copyfileobj(source, target)
    return path


def score(ragguard_cli, qrels: Path, run: Path, out: Path, measures: set[str]):
    metrics = sorted({MEASURES.get(m) or UNJUDGED[m] for m in measures})
    args = ["score", "--qrels", qrels, "--trec-run", run, "--out", out]
    result = ragguard_cli(*args, "--metrics", ",".join(metrics))
    assert result.exit_code == 0, result.stderr
    return json.loads(out.read_text()), result.stderr


def unjudged(question: dict, k: int) -> float:
    """trec_eval's unj_k from judged@k: the unjudged in the top k over k (a ranking shorter
    than k is filled with judged non-relevant documents)."""
    return (min(k, len(question["retrieved"])) - question["metrics"][f"judged@{k}"] * k) / k


def value_of(results: dict, query: str, measure: str) -> float:
    questions = results["questions"]
    if measure in UNJUDGED:
        k = int(measure.split("_")[1])
        per_query = {q["id"]: unjudged(q, k) for q in questions}
        return sum(per_query.values()) / len(per_query) if query == "all" else per_query[query]
    name = MEASURES[measure]
    if query == "all":
        return results["summary"][name]["value"]
    return next(q for q in questions if q["id"] == query)["metrics"][name]


def check(results: dict, wanted: dict[str, dict[str, float]]) -> int:
    """Compare per query and over all queries; return how many values were compared."""
    compared = 0
    for query, measures in wanted.items():
        for measure, value in measures.items():
            if measure == "num_q":
                assert results["summary"]["mrr"]["n"] == value
                continue
            got = value_of(results, query, measure)
            assert round(got, 4) == pytest.approx(value, abs=1e-9), (query, measure)
            compared += 1
    return compared


def test_per_query_and_overall_values_of_the_standard_run(ragguard_cli, tmp_path) -> None:
    wanted = expected("out.test.aq")
    measures = {m for values in wanted.values() for m in values} - {"num_q"}
    results, _ = score(
        ragguard_cli, DATA / "qrels.test", DATA / "results.test", tmp_path / "r.json", measures
    )
    assert check(results, wanted) >= 4 * len(measures)


def test_a_truncated_run_counts_missing_documents_and_queries_as_zero(ragguard_cli, tmp_path):
    wanted = expected("out.test.aqc")
    measures = {m for values in wanted.values() for m in values} - {"num_q"}
    results, _ = score(
        ragguard_cli, DATA / "qrels.test", DATA / "results.trunc", tmp_path / "r.json", measures
    )
    assert check(results, wanted) >= 4 * len(measures)


def test_comment_lines_in_qrels_are_skipped(ragguard_cli, tmp_path) -> None:
    wanted = expected("out.test")
    measures = {m for values in wanted.values() for m in values} - {"num_q"}
    qrels = DATA / "qrels.test.with-comments"
    results, _ = score(ragguard_cli, qrels, DATA / "results.test", tmp_path / "r.json", measures)
    assert check(results, wanted) == len(measures)


def test_unjudged_run_queries_are_ignored_and_all_zero_queries_counted(ragguard_cli, tmp_path):
    wanted = expected("out.comment.test")
    assert wanted["all"]["num_q"] == 31
    measures = set(wanted["all"]) - {"num_q"}
    qrels, run = file_of("qrels.comment.test", tmp_path), file_of("results.comment.test", tmp_path)
    results, stderr = score(ragguard_cli, qrels, run, tmp_path / "r.json", measures)
    assert check(results, wanted) == len(measures)
    assert len(results["questions"]) == 31
    warnings = stderr.splitlines()
    assert len(warnings) == 2 and all(w.startswith("ragguard: warning: ") for w in warnings)
    assert "1 query has no relevant document; it scores 0" in warnings[0]
    assert "270 queries of the run are not in the qrels" in warnings[1]
