"""Recorded runs and the corpus: round trips, validation, and missing questions."""

from __future__ import annotations

import json

import pytest

from ragguard.core.errors import InputError
from ragguard.results.chunks import Chunk
from ragguard.results.io import load_results
from ragguard.results.records import RunRecord, dump_run, load_corpus, load_run, parse_run_jsonl
from ragguard.testset.formats import load_run_file

RECORDS = (
    RunRecord(
        id="retry-after-429",
        retrieved=(
            Chunk("error-codes", text="429 Too Many Requests …", score=0.82),
            Chunk("pagination"),
            Chunk("rate-limits", score=0.5),
            Chunk("webhooks", text="Webhooks are signed."),
        ),
        answer="Wait for Retry-After seconds.\nThen retry.",
        latency_ms=412.0,
        meta={"model": "m", "tokens": [1, 2]},
    ),
    RunRecord(id="q2", retrieved=(), answer=None, error="timeout after 30s"),
    RunRecord(id='ünïcode "quoted"', retrieved=(Chunk("a"),), answer="", latency_ms=0.5),
)


def test_dump_run_round_trips_every_field():
    text = dump_run(RECORDS)
    assert len(text.splitlines()) == len(RECORDS)
    run = parse_run_jsonl(text, "run.jsonl")
    assert tuple(run.records.values()) == RECORDS
    assert run.lines == {record.id: number for number, record in enumerate(RECORDS, start=1)}
    assert dump_run(run.records.values()) == text


def test_a_run_file_written_by_dump_run_loads_back(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text(dump_run(RECORDS), encoding="utf-8")
    assert tuple(load_run(path).records.values()) == RECORDS
    assert tuple(load_run_file(path).records.values()) == RECORDS


def test_dump_run_writes_bare_ids_for_chunks_with_only_an_id():
    line = json.loads(dump_run([RunRecord("q", (Chunk("a"), Chunk("b", score=1.0)))]))
    assert line["retrieved"] == ["a", {"id": "b", "score": 1.0}]


def test_dump_run_refuses_nan():
    with pytest.raises(ValueError):
        dump_run([RunRecord("q", (Chunk("a", score=float("nan")),))])


def test_rank_order_is_the_list_order_never_the_scores():
    run = parse_run_jsonl(
        '{"id": "q", "retrieved": [{"id": "low", "score": 0.1}, {"id": "high", "score": 0.9}]}',
        "r.jsonl",
    )
    assert run.records["q"].retrieved_ids == ["low", "high"]


def test_numbers_as_ids_and_null_fields_are_accepted():
    run = parse_run_jsonl(
        '{"id": 7, "retrieved": [3, {"id": 4}], "answer": null, "latency_ms": 12, "error": null}',
        "r.jsonl",
    )
    assert run.records["7"] == RunRecord("7", (Chunk("3"), Chunk("4")), latency_ms=12.0)


def test_a_structured_error_is_kept_as_json_text():
    run = parse_run_jsonl('{"id": "q", "error": {"code": 500}}', "r.jsonl")
    assert run.records["q"].error == '{"code": 500}'


# --- validation through the command line ------------------------------------------------------


def _score(testset, run, *extra):
    return ["score", "--testset", testset, "--run", run, *extra]


def test_run_entry_for_an_unknown_question_id_names_its_line(cli_error, write, good_testset):
    path = write(
        "run.jsonl",
        '{"id": "q1", "retrieved": ["auth"]}\n\n{"id": "q9", "retrieved": ["auth"]}\n',
    )
    cli_error(
        _score(good_testset, path),
        f"{path}:3: run entry for unknown question id 'q9'",
        "not in the test set",
    )


def test_the_same_chunk_twice_in_one_ranking(cli_error, write, good_testset):
    path = write(
        "run.jsonl",
        '{"id": "q1", "retrieved": ["auth"]}\n'
        '{"id": "q2", "retrieved": ["x", {"id": "rate-limits"}, "y", "rate-limits"]}\n',
    )
    cli_error(
        _score(good_testset, path),
        f"{path}:2: retrieved: chunk 'rate-limits' appears twice in one ranking (ranks 2 and 4)",
        "deduplicate",
    )


@pytest.mark.parametrize(
    ("line", "found"),
    [("[1, 2]", "a list"), ('"q2"', "a string"), ("3", "a number"), ("null", "null")],
)
def test_a_run_line_that_is_not_an_object(cli_error, write, good_testset, line, found):
    path = write("run.jsonl", '{"id": "q1", "retrieved": ["auth"]}\n' + line + "\n")
    cli_error(
        _score(good_testset, path),
        f"{path}:2: expected a JSON object ({{...}}) on each line",
        found,
    )


def test_a_jsonl_run_whose_first_line_is_not_an_object_is_still_read_as_jsonl(
    cli_error, write, good_testset
):
    path = write("run.jsonl", '["q1", "auth"]\n')
    cli_error(_score(good_testset, path), f"{path}:1: expected a JSON object")


@pytest.mark.parametrize(
    ("record", "fragments"),
    [
        ('{"retrieved": ["a"]}', ["id: every run entry needs the question id"]),
        ('{"id": "", "retrieved": ["a"]}', ["id: every run entry needs the question id"]),
        ('{"id": "q1", "retrieved": "auth"}', ["retrieved: expected a list in rank order"]),
        ('{"id": "q1", "retrieved": ["auth", ""]}', ["retrieved[1]: empty chunk id"]),
        (
            '{"id": "q1", "retrieved": [{"text": "x"}]}',
            ["retrieved[0]: a retrieved chunk object needs"],
        ),
        ('{"id": "q1", "retrieved": [true]}', ["retrieved[0]: expected a chunk id or an object"]),
        (
            '{"id": "q1", "retrieved": [{"id": "a", "scor": 1}]}',
            ["retrieved[0]: 'scor'", "did you mean 'score'?"],
        ),
        (
            '{"id": "q1", "retrieved": [{"id": "a", "score": "high"}]}',
            ["'score' must be a finite number"],
        ),
        ('{"id": "q1", "retrieved": [{"id": "a", "text": 3}]}', ["'text' must be a string"]),
        ('{"id": "q1", "retrived": ["a"]}', ["retrived: unknown key; did you mean 'retrieved'?"]),
        ('{"id": "q1", "answer": 42}', ["answer: expected a string or null"]),
        ('{"id": "q1", "latency_ms": -5}', ["latency_ms: expected a non-negative number"]),
        ('{"id": "q1", "latency_ms": "fast"}', ["latency_ms: expected a non-negative number"]),
        ('{"id": "q1", "latency_ms": 1e999}', ["latency_ms: expected a non-negative number"]),
        ('{"id": "q1", "meta": [1]}', ["meta: expected a mapping"]),
    ],
    ids=[
        "no-id",
        "empty-id",
        "retrieved-string",
        "empty-chunk",
        "chunk-no-id",
        "chunk-bool",
        "chunk-unknown-key",
        "score-string",
        "text-number",
        "unknown-key",
        "answer-number",
        "latency-negative",
        "latency-string",
        "latency-infinite",
        "meta-list",
    ],
)
def test_bad_run_records_name_line_and_key(cli_error, write, good_testset, record, fragments):
    path = write("run.jsonl", '{"id": "q2", "retrieved": []}\n' + record + "\n")
    cli_error(_score(good_testset, path), f"{path}:2: ", *fragments)


def test_two_entries_for_one_question_name_both_lines(cli_error, write, good_testset):
    path = write("run.jsonl", '{"id": "q1"}\n{"id": "q2"}\n{"id": "q1"}\n')
    cli_error(
        _score(good_testset, path),
        f"{path}:3: id: second entry for question 'q1' (first at line 1)",
    )


def test_console_script_reports_an_unknown_question_in_one_line(process_error, write, good_testset):
    path = write("run.jsonl", '{"id": "nope", "retrieved": []}\n')
    process_error(_score(good_testset, path), f"{path}:1: run entry for unknown question id 'nope'")


# --- a question missing from the run is not an input error ---------------------------------


def test_a_question_missing_from_the_run_scores_zero_and_is_reported(
    ragguard_cli, write, good_testset, tmp_path
):
    run = write("run.jsonl", '{"id": "q1", "retrieved": ["auth", "errors"]}\n')
    out = tmp_path / "results.json"
    result = ragguard_cli(*_score(good_testset, run, "--metrics", "hit_rate@1,mrr", "--out", out))
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert "1 ok, 1 missing" in result.stdout
    assert "missing: q2: no entry for this question in the run" in result.stdout
    results = load_results(out)
    missing = results.by_id["q2"]
    assert missing.status == "missing"
    assert missing.metrics == {"hit_rate@1": 0.0, "mrr": 0.0}
    assert results.summary["mrr"].n == 2
    assert results.summary["mrr"].value == 0.5
    assert results.counts["missing"] == 1


def test_an_errored_record_scores_zero_with_its_error_text(
    ragguard_cli, write, good_testset, tmp_path
):
    run = write(
        "run.jsonl",
        '{"id": "q1", "retrieved": ["auth"]}\n'
        '{"id": "q2", "retrieved": ["rate-limits"], "error": "HTTP 500 from the retriever"}\n',
    )
    out = tmp_path / "results.json"
    result = ragguard_cli(*_score(good_testset, run, "--metrics", "hit_rate@1", "--out", out))
    assert result.exit_code == 0, result.stderr
    assert "error: q2: HTTP 500 from the retriever" in result.stdout
    errored = load_results(out).by_id["q2"]
    assert (errored.status, errored.metrics) == ("error", {"hit_rate@1": 0.0})


# --- the corpus ---------------------------------------------------------------------------------


def test_load_corpus_reads_ids_beir_ids_and_titles(write):
    path = write(
        "chunks.jsonl",
        '{"id": "auth", "text": "Send a bearer token."}\n'
        "\n"
        '{"_id": 7, "title": "Rate limits", "text": "100 requests per minute."}\n',
    )
    assert load_corpus(path) == {
        "auth": "Send a bearer token.",
        "7": "Rate limits\n100 requests per minute.",
    }


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ('{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n', "2: id: duplicate chunk id 'a'"),
        (
            '{"id": "a", "text": "x"}\n{"text": "y"}\n',
            "2: id: every corpus entry needs a string id",
        ),
        ('{"id": "a", "text": "x"}\n{"id": "b"}\n', "2: text: expected the chunk text as a string"),
        ('{"id": "a", "text": "x"}\n["b"]\n', "2: expected a JSON object"),
    ],
)
def test_corpus_errors_name_the_line(write, content, fragment):
    path = write("chunks.jsonl", content)
    with pytest.raises(InputError) as caught:
        load_corpus(path)
    assert f"{path}:{fragment}" in str(caught.value)


def test_chunk_origins_are_read_and_written_back() -> None:
    text = (
        '{"id": "q1", "retrieved": [{"id": "a#2", "doc": "a.md", "chars": [10, 90], '
        '"lines": [2, 4], "text": "t"}, "b#1"]}\n'
    )
    record = parse_run_jsonl(text, "run.jsonl").records["q1"]
    first = record.retrieved[0]
    assert (first.doc, first.chars, first.lines) == ("a.md", (10, 90), (2, 4))
    assert parse_run_jsonl(dump_run([record]), "again.jsonl").records["q1"] == record


@pytest.mark.parametrize(
    ("chunk", "message"),
    [
        ('{"id": "a", "doc": ""}', "'doc' must be a document id string"),
        ('{"id": "a", "doc": "d", "chars": [9, 2]}', "'chars' must be [start, end]"),
        ('{"id": "a", "doc": "d", "lines": [0, 2]}', "'lines' must be [start, end] with 1"),
    ],
)
def test_bad_chunk_origins_are_one_line_errors(chunk: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_run_jsonl(f'{{"id": "q1", "retrieved": [{chunk}]}}\n', "run.jsonl")
    assert message in str(caught.value) and "run.jsonl:1" in str(caught.value)


@pytest.mark.parametrize("by_option", [True, False], ids=["--suite", "file-name"])
def test_a_suite_name_that_is_not_utf8_is_refused_before_scoring(
    cli_error, good_testset, good_run, tmp_path, by_option
):
    """A command-line byte that is not UTF-8 reaches Python as a lone surrogate, which no
    results file could hold (docs/formats.md, "Decisions the formats leave open")."""
    testset = good_testset
    if not by_option:
        testset = tmp_path / "eval-\udcff.yaml"  # the byte 0xff, as os.fsdecode gives it
        testset.write_bytes(good_testset.read_bytes())
    out = tmp_path / "out.json"
    args = ["score", "--testset", testset, "--run", good_run, "--out", out]
    if by_option:
        cli_error([*args, "--suite", "orders-\udcff"], "--suite:", "not UTF-8 text")
    else:
        cli_error(args, "eval-\\udcff.yaml: the file name is not UTF-8 text", "give --suite")
    assert not out.exists()
