"""TREC qrels and run files: round trips, trec_eval's ordering, and validation."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from itertools import pairwise

import pytest
import pytrec_eval
from tests.test_parallel_scoring import write_trec

from ragguard.results.chunks import Chunk
from ragguard.results.records import RunRecord
from ragguard.testset.formats import load_run_file, trec
from ragguard.testset.formats.trec import dump_qrels, load_qrels, no_relevant_warning, parse_qrels
from ragguard.testset.formats.trec_runs import (
    dump_trec_run,
    load_trec_rankings,
    load_trec_run,
    parse_trec_run,
    query_cuts,
    rankings_between,
)
from ragguard.testset.model import Question

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


def test_queries_without_a_relevant_document_are_questions_scored_zero(write):
    path = write("x.qrels", "q1 0 d1 1\nq2 0 d2 0\nq3 0 d3 -1\n")
    testset = load_qrels(path)
    assert [q.id for q in testset] == ["q1", "q2", "q3"]
    assert testset.by_id["q3"].relevant == {"d3": 0}
    assert no_relevant_warning(testset) == (
        f"{path}: 2 queries have no relevant document; they score 0 on every retrieval "
        "metric and are counted, as trec_eval does"
    )
    assert no_relevant_warning(load_qrels(write("y.qrels", "q1 0 d1 1\n"))) is None


def test_a_query_judged_all_zero_scores_zero_and_is_counted_like_pytrec_eval(
    ragguard_cli, write, tmp_path
):
    qrels = write("x.qrels", "q1 0 d1 1\nq2 0 d2 0\n")
    run = write("x.run", "q1 Q0 d1 1 2.0 t\nq2 Q0 d2 1 2.0 t\n")
    out = tmp_path / "r.json"
    args = ["--metrics", "mrr,ndcg@5,judged@1", "--out", out]
    result = ragguard_cli("score", "--qrels", qrels, "--trec-run", run, *args)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"ragguard: warning: {qrels}: 1 query has no relevant document; it scores 0 on every "
        "retrieval metric and is counted, as trec_eval does"
    ]
    summary = json.loads(out.read_text())["summary"]
    reference = pytrec_eval.RelevanceEvaluator(
        {"q1": {"d1": 1}, "q2": {"d2": 0}}, {"recip_rank", "ndcg_cut.5"}
    ).evaluate({"q1": {"d1": 2.0}, "q2": {"d2": 2.0}})
    assert summary["mrr"] == {**summary["mrr"], "value": 0.5, "n": 2}
    assert summary["mrr"]["value"] == sum(q["recip_rank"] for q in reference.values()) / 2
    assert summary["ndcg@5"]["value"] == sum(q["ndcg_cut_5"] for q in reference.values()) / 2
    assert summary["judged@1"]["value"] == 1.0


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
        ("q1 0 d1 1.5\n", 1, "grade must be a whole number in ASCII digits, found '1.5'"),
        ("q1 0 d1 high\n", 1, "grade must be a whole number in ASCII digits, found 'high'"),
        ("q1 0 d1 1\nq1 0 d2 \u00b2\n", 2, "grade must be a whole number in ASCII digits, found '²'"),
        ("q1 0 d1 \u0661\n", 1, "grade must be a whole number in ASCII digits, found '١'"),
        ("q1 0 d1 1\nq1 0 d1 2\n", 2, "document 'd1' is judged twice for query 'q1'"),
        ("q1 0 d1 101\n", 1, "grade of 'd1' is 101; grades go from 0 to 100"),
        ("q1 0 d1 " + "1" * 5000 + "\n", 1, "grade has 5,000 digits, more than the 4,300"),
        ("q1 0 d1 1\n  # indented\n", 2, "expected 4 columns"),
    ],
    ids=[
        "3-columns", "5-columns", "fraction", "word", "superscript", "arabic-indic",
        "judged-twice", "too-high", "too-long", "indented-hash",
    ],
)  # fmt: skip
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
        ("q1 Q0 d1 1 high t\n", 1, "score must be a number, found 'high'"),
        ("q1 Q0 d1 1 1_0 t\n", 1, "score must be a number, found '1_0'"),
        ("q1 Q0 d1 1 \u0661 t\n", 1, "score must be a number, found '١'"),
        ("q1 Q0 d1 1 nan t\n", 1, "score must be a finite number, found 'nan'"),
        ("q1 Q0 d1 1 inf t\n", 1, "score must be a finite number, found 'inf'"),
        ("q1 Q0 d1 1 1e400 t\n", 1, "score must be a finite number, found '1e400'"),
        (
            "q1 Q0 d1 1 2 t\nq1 Q0 d1 2 1 t\n",
            2,
            "document 'd1' appears twice in the ranking of query 'q1'",
        ),
        (b"q1 Q0 d1 1 2 t\nq1 Q0 d\xff 2 1 t\n", 2, "not UTF-8 (byte 0xff)"),
    ],
    ids=[
        "5-columns", "word-score", "underscore", "arabic-indic-score", "nan", "inf", "overflow",
        "twice", "not-utf8",
    ],
)  # fmt: skip
def test_bad_trec_runs_name_the_line(cli_error, write, content, line, fragment):
    qrels = write("x.qrels", "q1 0 d1 1\n")
    run = write("x.run", content)
    cli_error(["score", "--qrels", qrels, "--trec-run", run], f"{run}:{line}: {fragment}")


GOOD_RUN_LINE = b"q1 Q0 d1 1 2 t\n"
BOM = b"\xef\xbb\xbf"
MANY_RUN_LINES = "".join(f"q1 Q0 d{n} {n + 1} {1000 - n} t\n" for n in range(1000)).encode()


@pytest.mark.parametrize(
    ("content", "line", "fragment"),
    [
        (GOOD_RUN_LINE + b"q1 Q0 d2 2 1 t\nq1 Q0 d\x00 3 0 t\n", 3, "a NUL byte: not a text"),
        (GOOD_RUN_LINE + b"\x00\x01\n\x89PNG\xff\n", 2, "a NUL byte"),
        (BOM + GOOD_RUN_LINE + b"\xc9\n", 2, "not UTF-8 (byte 0xc9)"),
        (BOM + GOOD_RUN_LINE + b"\xff\xfeq\x001\x00\n", 2, "a NUL byte"),
        (BOM + MANY_RUN_LINES + b"\xc9\n", 1001, "not UTF-8 (byte 0xc9)"),
    ],
    ids=["nul-in-an-id", "binary-tail", "bom-then-bad-line-2", "bom-then-utf16", "bom-far"],
)
@pytest.mark.parametrize("read_as", ["--trec-run", "--run"])
def test_a_binary_trec_run_names_its_first_line_that_is_not_text(
    cli_error, write, good_testset, content, line, fragment, read_as
):
    """#31: the first line with undecodable bytes or a NUL, by every reader of TREC runs
    (`--run` named line 1 after a BOM, and a later undecodable line before a NUL)."""
    run = write("x.run", content)
    if read_as == "--run":
        args = ["score", "--testset", good_testset, "--run", run]
    else:
        args = ["score", "--qrels", write("x.qrels", "q1 0 d1 1\n"), "--trec-run", run]
    cli_error(args, f"{run}:{line}: {fragment}")


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (b"q1 0 d1 1\nq1 0 d\x00 1\n", 2),
        (BOM + b"q1 0 d1 1\n\x00\nq2 0 \xff 1\n", 2),
        ("".join(f"q{n} 0 d1 1\n" for n in range(3000)).encode() + b"\x1f\x8b\x08\x00\n", 3001),
    ],
    ids=["nul-in-an-id", "nul-before-a-bad-byte", "gzip-past-the-first-block"],
)
def test_a_binary_qrels_file_names_its_first_line_that_is_not_text(cli_error, write, content, line):
    qrels = write("x.qrels", content)
    run = write("x.run", "q1 Q0 d1 1 2.0 t\n")
    cli_error(["score", "--qrels", qrels, "--trec-run", run], f"{qrels}:{line}: ")


def test_bad_lines_are_found_past_the_first_block(cli_error, write, monkeypatch):
    """The fast reader hands a bad block to the exact reader, which names the line."""
    monkeypatch.setattr(trec, "BLOCK_BYTES", 64)
    lines = [f"q{n // 10} Q0 d{n} {n % 10 + 1} {10 - n % 10} t\n" for n in range(100)]
    lines[57] = "q5 Q0 d57 8 3,5 t\n"
    qrels = write("x.qrels", "q1 0 d1 1\n")
    run = write("x.run", "".join(lines))
    cli_error(["score", "--qrels", qrels, "--trec-run", run], f"{run}:58: score must be a number")


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


# --- the rules shared with trec_eval ----------------------------------------------------------


def _scored(ragguard_cli, tmp_path, qrels, run, metrics="mrr,ndcg@10,map@100"):
    out = tmp_path / "r.json"
    result = ragguard_cli(
        "score", "--qrels", qrels, "--trec-run", run, "--metrics", metrics, "--out", out
    )
    assert result.exit_code == 0, result.stderr
    return result, {q["id"]: q for q in json.loads(out.read_text())["questions"]}


@pytest.mark.parametrize("space", ["\u00a0", "\u2003", "\x1c", "\x85"])
def test_only_ascii_whitespace_separates_fields(ragguard_cli, write, tmp_path, space):
    """A no-break space (or any non-ASCII or control 'space') is part of an id, as in trec_eval."""
    doc = f"d{space}1"
    qrels = write("x.qrels", f"q1 0 {doc} 1\n")
    run = write("x.run", f"q1 Q0 d 1 3.0 t\nq1 Q0 {doc} 2 2.0 t\n")
    _, questions = _scored(ragguard_cli, tmp_path, qrels, run)
    assert questions["q1"]["retrieved"] == ["d", doc]
    assert questions["q1"]["metrics"]["mrr"] == 0.5


def test_run_lines_may_have_columns_after_the_run_tag(ragguard_cli, write, tmp_path):
    qrels = write("x.qrels", "q1 0 d2 1\n")
    run = write("x.run", "q1 Q0 d1 1 3.0 t extra 7\nq1 Q0 d2 2 2.0 t\n")
    _, questions = _scored(ragguard_cli, tmp_path, qrels, run)
    assert questions["q1"]["retrieved"] == ["d1", "d2"]


def test_qrels_comment_lines_are_skipped(write):
    path = write("x.qrels", "# judged by hand\nq1 0 d1 1\n#q1 0 d2 1\n\nq2 0 d3 2\n")
    assert {q.id: dict(q.relevant) for q in load_qrels(path)} == {"q1": {"d1": 1}, "q2": {"d3": 2}}


def test_negative_grades_mean_not_relevant_as_in_trec_eval(ragguard_cli, write, tmp_path):
    grades = {"q1": {"d1": -1, "d2": 1, "d3": 2}, "q2": {"d1": 1}}
    run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0, "d4": 0.5}, "q2": {"d9": 1.0, "d1": 0.5}}
    qrels_path = write(
        "x.qrels",
        "".join(f"{q} 0 {d} {g}\n" for q, docs in grades.items() for d, g in docs.items()),
    )
    run_path = write(
        "x.run",
        "".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in run.items() for d, s in docs.items()),
    )
    _, questions = _scored(ragguard_cli, tmp_path, qrels_path, run_path)
    assert questions["q1"]["relevant"] == {"d1": 0, "d2": 1, "d3": 2}
    reference = pytrec_eval.RelevanceEvaluator(
        grades, {"recip_rank", "ndcg_cut.10", "map_cut.100"}
    ).evaluate(run)
    for query, values in reference.items():
        metrics = questions[query]["metrics"]
        assert metrics["mrr"] == pytest.approx(values["recip_rank"], abs=1e-12)
        assert metrics["ndcg@10"] == pytest.approx(values["ndcg_cut_10"], abs=1e-12)
        assert metrics["map@100"] == pytest.approx(values["map_cut_100"], abs=1e-12)


def test_run_queries_without_judgments_give_one_warning(ragguard_cli, write, tmp_path):
    qrels = write("x.qrels", "q1 0 d1 1\n")
    run = write("x.run", "q1 Q0 d1 1 2.0 t\nq7 Q0 d1 1 1.0 t\nq8 Q0 d1 1 1.0 t\n")
    result, questions = _scored(ragguard_cli, tmp_path, qrels, run)
    assert result.stderr.splitlines() == [
        f"ragguard: warning: {run}: 2 queries of the run are not in the qrels and not scored, "
        "as trec_eval does"
    ]
    assert list(questions) == ["q1"]


@pytest.mark.parametrize("content", ["", "\n \n", "# only a comment\n"])
def test_a_qrels_file_without_judgments_is_an_error(cli_error, write, content):
    qrels = write("x.qrels", content)
    run = write("x.run", "q1 Q0 d1 1 2.0 t\n")
    cli_error(["score", "--qrels", qrels, "--trec-run", run], f"{qrels}: qrels file is empty")


def test_the_list_of_other_spaces_is_complete():
    """Every character str.split() splits on that C's isspace does not: the fast reader
    sends a block holding any of them to the exact reader."""
    ascii_spaces = set(" \t\n\r\x0b\x0c")
    others = {chr(c) for c in range(0x110000) if chr(c).isspace()} - ascii_spaces
    assert others == set(trec.CONTROL_SPACES + trec.UNICODE_SPACES)


def _random_run(seed: int) -> tuple[str, dict[str, dict[str, float]]]:
    """A run with tied scores, blank and CRLF lines, extra columns, signed ranks, and
    (every other seed) queries whose lines are interleaved."""
    rng = random.Random(seed)
    scores = {
        f"q{q}": {f"d{rng.randrange(40)}": rng.choice((1.0, 2.5, -0.5, 3.0)) for _ in range(15)}
        for q in range(12)
    }
    lines = [
        f"{q} Q0 {d} {rng.choice(('1', '+2', '-3'))} {s!r} tag"
        + rng.choice(("", " extra", "\r", "  "))
        + "\n"
        + rng.choice(("", "", "\n", " \n"))
        for q, docs in scores.items()
        for d, s in docs.items()
    ]
    if seed % 2:
        rng.shuffle(lines)
    return "".join(lines), scores


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("block", [64, 1 << 14])
def test_the_fast_reader_agrees_with_the_exact_one_and_pytrec_eval(write, monkeypatch, seed, block):
    """Small blocks put queries across block boundaries; interleaved queries, ties and
    odd lines go through whichever reader handles them, with the same result."""
    monkeypatch.setattr(trec, "BLOCK_BYTES", block)
    text, scores = _random_run(seed)
    rankings = load_trec_rankings(write("x.run", text))
    exact = parse_trec_run(text, "x.run")
    assert rankings == {q: tuple(r.retrieved_ids) for q, r in exact.records.items()}
    labels = {q: {d: 1 for d in list(docs)[:3]} for q, docs in scores.items()}
    theirs = pytrec_eval.RelevanceEvaluator(labels, {"recip_rank"}).evaluate(scores)
    for query, ranking in rankings.items():
        first = next(rank for rank, doc in enumerate(ranking, 1) if doc in labels[query])
        assert 1 / first == pytest.approx(theirs[query]["recip_rank"], abs=1e-12)


def test_a_bom_and_a_missing_final_newline_are_fine(write):
    path = write("x.run", "\ufeffq1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t")
    assert load_trec_rankings(path) == {"q1": ("d1", "d2")}


MEMORY_CHILD = """
import resource, sys
from ragguard.cli.app import main
with open("/proc/self/status") as status:
    size = next(int(line.split()[1]) for line in status if line.startswith("VmSize:")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + 48 * 2**20, resource.RLIM_INFINITY))
sys.argv = ["ragguard", "score", "--qrels", sys.argv[1], "--trec-run", sys.argv[2]]
main()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc and RLIMIT_AS")
def test_running_out_of_memory_while_reading_is_one_line_naming_the_file(tmp_path, write):
    """A real shortage: the child may map only 48 MiB more than it has after its imports,
    and the run's ids need several times that."""
    qrels = write("x.qrels", "q0 0 d0-1 1\n")
    run = tmp_path / "x.run"
    with run.open("w") as file:
        for query in range(20_000):
            file.write("".join(f"q{query} Q0 d{query}-{r} {r} {100 - r} t\n" for r in range(100)))
    completed = subprocess.run(
        [sys.executable, "-c", MEMORY_CHILD, str(qrels), str(run)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 2, completed.stderr[-2000:]
    assert completed.stderr.splitlines() == [
        f"ragguard: error: {run}: out of memory reading the run file; split it into smaller "
        "files or give the job more memory"
    ]


def test_cuts_fall_between_queries_and_the_parts_read_the_whole_run(tmp_path):
    _, run = write_trec(tmp_path)
    data = run.read_bytes()
    for parts in (2, 3, 4, 8):
        cuts = query_cuts(run, parts)
        assert cuts[0] == 0 and cuts[-1] == len(data) and cuts == sorted(set(cuts))
        for cut in cuts[1:-1]:
            before = data[:cut].splitlines()[-1].split()[0]
            assert data[cut - 1 : cut] == b"\n" and data[cut:].split()[0] != before
        merged: dict[str, tuple[str, ...]] = {}
        for start, stop in pairwise(cuts):
            part = rankings_between(run, start, stop)
            assert part is not None and not set(part) & set(merged)
            merged |= part
        assert merged == load_trec_rankings(run)


def test_a_run_of_one_query_is_one_part(tmp_path):
    run = tmp_path / "r.run"
    run.write_text("".join(f"q1 Q0 d{i} {i} {100 - i} t\n" for i in range(1, 60)))
    assert query_cuts(run, 4) == [0, run.stat().st_size]


@pytest.mark.parametrize("rank", ["\u00b2", "1.0", "first", "9" * 4301, "-"])
def test_the_rank_column_is_ignored_as_trec_eval_ignores_it(tmp_path, rank: str) -> None:
    """trec_eval and pytrec_eval never read the rank: a run whose ranks are not numbers
    scores as the same run with numbers (it was refused)."""
    import pytrec_eval

    from ragguard.testset.formats.trec_runs import load_trec_rankings

    lines = [f"q1 Q0 d{i} {rank} {score} t" for i, score in ((1, 0.5), (2, 2.0), (3, 1.0))]
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with path.open(encoding="utf-8") as handle:
        reference = pytrec_eval.parse_run(handle)

    assert reference == {"q1": {"d1": 0.5, "d2": 2.0, "d3": 1.0}}
    assert load_trec_rankings(path) == {"q1": ("d2", "d3", "d1")}
