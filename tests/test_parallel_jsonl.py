"""#28 item 13: a large JSON Lines run scored in parts, one forked process a part: the same
results file, byte for byte, and the same warnings as one process; `--processes` refused
where one process scores whatever it says; any doubt back to one process, which names the
error with its line."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from tests.conftest import assert_input_error

from ragguard.scoring import parallel as parallel_scoring
from ragguard.scoring import parallel_jsonl

METRICS = "ndcg@10,recall@5,mrr,hit_rate@3,precision@5,doc_recall@5"


def write_suite(folder: Path, questions: int = 300, seed: int = 11) -> tuple[Path, Path]:
    """A test set and its run with what a real run has: errors, missing questions, ids JSON
    escapes, unlabelled and unanswerable questions, a label no ranking holds, latency,
    usage, answers, documents, and CRLF line ends in places."""
    rng = random.Random(seed)
    testset, run = folder / "testset.yaml", folder / "run.jsonl"
    entries, lines = [], []
    for number in range(questions):
        qid = f"q{number}" if number % 19 else f'q"{number}\\'
        if number % 23 == 4:
            entries.append({"id": qid, "question": f"Q {number}?", "answerable": False})
        else:
            labels = {f"c{rng.randrange(400)}": rng.randint(1, 3) for _ in range(3)}
            if number == 7:
                labels["never-retrieved"] = 1
            entries.append({"id": qid, "question": f"Q {number}?", "relevant": labels})
        if number % 11 == 2:
            continue  # missing from the run
        retrieved = [
            {"id": f"c{chunk}", "doc": f"d{number % 9}", "score": 1 - i / 10}
            for i, chunk in enumerate(rng.sample(range(400), 8))
        ]
        record = {"id": qid, "retrieved": retrieved, "answer": f"Answer {number}."}
        if number % 13 == 5:
            record = {"id": qid, "retrieved": [], "error": "timeout after 30s"}
        if number % 5 == 1:
            record["latency_ms"] = rng.randint(100, 900)
            record["usage"] = {"prompt_tokens": 100 + number, "completion_tokens": 20}
        lines.append(json.dumps(record) + ("\r\n" if number % 17 == 3 else "\n"))
    rng.shuffle(lines)
    testset.write_text(json.dumps(entries), encoding="utf-8")  # JSON is YAML
    run.write_text("\ufeff" + "".join(lines), encoding="utf-8", newline="")
    return testset, run


@pytest.fixture
def split_small(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Parts of 4 KiB, on a machine of 4 cores; the parallel path's calls recorded."""
    monkeypatch.setattr(parallel_scoring, "PART_BYTES", 4096)
    monkeypatch.setattr(parallel_scoring, "available_processes", lambda: 4)
    calls: list[object] = []
    real = parallel_jsonl.score_jsonl_in_parts

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(real(*args, **kwargs))  # type: ignore[arg-type]
        return calls[-1]

    monkeypatch.setattr(parallel_jsonl, "score_jsonl_in_parts", counted)
    return calls


def _scored(ragguard_cli, testset: Path, run: Path, out: Path, processes: str):
    return ragguard_cli(
        "score", "--testset", testset, "--run", run, "--metrics", METRICS,
        "--out", out, "--processes", processes,
    )  # fmt: skip


def test_a_run_in_parts_is_the_single_process_results_byte_for_byte(
    tmp_path, split_small, ragguard_cli
):
    testset, run = write_suite(tmp_path)
    outputs = {}
    for processes in ("1", "3"):
        out = tmp_path / f"{processes}.json"
        result = _scored(ragguard_cli, testset, run, out, processes)
        assert result.exit_code == 0, result.output
        output = result.output.replace(str(out), "OUT")
        outputs[processes] = (output, result.stderr, _without_created_at(out))
    assert len(split_small) == 1 and split_small[0] is not None  # 3: in parts
    assert outputs["1"] == outputs["3"]
    assert "'never-retrieved' (question 'q7')" in outputs["3"][1]  # the same warning


def _without_created_at(path: Path) -> str:
    return "".join(
        line for line in path.read_text().splitlines(keepends=True) if '"created_at"' not in line
    )


@pytest.mark.parametrize(
    ("break_it", "fragments"),
    [
        (lambda lines: [*lines[:-3], "{not json\n", *lines[-3:]], ["invalid JSON"]),
        (lambda lines: [*lines, lines[0]], ["second entry for question"]),
        (
            lambda lines: [*lines, '{"id": "nobody", "retrieved": []}\n'],
            ["run entry for unknown question id 'nobody'"],
        ),
    ],
    ids=["bad-json-in-a-later-part", "an-entry-again-in-another-part", "unknown-id"],
)
def test_a_bad_line_in_a_childs_part_is_named_as_one_process_names_it(
    tmp_path, split_small, ragguard_cli, break_it, fragments
):
    testset, run = write_suite(tmp_path)
    lines = run.read_text(encoding="utf-8-sig").splitlines(keepends=True)
    run.write_text("".join(break_it(lines)), encoding="utf-8")
    errors = []
    for processes in ("1", "4"):
        result = _scored(ragguard_cli, testset, run, tmp_path / "out.json", processes)
        errors.append(assert_input_error(result.exit_code, result.stderr, str(run), *fragments))
    assert errors[0] == errors[1]
    assert split_small == [None]  # the parts were tried, then one process named the line
    assert not (tmp_path / "out.json").exists()


def test_cuts_fall_at_line_ends_and_cover_the_file(tmp_path, monkeypatch):
    _, run = write_suite(tmp_path)
    monkeypatch.setattr(parallel_scoring, "PART_BYTES", 4096)
    monkeypatch.setattr(parallel_scoring, "available_processes", lambda: 4)
    cuts = parallel_jsonl.line_cuts(run, None)
    data = run.read_bytes()
    assert cuts is not None and cuts[0] == 0 and cuts[-1] == len(data) and len(cuts) == 5
    assert all(data[cut - 1 : cut] == b"\n" for cut in cuts[1:-1])
    assert parallel_jsonl.line_cuts(run, 1) is None  # --processes 1


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        (["--metrics", "faithfulness"], "generation metrics"),
        (["--run", "run.jsonl"], "repeats (several --run files)"),
    ],
)
def test_processes_is_refused_where_one_process_scores_whatever_it_says(
    tmp_path, ragguard_cli, monkeypatch, extra, why
):
    monkeypatch.chdir(tmp_path)
    write_suite(tmp_path, questions=20)
    result = ragguard_cli(
        "score", "--testset", "testset.yaml", "--run", "run.jsonl", "--processes", "2", *extra
    )
    line = assert_input_error(result.exit_code, result.stderr, "--processes:", why)
    assert "drop --processes (or give 1)" in line


def test_processes_with_a_trec_run_and_generation_settings_is_refused(
    tmp_path, ragguard_cli, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 2.0 tag\n")
    (tmp_path / "corpus.jsonl").write_text('{"id": "d1", "text": "Text."}\n')
    result = ragguard_cli(
        "score", "--qrels", "q.qrels", "--trec-run", "r.run", "--corpus", "corpus.jsonl",
        "--processes", "2",
    )  # fmt: skip
    assert_input_error(result.exit_code, result.stderr, "--processes:", "--corpus")


@pytest.mark.parametrize(
    ("rewrite", "abstention"),
    [
        (lambda line: line, True),  # answers: the parts score abstention by default
        (lambda line: re.sub(r', "answer": "[^"]*"', "", line), False),
        (lambda line: re.sub(r'"answer": "[^"]*"', '"answer": null', line), False),
        (lambda line: line.replace('"answer"', '"\\u0061nswer"'), True),  # the guess is wrong
    ],
    ids=["answers", "no-answer-key", "answers-null", "answer-key-escaped"],
)
def test_abstention_by_default_is_scored_in_parts_as_one_process_scores_it(
    tmp_path, split_small, ragguard_cli, rewrite, abstention
):
    """#29 item 5: where the test set marks questions unanswerable, a run with answers gets
    abstention; in parts exactly as in one process, whatever the file's bytes suggest."""
    testset, run = write_suite(tmp_path)
    lines = run.read_text(encoding="utf-8").splitlines(keepends=True)
    run.write_text("".join(map(rewrite, lines)), encoding="utf-8", newline="")
    outputs = {}
    for processes in ("1", "3"):
        out = tmp_path / f"{processes}.json"
        result = _scored(ragguard_cli, testset, run, out, processes)
        assert result.exit_code == 0, result.output
        outputs[processes] = (result.output.replace(str(out), "OUT"), _without_created_at(out))
    assert outputs["1"] == outputs["3"]
    metrics = json.loads((tmp_path / "3.json").read_text())["metrics"]
    assert ("abstention" in metrics) is abstention
