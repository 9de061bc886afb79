"""TREC qrels and run files: round trips, trec_eval's ordering, and validation."""

from __future__ import annotations

import json

import pytest
import pytrec_eval

from ragguard.formats import load_run_file
from ragguard.formats.trec import (
    dump_qrels,
    dump_trec_run,
    load_qrels,
    load_trec_run,
    parse_qrels,
    parse_trec_run,
    skipped_warning,
)
from ragguard.runs import Chunk, RunRecord
from ragguard.testset import Question

QUESTIONS = (
    Question(id="q1", question="", relevant={"d1": 2, "d2": 0, "d3": 1}),
    Question(id="q2", question="", relevant={"d9": 1}),
)


def test_dump_qrels_round_trips_through_parse_and_load(tmp_path):
    text = dump_qrels(QUESTIONS)
    assert parse_qrels(text, "x.qrels") == {q.id: dict(q.relevant) for q in QUESTIONS}
    path = tmp_path / "x.qrels"
    path.write_text(text)
    loaded = load_qrels(path)
    assert loaded.questions == QUESTIONS
    assert loaded.skipped == frozenset()


def test_dump_trec_run_round_trips_the_rank_order():
    records = [
        RunRecord("q1", (Chunk("d3"), Chunk("a"), Chunk("z"), Chunk("d1"))),
        RunRecord("q2", (Chunk("d9", score=0.1),)),
    ]
    run = parse_trec_run(dump_trec_run(records, tag="mine"), "x.run")
    assert {q: r.retrieved_ids for q, r in run.records.items()} == {
        "q1": ["d3", "a", "z", "d1"],
        "q2": ["d9"],
    }
    assert all(line.endswith(" mine") for line in dump_trec_run(records, "mine").splitlines())
    assert run.lines == {"q1": 1, "q2": 5}


def test_ties_are_broken_by_doc_id_descending_and_the_rank_column_is_ignored():
    text = "q1 Q0 b 1 1.0 t\nq1 Q0 a 2 3.0 t\nq1 Q0 c 3 1.0 t\nq1 Q0 b2 4 1.0 t\nq1 Q0 x 5 -2 t\n"
    run = parse_trec_run(text, "x.run")
    assert run.records["q1"].retrieved_ids == ["a", "c", "b2", "b", "x"]
    assert [c.score for c in run.records["q1"].retrieved] == [3.0, 1.0, 1.0, 1.0, -2.0]


def test_scores_through_the_cli_agree_with_pytrec_eval_on_tied_scores(
    ragguard_cli, write, tmp_path
):
    qrels = {"q1": {"b": 1, "c": 2}, "q2": {"a": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0, "c": 1.0, "d": 1.0}, "q2": {"z": 5.0, "a": 5.0}}
    qrels_path = write(
        "x.qrels", "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    run_path = write(
        "x.run",
        "".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in run.items() for d, s in docs.items()),
    )
    out = tmp_path / "r.json"
    result = ragguard_cli(
        "score", "--qrels", qrels_path, "--trec-run", run_path,
        "--metrics", "mrr,ndcg@3,recall@2,precision@2,map@10", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, {"recip_rank", "ndcg_cut.3", "recall.2", "P.2", "map_cut.10"}
    ).evaluate(run)
    names = {
        "mrr": "recip_rank",
        "ndcg@3": "ndcg_cut_3",
        "recall@2": "recall_2",
        "precision@2": "P_2",
        "map@10": "map_cut_10",
    }
    questions = json.loads(out.read_text())["questions"]
    assert len(questions) == 2
    for question in questions:
        for ours, theirs in names.items():
            assert question["metrics"][ours] == pytest.approx(
                reference[question["id"]][theirs], abs=1e-9
            ), (question["id"], ours)


def test_queries_without_a_relevant_document_are_skipped_and_remembered(write):
    path = write("x.qrels", "q1 0 d1 1\nq2 0 d2 0\nq3 0 d3 0\n")
    testset = load_qrels(path)
    assert [q.id for q in testset] == ["q1"]
    assert testset.skipped == {"q2", "q3"}
    assert testset.known_ids == {"q1", "q2", "q3"}
    assert skipped_warning(testset) == (
        f"{path}: 2 queries have no relevant document and are skipped, as trec_eval does"
    )
    assert skipped_warning(load_qrels(write("y.qrels", "q1 0 d1 1\n"))) is None


def test_a_run_may_rank_a_query_that_the_qrels_judged_but_skipped(ragguard_cli, write):
    qrels = write("x.qrels", "q1 0 d1 1\nq2 0 d2 0\n")
    run = write("x.run", "q1 Q0 d1 1 2.0 t\nq2 Q0 d2 1 2.0 t\n")
    result = ragguard_cli("score", "--qrels", qrels, "--trec-run", run, "--metrics", "mrr")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"ragguard: warning: {qrels}: 1 query has no relevant document and is skipped, as trec_eval does"
    ]
    assert "1 question: 1 ok" in result.stdout


def test_a_trec_run_is_accepted_by_run_next_to_a_testset(write):
    path = write("x.run", "q1 Q0 d1 1 2.0 t\n")
    assert load_run_file(path).records["q1"].retrieved_ids == ["d1"]
    assert load_trec_run(path).records == load_run_file(path).records


# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "line", "fragment"),
    [
        ("q1 0 d1 1\nq1 0 d2\n", 2, "expected 4 columns 'query iteration doc grade', found 3"),
        ("q1 0 d1 1 extra\n", 1, "expected 4 columns 'query iteration doc grade', found 5"),
        (
            "q1 0 d1 1\n\nq1 0 d2 -1\n",
            3,
            "grade must be a non-negative integer (0, 1, 2, ...), found '-1'",
        ),
        ("q1 0 d1 1.5\n", 1, "grade must be a non-negative integer (0, 1, 2, ...), found '1.5'"),
        ("q1 0 d1 high\n", 1, "grade must be a non-negative integer (0, 1, 2, ...), found 'high'"),
        ("q1 0 d1 1\nq1 0 d1 2\n", 2, "document 'd1' is judged twice for query 'q1'"),
    ],
    ids=["3-columns", "5-columns", "negative", "fraction", "word", "judged-twice"],
)
def test_bad_qrels_name_the_line(cli_error, write, content, line, fragment):
    qrels = write("x.qrels", content)
    run = write("x.run", "q1 Q0 d1 1 2.0 t\n")
    cli_error(["score", "--qrels", qrels, "--trec-run", run], f"{qrels}:{line}: {fragment}")


@pytest.mark.parametrize(
    ("content", "line", "fragment"),
    [
        (
            "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0\n",
            2,
            "expected 6 columns 'query Q0 doc rank score tag', found 5",
        ),
        ("q1 Q0 d1 1 2.0 t x\n", 1, "expected 6 columns 'query Q0 doc rank score tag', found 7"),
        ("q1 Q0 d1 1 high t\n", 1, "score must be a number, found 'high'"),
        ("q1 Q0 d1 1 nan t\n", 1, "score must be a finite number, found 'nan'"),
        ("q1 Q0 d1 1 inf t\n", 1, "score must be a finite number, found 'inf'"),
        (
            "q1 Q0 d1 1 2 t\nq1 Q0 d1 2 1 t\n",
            2,
            "document 'd1' appears twice in the ranking of query 'q1'",
        ),
        ("q1 Q0 d1 1 2 t\nq7 Q0 d1 1 1 t\n", 2, "run entry for unknown question id 'q7'"),
    ],
    ids=["5-columns", "7-columns", "word-score", "nan", "inf", "twice", "unknown-query"],
)
def test_bad_trec_runs_name_the_line(cli_error, write, content, line, fragment):
    qrels = write("x.qrels", "q1 0 d1 1\n")
    run = write("x.run", content)
    cli_error(["score", "--qrels", qrels, "--trec-run", run], f"{run}:{line}: {fragment}")


def test_qrels_with_no_relevant_document_at_all(cli_error, write):
    qrels = write("x.qrels", "q1 0 d1 0\n")
    run = write("x.run", "q1 Q0 d1 1 2.0 t\n")
    cli_error(
        ["score", "--qrels", qrels, "--trec-run", run],
        f"{qrels}: no query has a relevant document",
    )


def test_console_script_reports_bad_trec_columns_in_one_line(process_error, write):
    qrels = write("x.qrels", "q1 0 d1 1\n")
    run = write("x.run", "q1 d1 1 2.0\n")
    process_error(["score", "--qrels", qrels, "--trec-run", run], f"{run}:1: expected 6 columns")


def test_a_qrels_query_the_run_does_not_rank_is_missing_and_counted(ragguard_cli, write, tmp_path):
    qrels = write("x.qrels", "q1 0 d1 1\nq2 0 d2 1\n")
    run = write("x.run", "q1 Q0 d1 1 2.0 t\n")
    out = tmp_path / "r.json"
    result = ragguard_cli(
        "score", "--qrels", qrels, "--trec-run", run, "--metrics", "mrr", "--out", out
    )
    assert result.exit_code == 0, result.stderr
    assert "missing: q2" in result.stdout
    data = json.loads(out.read_text())
    assert data["summary"]["mrr"]["value"] == 0.5
    assert data["summary"]["mrr"]["n"] == 2
    assert [q["status"] for q in data["questions"]] == ["ok", "missing"]
