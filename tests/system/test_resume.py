"""`ragguard run --resume`: a run that died mid-way is finished without asking twice.

The system is a real Python module run by a real `ragguard run` subprocess. It appends each
question id to ``asked.log`` when called and to ``answered.log`` when it returns, so the
test counts the system's work from the outside.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from ragguard.results.io import load_results
from ragguard.results.records import load_run

QUESTIONS = 12
STOP_AT = 7  # the 7th question asked kills (or blocks) the first run

SYSTEM = f"""\
import os, pathlib, time

HERE = pathlib.Path(__file__).parent

def _log(name, id):
    with open(HERE / name, "a") as f:
        f.write(id + "\\n")

def answer(question, id):
    _log("asked.log", id)
    asked = len((HERE / "asked.log").read_text().split())
    mode = (HERE / "mode").read_text().strip()
    if asked == {STOP_AT} and mode == "exit":
        os._exit(9)
    if asked == {STOP_AT} and mode == "block":
        time.sleep(600)
    if id == "q3" and mode != "healthy":
        raise RuntimeError("flaky retriever")
    _log("answered.log", id)
    return {{"retrieved": ["c" + id[1:]], "answer": "Answer to " + id}}
"""


def write_suite(folder: Path, mode: str, module: str = "resumable_rag") -> Path:
    """The suite; in-process tests pass a fresh ``module`` name (imports are cached)."""
    (folder / f"{module}.py").write_text(SYSTEM)
    (folder / "mode").write_text(mode)
    lines = [
        json.dumps({"id": f"q{n}", "question": f"Q{n}?", "relevant": {f"c{n}": 1}})
        for n in range(QUESTIONS)
    ]
    (folder / "testset.jsonl").write_text("\n".join(lines) + "\n")
    config = folder / "ragguard.yml"
    config.write_text(
        f"suite: resumable\ntestset: testset.jsonl\nsystem:\n  python: {module}:answer\n"
        "  concurrency: 1\n  max_error_rate: 0.5\nmetrics: [hit_rate@1]\n"
    )
    return config


def ragguard(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "ragguard", *(str(arg) for arg in args)]


def wait_for_records(path: Path, count: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if path.exists() and path.read_text().count("\n") >= count:
            return
        time.sleep(0.02)
    raise AssertionError(f"{path} never reached {count} records: {process.communicate()}")


def lines(path: Path) -> list[str]:
    return path.read_text().split()


@pytest.mark.e2e
@pytest.mark.parametrize("death", ["exit", "block"])
def test_resume_finishes_a_killed_run_without_asking_twice(tmp_path: Path, death: str) -> None:
    config = write_suite(tmp_path, death)
    out = tmp_path / "results.json"
    records = tmp_path / "results.run.jsonl"
    first = subprocess.Popen(
        ragguard("run", "-c", config, "--out", out),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if death == "block":  # the test kills it once the records of the first 6 are on disk
        wait_for_records(records, STOP_AT - 1, first)
        os.kill(first.pid, signal.SIGKILL)
    first.communicate(timeout=60)
    assert first.returncode != 0
    assert not out.exists()
    kept = [json.loads(line) for line in records.read_text().splitlines()]
    assert [record["id"] for record in kept] == [f"q{n}" for n in range(STOP_AT - 1)]
    assert [record["id"] for record in kept if record["error"]] == ["q3"]

    (tmp_path / "mode").write_text("healthy")
    second = subprocess.run(
        ragguard("run", "-c", config, "--out", out, "--resume"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert second.returncode == 0, second.stderr
    assert f"resuming: {STOP_AT - 2} of {QUESTIONS} questions already done" in second.stderr

    answered = Counter(lines(tmp_path / "answered.log"))
    assert sorted(answered) == sorted(f"q{n}" for n in range(QUESTIONS))
    assert set(answered.values()) == {1}, answered  # no question answered twice
    asked_twice = {qid for qid, n in Counter(lines(tmp_path / "asked.log")).items() if n > 1}
    assert asked_twice == {"q3", f"q{STOP_AT - 1}"}  # the failed one, the one it died on

    results = load_results(out)
    assert results.counts["ok"] == QUESTIONS
    assert [q.id for q in results.questions] == [f"q{n}" for n in range(QUESTIONS)]
    assert list(load_run(records).records) == [f"q{n}" for n in range(QUESTIONS)]


def test_resume_refuses_records_of_another_shard(
    tmp_path: Path, ragguard_cli, module_name: str
) -> None:
    config = write_suite(tmp_path, "healthy", module_name)
    out = tmp_path / "results.json"
    result = ragguard_cli("run", "-c", config, "--out", out, "--shard", "1/2")
    assert result.exit_code == 0, result.output
    result = ragguard_cli("run", "-c", config, "--out", out, "--shard", "2/2", "--resume")
    assert result.exit_code == 2
    assert "which this run does not ask (another --shard or test set?)" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_resume_drops_a_line_cut_short_by_a_crash(
    tmp_path: Path, ragguard_cli, module_name: str
) -> None:
    config = write_suite(tmp_path, "healthy", module_name)
    out = tmp_path / "results.json"
    records = tmp_path / "results.run.jsonl"
    done = json.dumps({"id": "q0", "retrieved": ["c0"], "answer": "kept"})
    records.write_text(done + '\n{"id": "q1", "retri')
    result = ragguard_cli("run", "-c", config, "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert "resuming: 1 of 12 questions already done" in result.stderr
    assert load_run(records).records["q0"].answer == "kept"
    assert lines(tmp_path / "answered.log").count("q0") == 0
    assert lines(tmp_path / "answered.log").count("q1") == 1
