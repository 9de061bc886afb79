"""Reading input files: every unreadable file is one clear line and exit code 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragguard.core.errors import InputError
from ragguard.core.sources import (
    iter_csv_rows,
    iter_jsonl,
    iter_jsonl_objects,
    parse_json_value,
    read_text,
    shown,
    unknown_key_message,
)
from ragguard.core.yaml_lines import parse_yaml
from ragguard.results.io import results_from_dict
from ragguard.results.records import parse_run_jsonl
from ragguard.testset.formats.trec import parse_qrels
from ragguard.testset.formats.trec_runs import parse_trec_run
from ragguard.testset.load import load_testset

# --- through the command line ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "fragment"),
    [(b"", "test set is empty"), (b"  \n\n\t \r\n", "test set is empty")],
    ids=["empty", "whitespace-only"],
)
def test_empty_test_set_is_refused(cli_error, write, good_run, content, fragment):
    path = write("testset.yaml", content)
    line = cli_error(["score", "--testset", path, "--run", good_run], f"{path}:", fragment)
    assert "check the path, or write its questions: a question looks like" in line


def test_empty_run_file_is_refused(cli_error, write, good_testset):
    path = write("run.jsonl", "\n\n")
    cli_error(["score", "--testset", good_testset, "--run", path], f"{path}:", "run file is empty")


def test_after_a_byte_order_mark_the_bad_byte_and_its_line_are_the_right_ones(tmp_path):
    """#31: the positions of a decode error were counted without the BOM: a bad byte at
    the start of line 2 was reported on line 1, and another byte was shown."""
    path = tmp_path / "t.yaml"
    path.write_bytes(b"\xef\xbb\xbf- id: q1\n\xe9\n")
    with pytest.raises(InputError, match=r"t\.yaml:2: not UTF-8 \(byte 0xe9\)"):
        read_text(path)


@pytest.mark.parametrize("name", ["testset.yaml", "testset.jsonl", "testset.csv"])
def test_non_utf8_names_the_line_of_the_bad_byte(cli_error, write, good_run, name):
    content = {
        "testset.yaml": b"- id: q1\n  question: ok\n  relevant: [a]\n- id: q2\n  question: caf\xe9\n",
        "testset.jsonl": b'{"id": "q1", "question": "ok", "relevant": ["a"]}\n\n'
        b'{"id": "q2", "question": "caf\xe9"}\n',
        "testset.csv": b"id,question,relevant\nq1,ok,a\nq2,caf\xe9,b\n",
    }[name]
    bad_line = content[: content.index(b"\xe9")].count(b"\n") + 1
    path = write(name, content)
    cli_error(
        ["score", "--testset", path, "--run", good_run],
        f"{path}:{bad_line}: not UTF-8 (byte 0xe9)",
        "save the file as UTF-8",
    )


def test_yaml_syntax_error_names_the_line_and_where_the_construct_opened(
    cli_error, write, good_run
):
    path = write("testset.yaml", "- id: q1\n  question: [unclosed\n- id: q2\n")
    cli_error(
        ["score", "--testset", path, "--run", good_run],
        f"{path}:3: YAML syntax error",
        "starts at line 2",
    )


def test_yaml_tab_indentation_says_to_use_spaces(cli_error, write, good_run):
    path = write("testset.yaml", "- id: q1\n\tquestion: x\n")
    cli_error(["score", "--testset", path, "--run", good_run], f"{path}:2:", "not tabs")


def test_yaml_duplicate_key_is_a_syntax_error_with_its_line(cli_error, write, good_run):
    path = write("testset.yaml", "- id: q1\n  question: x\n  relevant: [a]\n  id: q2\n")
    cli_error(["score", "--testset", path, "--run", good_run], f"{path}:4:", "duplicate key 'id'")


def test_json_syntax_error_names_the_line_of_the_jsonl_file(cli_error, write, good_testset):
    path = write(
        "run.jsonl", '{"id": "q1", "retrieved": ["auth"]}\n\n{"id": "q2", "retrieved": [\n'
    )
    cli_error(
        ["score", "--testset", good_testset, "--run", path],
        f"{path}:3: invalid JSON",
        "column",
        "one complete JSON value",
    )


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_in_json_are_refused(cli_error, write, good_testset, constant):
    path = write(
        "run.jsonl",
        '{"id": "q1", "retrieved": ["auth"]}\n'
        f'{{"id": "q2", "retrieved": [{{"id": "rate-limits", "score": {constant}}}]}}\n',
    )
    cli_error(
        ["score", "--testset", good_testset, "--run", path],
        f"{path}:2: invalid JSON: {constant} is not a valid number",
        "write a number or null",
    )


def test_a_repeated_key_in_one_json_object_is_refused(cli_error, write, good_testset):
    path = write("run.jsonl", '{"id": "q1", "retrieved": ["auth"], "id": "q2"}\n')
    cli_error(
        ["score", "--testset", good_testset, "--run", path], f"{path}:1:", "duplicate key 'id'"
    )


@pytest.mark.parametrize("which", ["--testset", "--run"])
def test_missing_file(cli_error, tmp_path, good_testset, good_run, which):
    missing = tmp_path / "nope.yaml"
    args = {"--testset": good_testset, "--run": good_run} | {which: missing}
    what = "test set" if which == "--testset" else "run file"
    cli_error(
        ["score", *(x for pair in args.items() for x in pair)],
        f"{missing}: {what} not found",
        "check the path",
    )


@pytest.mark.parametrize("which", ["--testset", "--run"])
def test_a_directory_passed_as_a_file(cli_error, tmp_path, good_testset, good_run, which):
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    args = {"--testset": good_testset, "--run": good_run} | {which: folder}
    cli_error(["score", *(x for pair in args.items() for x in pair)], f"{folder}: is a directory")


def test_unknown_metric_name_suggests_the_close_one(cli_error, good_testset, good_run):
    cli_error(
        ["score", "--testset", good_testset, "--run", good_run, "--metrics", "mrr,ndgc@3"],
        "--metrics",
        "unknown metric 'ndgc@3'",
        "did you mean 'ndcg'?",
    )


# --- through the installed console script -----------------------------------------------------


def test_console_script_reports_a_non_utf8_file_in_one_line(process_error, write, good_run):
    path = write("testset.yaml", b"- id: q1\n  question: \xff\xfe\n")
    process_error(["score", "--testset", path, "--run", good_run], f"{path}:2: not UTF-8")


def test_console_script_reports_an_empty_file_in_one_line(process_error, write, good_run):
    path = write("testset.csv", b"")
    process_error(["score", "--testset", path, "--run", good_run], f"{path}: test set is empty")


def test_console_script_reports_an_unknown_metric_in_one_line(
    process_error, good_testset, good_run
):
    process_error(
        ["score", "--testset", good_testset, "--run", good_run, "--metrics", "recal@5"],
        "did you mean 'recall'?",
    )


# --- the readers themselves -------------------------------------------------------------------


def test_read_text_accepts_a_byte_order_mark(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbfid,question\n")
    assert read_text(path) == "id,question\n"


def test_parse_yaml_remembers_the_line_of_every_mapping_key_and_list_item():
    data = parse_yaml("# comment\n- id: a\n  question: x\n\n- id: b\n  tags: [t]\n", "t.yaml")
    assert data.line == 2
    assert data.item_lines == [2, 5]
    assert data[0].key_lines == {"id": 2, "question": 3}
    assert data[1].key_lines == {"id": 5, "tags": 6}
    assert data[1]["tags"] == ["t"]


def test_parse_yaml_refuses_python_tags():
    with pytest.raises(InputError, match="YAML syntax error"):
        parse_yaml("- !!python/object/apply:os.system ['true']\n", "t.yaml")


def test_iter_jsonl_skips_blank_lines_and_keeps_real_line_numbers():
    text = '\n{"a": 1}\n   \n[2]\n'
    assert list(iter_jsonl(text, "x.jsonl")) == [(2, {"a": 1}), (4, [2])]
    with pytest.raises(InputError) as caught:
        list(iter_jsonl_objects(text, "x.jsonl"))
    assert caught.value.line == 4
    assert "found a list" in str(caught.value)


def test_parse_json_value_refuses_nan_and_repeated_keys_but_keeps_numbers():
    assert parse_json_value('{"a": 1.5, "b": [0, -2e3]}') == {"a": 1.5, "b": [0, -2000.0]}
    with pytest.raises(ValueError, match="NaN"):
        parse_json_value("[NaN]")
    with pytest.raises(ValueError, match="duplicate key 'a'"):
        parse_json_value('{"a": 1, "a": 2}')


def test_csv_rows_start_where_a_multiline_quoted_field_starts():
    text = 'id,question\n\nq1,"line one\nline two"\nq2,short\n'
    assert list(iter_csv_rows(text, "t.csv")) == [
        (3, {"id": "q1", "question": "line one\nline two"}),
        (5, {"id": "q2", "question": "short"}),
    ]


def test_csv_missing_trailing_fields_are_empty_and_extra_fields_are_refused():
    assert list(iter_csv_rows("id,question,tags\nq1,x\n", "t.csv")) == [
        (2, {"id": "q1", "question": "x", "tags": ""})
    ]
    with pytest.raises(InputError, match="quote values that contain a comma") as caught:
        list(iter_csv_rows("id,question\nq1,x\nq2,a, b\n", "t.csv"))
    assert caught.value.line == 3


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("id,question,", "column 3 has no name"),
        ("id,question,id", "column 'id' appears twice"),
    ],
)
def test_csv_header_problems_name_line_one(header, message):
    with pytest.raises(InputError, match=message) as caught:
        list(iter_csv_rows(f"{header}\nq1,x,y\n", "t.csv"))
    assert caught.value.line == 1


def test_unknown_key_message_suggests_only_close_names():
    assert "did you mean 'retrieved'?" in unknown_key_message("retreived", ["id", "retrieved"])
    assert "did you mean" not in unknown_key_message("zzz", ["id", "retrieved"])


@pytest.mark.parametrize(
    ("value", "text"),
    [(True, "true"), (None, "null"), ("high", '"high"'), (1.5, "1.5"), (-1, "-1")],
)
def test_shown_writes_values_as_the_user_wrote_them(value, text):
    assert shown(value) == text


# --- the examples in docs/formats.md ------------------------------------------------------------

DOC = Path(__file__).parents[1] / "docs" / "formats.md"


def _doc_blocks() -> list[tuple[str, str]]:
    return re.findall(r"```(\w*)\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_examples_in_docs_formats_md_load(tmp_path):
    blocks = _doc_blocks()
    testsets = []
    runs = []
    for language, body in blocks:
        first = body.splitlines()[0]
        if language in ("yaml", "csv") or (language == "json" and '"question"' in first):
            path = tmp_path / f"t{len(testsets)}.{'jsonl' if language == 'json' else language}"
            path.write_text(body, encoding="utf-8")
            testsets.append(load_testset(path))
        elif language == "json" and '"retrieved"' in first:
            runs.append(parse_run_jsonl(body, "run.jsonl"))
        elif language == "json" and first == "{":
            results = results_from_dict(json.loads(body))
            assert results.summary["mrr"].value == 0.625
    assert [len(run.records) for run in runs] == [3, 1]  # the recorded run, its usage example
    assert runs[1].records["authenticate"].usage.tokens == 908
    evidence = [t for t in testsets if any(q.evidence for q in t)]
    assert [[q.id for q in t] for t in evidence] == [["requests-per-minute"]]
    (labelled,) = evidence[0].questions
    assert len(labelled.evidence) == 4 and labelled.relevant == {"legacy-chunk-7": 1}
    assert [[q.id for q in t] for t in testsets if t not in evidence] == [
        ["retry-after-429", "authenticate", "refunds-in-bitcoin"]
    ] * 3
    trec = [body for language, body in blocks if not language and " Q0 " in body]
    qrels = [
        body
        for language, body in blocks
        if not language and body.startswith("retry") and " Q0 " not in body
    ]
    assert parse_trec_run(trec[0], "x.run").records["retry-after-429"].retrieved_ids == [
        "error-codes",
        "rate-limits",
    ]
    assert parse_qrels(qrels[0], "x.qrels")["retry-after-429"] == {
        "rate-limits": 2,
        "error-codes": 1,
        "pagination": 0,
    }
