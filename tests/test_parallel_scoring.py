"""A large TREC run scored in parts, one forked process a part: the same results file, byte
for byte, as one process; any doubt back to one process."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import assert_input_error

from ragguard.cli.options import parse_metrics_option
from ragguard.results.io import load_results, write_results
from ragguard.results.lines import LazyIds
from ragguard.scoring import parallel as parallel_scoring
from ragguard.scoring.parallel import planned_parts, score_run_in_parts
from ragguard.scoring.score import score_rankings
from ragguard.testset.formats.trec import load_qrels
from ragguard.testset.formats.trec_runs import load_trec_rankings, query_cuts

METRICS = "ndcg@10,recall@20,mrr,map,precision@5,hit_rate@3,judged@10"
CREATED = "2026-12-03T00:00:00+00:00"


def write_trec(
    folder: Path, queries: int = 240, docs: int = 30, seed: int = 7
) -> tuple[Path, Path]:
    """Qrels and a run with what a real run has: ids that JSON escapes, queries the run
    misses, run queries nobody judged, unsorted and tied scores, all-zero judgments."""
    rng = random.Random(seed)
    qrels, run = folder / "q.qrels", folder / "r.run"
    qrels_lines, run_lines = [], []
    for number in range(queries):
        query = f"q{number}"
        odd = number % 7 == 3  # ids with a quote or a backslash: not joined plainly
        ranked = [
            f"d{rng.randrange(500)}{chr(34) if odd and i % 5 == 0 else ''}" for i in range(docs)
        ]
        ranked = list(dict.fromkeys(ranked))
        if odd:
            ranked[0] = "d\\x" + ranked[0]
        judged = [*rng.sample(ranked, 3), f"x{rng.randrange(500)}"]
        grades = [0, 0, 0, 0] if number % 17 == 5 else [rng.randint(0, 3) for _ in judged]
        if number % 13 != 4:  # q4, q17, ...: in the run, not in the qrels
            qrels_lines += [
                f"{query} 0 {doc} {grade}"
                for doc, grade in dict(zip(judged, grades, strict=True)).items()
            ]
        if number % 11 == 2:  # q2, q13, ...: judged, missing from the run
            continue
        scores = [round(rng.uniform(0, 5), 1) for _ in ranked]  # ties, in no order
        if number % 3:
            scores.sort(reverse=True)
        run_lines += [
            f"{query} Q0 {doc} {rank} {score} tag"
            for rank, (doc, score) in enumerate(zip(ranked, scores, strict=True), 1)
        ]
    qrels.write_text("\n".join(qrels_lines) + "\n")
    run.write_text("\n".join(run_lines) + "\n")
    return qrels, run


def sequential_file(qrels: Path, run: Path, out: Path) -> bytes:
    specs = parse_metrics_option(METRICS)
    results = score_rankings(
        load_qrels(qrels), load_trec_rankings(run), specs, suite="s", created_at=CREATED
    )
    write_results(results, out)
    return out.read_bytes()


def parallel(qrels: Path, run: Path, parts: int) -> parallel_scoring.ScoredRun | None:
    cuts = query_cuts(run, parts)
    assert len(cuts) == parts + 1, cuts
    specs = parse_metrics_option(METRICS)
    return score_run_in_parts(load_qrels(qrels), run, cuts, specs, suite="s", created_at=CREATED)


def assert_no_child_left() -> None:
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


@pytest.mark.parametrize("parts", [2, 3, 5])
def test_the_results_file_is_the_single_process_file_byte_for_byte(tmp_path, parts):
    qrels, run = write_trec(tmp_path)
    expected = sequential_file(qrels, run, tmp_path / "one.json")
    scored = parallel(qrels, run, parts)
    assert scored is not None
    write_results(scored.results, tmp_path / "parts.json", scored.lines)
    assert (tmp_path / "parts.json").read_bytes() == expected
    assert len(scored.lines) > 0  # the children's lines were written as they sent them
    assert sorted(scored.run_queries) == sorted(load_trec_rankings(run))
    assert_no_child_left()


def test_the_childrens_questions_equal_the_single_process_questions(tmp_path):
    qrels, run = write_trec(tmp_path)
    specs = parse_metrics_option(METRICS)
    one = score_rankings(load_qrels(qrels), load_trec_rankings(run), specs, suite="s")
    scored = parallel(qrels, run, 3)
    assert scored is not None
    lazy = [q for q in scored.results.questions if isinstance(q.retrieved, LazyIds)]
    assert lazy, "the children's plain ids are kept as the text of their line"
    for mine, theirs in zip(scored.results.questions, one.questions, strict=True):
        assert tuple(mine.retrieved) == tuple(theirs.retrieved)
        assert (mine.metrics, mine.status, mine.fingerprint, mine.judgments) == (
            theirs.metrics,
            theirs.status,
            theirs.fingerprint,
            theirs.judgments,
        )


def test_a_file_written_in_parts_loads_like_any_other(tmp_path):
    qrels, run = write_trec(tmp_path)
    scored = parallel(qrels, run, 2)
    assert scored is not None
    path = write_results(scored.results, tmp_path / "parts.json", scored.lines)
    loaded = load_results(path)
    assert [q.metrics for q in loaded.questions] == [q.metrics for q in scored.results.questions]


def test_a_part_the_fast_reader_cannot_read_sends_the_run_back_to_one_process(tmp_path):
    qrels, run = write_trec(tmp_path)
    lines = run.read_text().splitlines(keepends=True)
    lines[-3] = lines[-3].replace(" Q0 ", "\u00a0Q0 ", 1)  # a no-break space: part of an id
    run.write_text("".join(lines))
    assert parallel(qrels, run, 3) is None
    lines[2] = lines[2].replace(" Q0 ", "\u00a0Q0 ", 1)  # this process's own part
    run.write_text("".join(lines))
    assert parallel(qrels, run, 3) is None
    assert_no_child_left()


def test_a_query_whose_lines_fall_in_two_parts_sends_the_run_back(tmp_path):
    qrels, run = write_trec(tmp_path)
    first = run.read_text().splitlines(keepends=True)[0]
    with run.open("a") as file:
        file.write(first.replace(" Q0 d", " Q0 again-d", 1))  # q0 again, at the very end
    assert parallel(qrels, run, 2) is None


def test_a_child_killed_midway_sends_the_run_back_and_is_reaped(tmp_path, monkeypatch):
    qrels, run = write_trec(tmp_path)

    def killed(*_args: object) -> None:
        os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer would

    monkeypatch.setattr(parallel_scoring, "_score_part", killed)
    assert parallel(qrels, run, 3) is None
    assert_no_child_left()


def test_children_are_killed_and_reaped_when_this_process_is_interrupted(tmp_path):
    qrels, run = write_trec(tmp_path)
    specs = parse_metrics_option(METRICS)
    cuts = query_cuts(run, 3)
    testset = load_qrels(qrels)
    children = parallel_scoring.forked_parts(
        lambda start, stop: parallel_scoring._score_part(testset, run, start, stop, specs),
        cuts[1:],
    )
    with pytest.raises(KeyboardInterrupt), children as started:
        assert len(started) == 2
        raise KeyboardInterrupt
    assert_no_child_left()


def test_one_process_when_asked_or_when_the_file_is_small(tmp_path, monkeypatch):
    _, run = write_trec(tmp_path)
    assert planned_parts(run, 1) is None
    assert planned_parts(run, None) is None  # far below a part's size
    monkeypatch.setattr(parallel_scoring, "PART_BYTES", run.stat().st_size // 5)
    monkeypatch.setattr(parallel_scoring, "available_processes", lambda: 4)
    cuts = planned_parts(run, None)
    assert cuts is not None and len(cuts) == 5
    assert len(planned_parts(run, 3) or []) == 4
    assert planned_parts(tmp_path / "missing.run", 3) is None
    monkeypatch.setattr(parallel_scoring, "available_processes", lambda: 1)
    assert planned_parts(run, 3) is None  # no fork or one core


def test_the_score_command_splits_a_large_run(tmp_path, monkeypatch, ragguard_cli):
    qrels, run = write_trec(tmp_path)
    monkeypatch.setattr(parallel_scoring, "PART_BYTES", 4096)
    monkeypatch.setattr(parallel_scoring, "available_processes", lambda: 2)  # a 1-core runner
    calls = []
    real = parallel_scoring.score_run_in_parts

    def counted(*args, **kwargs):
        calls.append(real(*args, **kwargs))
        return calls[-1]

    monkeypatch.setattr(parallel_scoring, "score_run_in_parts", counted)
    outputs = {}
    for processes in ("1", "3"):
        out = tmp_path / f"{processes}.json"
        result = ragguard_cli(
            "score", "--qrels", qrels, "--trec-run", run, "--metrics", METRICS,
            "--out", out, "--processes", processes,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        output = result.output.replace(str(out), "OUT")
        outputs[processes] = (output, result.stderr, _without_created_at(out))
    assert len(calls) == 1 and calls[0] is not None
    assert outputs["1"] == outputs["3"]
    assert "not in the qrels and not scored" in outputs["3"][1]


def _without_created_at(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if '"created_at"' not in line]


def test_a_bad_line_in_a_childs_part_is_named_as_one_process_names_it(
    tmp_path, monkeypatch, ragguard_cli
):
    qrels, run = write_trec(tmp_path)
    lines = run.read_text().splitlines(keepends=True)
    number = len(lines) - 5
    fields = lines[number - 1].split()
    fields[4] = "high"
    lines[number - 1] = " ".join(fields) + "\n"
    run.write_text("".join(lines))
    monkeypatch.setattr(parallel_scoring, "PART_BYTES", 4096)
    for processes in ("1", "4"):
        result = ragguard_cli(
            "score", "--qrels", qrels, "--trec-run", run, "--processes", processes
        )
        assert_input_error(result.exit_code, result.stderr, f"r.run:{number}:", "'high'")


def test_a_real_process_splits_a_run_above_two_parts_and_writes_the_same_file(tmp_path):
    qrels, run = write_trec(tmp_path, queries=5000, docs=100)
    assert run.stat().st_size > 2 * parallel_scoring.PART_BYTES
    command = [sys.executable, "-m", "ragguard", "score", "--qrels", str(qrels)]
    command += ["--trec-run", str(run), "--metrics", METRICS]
    files = []
    for extra in ([], ["--processes", "1"]):
        out = tmp_path / f"out{len(files)}.json"
        done = subprocess.run(
            [*command, "--out", str(out), *extra], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        files.append(_without_created_at(out))
    assert files[0] == files[1]
