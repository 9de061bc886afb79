"""BEIR folders: queries, qrels splits with a header row, the corpus, and validation."""

from __future__ import annotations

import json

import pytest

from ragguard.core.errors import InputError
from ragguard.testset.formats.beir import load_beir, load_beir_corpus
from ragguard.testset.model import Question

QUERIES = [
    {"_id": "q1", "text": "How do I authenticate?"},
    {"_id": "q2", "text": "How many requests per minute?"},
    {"_id": 3, "text": "What does 404 mean?", "metadata": {}},
    {"_id": "q4", "text": "Only in the train split"},
]


@pytest.fixture
def beir(write, tmp_path):
    """A small BEIR folder with a test and a train split."""
    write("beir/corpus.jsonl", "".join(json.dumps(c) + "\n" for c in _corpus()))
    write("beir/queries.jsonl", "".join(json.dumps(q) + "\n" for q in QUERIES))
    write(
        "beir/qrels/test.tsv",
        "query-id\tcorpus-id\tscore\nq1\tauth\t2\nq1\terrors\t1\nq2\trate\t1\n3\terrors\t0\n",
    )
    write("beir/qrels/train.tsv", "query-id\tcorpus-id\tscore\nq4\tauth\t1\n")
    return tmp_path / "beir"


def _corpus():
    return [
        {"_id": "auth", "title": "Auth", "text": "Send a bearer token."},
        {"_id": "rate", "title": "", "text": "100 requests per minute."},
        {"_id": "errors", "text": "404 means not found."},
    ]


def test_the_test_split_is_chosen_when_there_are_several(beir):
    testset = load_beir(beir)
    assert [q.id for q in testset.questions] == ["q1", "q2", "3"]
    assert testset.questions[:2] == (
        Question("q1", "How do I authenticate?", {"auth": 2, "errors": 1}),
        Question("q2", "How many requests per minute?", {"rate": 1}),
    )
    assert not testset.by_id["3"].has_relevant
    assert testset.unjudged == {"q4"}
    assert testset.source == str(beir / "qrels" / "test.tsv")


def test_split_chooses_another_qrels_file(beir):
    testset = load_beir(beir, "train")
    assert [q.id for q in testset] == ["q4"]
    assert testset.questions[0].question == "Only in the train split"


def test_the_only_split_is_used_whatever_its_name(beir):
    (beir / "qrels" / "test.tsv").unlink()
    assert [q.id for q in load_beir(beir)] == ["q4"]


def test_several_splits_without_test_ask_for_split(beir):
    (beir / "qrels" / "test.tsv").rename(beir / "qrels" / "dev.tsv")
    with pytest.raises(InputError, match=r"several splits \(dev, train\); choose one with --split"):
        load_beir(beir)


def test_a_qrels_file_without_a_header_row_is_read_too(beir):
    (beir / "qrels" / "train.tsv").write_text("q4\tauth\t1\nq1\trate\t2\n")
    assert {q.id: q.relevant for q in load_beir(beir, "train")} == {
        "q4": {"auth": 1},
        "q1": {"rate": 2},
    }


def test_load_beir_corpus_prefixes_titles(beir):
    assert load_beir_corpus(beir) == {
        "auth": "Auth\nSend a bearer token.",
        "rate": "100 requests per minute.",
        "errors": "404 means not found.",
    }


def test_score_with_a_beir_folder_accepts_queries_of_other_splits_in_the_run(
    ragguard_cli, write, beir
):
    run = write(
        "run.jsonl",
        '{"id": "q1", "retrieved": ["errors", "auth"]}\n'
        '{"id": "3", "retrieved": ["errors"]}\n'
        '{"id": "q4", "retrieved": ["auth"]}\n',
    )
    result = ragguard_cli("score", "--beir", beir, "--run", run, "--metrics", "mrr")
    assert result.exit_code == 0, result.stderr
    assert "3 questions: 2 ok, 1 missing" in result.stdout
    assert "missing: q2" in result.stdout
    assert result.stderr.splitlines() == [
        f"ragguard: warning: {beir / 'qrels' / 'test.tsv'}: 1 query has no relevant document; "
        "it scores 0 on every retrieval metric and is counted, as trec_eval does"
    ]


# --- validation ---------------------------------------------------------------------------------


def _score(folder, run, *extra):
    return ["score", "--beir", folder, "--run", run, *extra]


def test_a_folder_without_qrels(cli_error, beir, good_run):
    for split in ("test", "train"):
        (beir / "qrels" / f"{split}.tsv").unlink()
    cli_error(_score(beir, good_run), f"{beir / 'qrels'}: no qrels/*.tsv file", "qrels/test.tsv")


def test_console_script_reports_a_folder_without_qrels_in_one_line(
    process_error, tmp_path, good_run
):
    folder = tmp_path / "beir"
    folder.mkdir()
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "x"}\n')
    process_error(_score(folder, good_run), f"{folder / 'qrels'}: no qrels/*.tsv file")


def test_a_missing_folder(cli_error, tmp_path, good_run):
    cli_error(_score(tmp_path / "nowhere", good_run), "BEIR folder not found")


def test_an_unknown_split_lists_the_splits(cli_error, beir, good_run):
    cli_error(
        _score(beir, good_run, "--split", "dev"),
        f"{beir / 'qrels' / 'dev.tsv'}: split 'dev' not found",
        "test, train",
    )


@pytest.mark.parametrize(
    ("qrels", "line", "fragment"),
    [
        ("query-id\tcorpus-id\tscore\nq1\tauth\n", 2, "expected 3 tab-separated columns"),
        ("q1\tauth\t1\nq1 auth 1\n", 2, "expected 3 tab-separated columns"),
        ("q1\tauth\t1\nq2\trate\thigh\n", 2, "score must be a non-negative integer, found 'high'"),
        ("q1\tauth\t-1\n", 1, "score must be a non-negative integer, found '-1'"),
        ("q1\tauth\t1\nq1\tauth\t2\n", 2, "document 'auth' is judged twice for query 'q1'"),
        ("q1\tauth\t1\n\nq9\tauth\t1\n", 3, "query 'q9' is not in queries.jsonl"),
    ],
    ids=["2-columns", "spaces", "word", "negative", "twice", "unknown-query"],
)
def test_bad_qrels_name_the_line(cli_error, beir, good_run, qrels, line, fragment):
    path = beir / "qrels" / "test.tsv"
    path.write_text(qrels)
    cli_error(_score(beir, good_run), f"{path}:{line}: {fragment}")


@pytest.mark.parametrize(
    ("queries", "fragment"),
    [
        ('{"_id": "q1", "text": "x"}\n{"_id": "q2"}\n', ":2: each query needs '_id' and 'text'"),
        (
            '{"_id": "q1", "text": "x"}\n{"_id": "q1", "text": "y"}\n',
            ":2: _id: duplicate query id 'q1'",
        ),
        ('{"_id": "q1", "text": "x"}\n{"_id": "q2", "text": "y"\n', ":2: invalid JSON"),
    ],
    ids=["no-text", "duplicate", "syntax"],
)
def test_bad_queries_name_the_line(cli_error, beir, good_run, queries, fragment):
    path = beir / "queries.jsonl"
    path.write_text(queries)
    cli_error(_score(beir, good_run), f"{path}{fragment}")


def test_a_folder_without_queries(cli_error, beir, good_run):
    (beir / "queries.jsonl").unlink()
    cli_error(_score(beir, good_run), f"{beir / 'queries.jsonl'}: queries file not found")
