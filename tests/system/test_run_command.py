"""`ragguard run`: config in, run records + results on disk, table out."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragguard.results.io import load_results
from ragguard.results.records import load_run

MODULE = """\
def answer(question, id):
    if id == "page":
        raise RuntimeError("retriever offline")
    return {"retrieved": ["authentication", "rate-limits"], "answer": "A " + id}
"""


def write_suite(folder: Path, system: str, *, max_error_rate: float = 0.5) -> Path:
    config = folder / "ragguard.yml"
    config.write_text(
        f"suite: orders\ntestset: testset.yaml\nsystem:\n{system}\n"
        f"  max_error_rate: {max_error_rate}\nmetrics: [hit_rate@1, mrr]\n",
        encoding="utf-8",
    )
    return config


def test_run_writes_records_and_results_and_prints_the_table(
    suite_dir: Path, module_name: str, ragguard_cli
) -> None:
    (suite_dir / f"{module_name}.py").write_text(MODULE)
    config = write_suite(suite_dir, f"  python: {module_name}:answer")
    out = suite_dir / "out" / "orders.json"
    result = ragguard_cli("run", "-c", config, "--out", out)
    assert result.exit_code == 0, result.output
    assert "suite orders · 3 questions: 2 ok, 1 error" in result.stdout
    assert "error: page: RuntimeError: retriever offline" in result.stdout
    assert "run verdict: ok: 1/3 questions failed (33.3%), within max_error_rate 50.0%" in (
        result.stdout
    )
    results = load_results(out)
    assert results.suite == "orders"
    assert results.config == {"system": {"kind": "python", "target": f"{module_name}:answer"}}
    assert results.summary["hit_rate@1"].value == pytest.approx(1 / 3)
    assert results.by_id["page"].error == f"RuntimeError: retriever offline ({module_name}.py:3)"
    run = load_run(suite_dir / "out" / "orders.run.jsonl")
    assert run.records["auth"].answer == "A auth"
    assert run.records["page"].error == results.by_id["page"].error


def test_too_many_errors_exit_3_but_results_are_written(
    suite_dir: Path, module_name: str, ragguard_cli
) -> None:
    (suite_dir / f"{module_name}.py").write_text(MODULE)
    config = write_suite(suite_dir, f"  python: {module_name}:answer", max_error_rate=0.1)
    out = suite_dir / "results.json"
    result = ragguard_cli("run", "-c", config, "--out", out)
    assert result.exit_code == 3
    assert "run verdict: error: 1/3 questions failed (33.3%), above max_error_rate 10.0%" in (
        result.stdout
    )
    assert load_results(out).counts["error"] == 1


def test_secrets_never_reach_results_records_or_output(
    suite_dir: Path, rag_server, ragguard_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "tok-9f8e7d6c5b4a"
    monkeypatch.setenv("RAG_TOKEN", secret)
    rag_server.script = {"page": ["500"]}  # the server echoes the Authorization header
    config = write_suite(
        suite_dir,
        f"  http: {rag_server.url}/ask\n"
        '  headers: {Authorization: "Bearer ${RAG_TOKEN}"}\n'
        "  retries: 0\n"
        "  response: {retrieved: data.results, id: doc_id}",
    )
    out = suite_dir / "results.json"
    result = ragguard_cli("run", "-c", config, "--out", out)
    assert result.exit_code == 0, result.output
    assert rag_server.seen[0]["headers"]["Authorization"] == f"Bearer {secret}"
    for path in suite_dir.iterdir():
        if path.is_file():
            assert secret not in path.read_text(encoding="utf-8"), path
    assert secret not in result.output
    assert "auth=Bearer ***" in load_results(out).by_id["page"].error


def test_command_stderr_goes_to_the_log(suite_dir: Path, ragguard_cli) -> None:
    (suite_dir / "rag.py").write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    q = json.loads(line)\n"
        "    print('thinking about', q['id'], file=sys.stderr)\n"
        "    print(json.dumps({'id': q['id'], 'retrieved': ['pagination']}))\n"
    )
    config = write_suite(suite_dir, f"  command: [{json.dumps(sys.executable)}, rag.py]")
    out = suite_dir / "results.json"
    result = ragguard_cli("run", "-c", config, "--out", out)
    assert result.exit_code == 0, result.output
    log = (suite_dir / "results.log").read_text(encoding="utf-8").splitlines()
    assert log == ["thinking about auth", "thinking about rate", "thinking about page"]
    assert "system log to" in result.stdout


def test_bad_config_and_stale_recorded_runs_are_one_line_errors(suite_dir: Path, cli_error) -> None:
    config = write_suite(suite_dir, "  pyhton: app:answer")
    cli_error(["run", "-c", config], "ragguard.yml:4: system.pyhton:", "did you mean 'python'")
    (suite_dir / "run.jsonl").write_text('{"id": "ghost", "retrieved": []}\n')
    config = write_suite(suite_dir, "  recorded: run.jsonl")
    cli_error(["run", "-c", config, "--out", suite_dir / "r.json"], "unknown question id 'ghost'")
    cli_error(["run", "-c", suite_dir / "missing.yml"], "config file not found")


@pytest.mark.e2e
def test_ctrl_c_writes_what_is_done(suite_dir: Path, ragguard_process) -> None:
    marker = suite_dir / "started"
    (suite_dir / "slow_rag.py").write_text(
        "import pathlib, time\n"
        "def answer(question, id):\n"
        "    if id != 'auth':\n"
        f"        pathlib.Path({str(marker)!r}).write_text(id)\n"
        "        time.sleep(60)\n"
        "    return {'retrieved': ['authentication'], 'answer': 'ok'}\n"
    )
    config = write_suite(suite_dir, "  python: slow_rag:answer\n  concurrency: 1")
    out = suite_dir / "results.json"
    script = Path(sys.executable).parent / "ragguard"
    process = subprocess.Popen(
        [str(script), "run", "-c", str(config), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), process.communicate(timeout=5)
    os.kill(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "interrupted: 1 of 3 questions done" in stderr
    results = load_results(out)
    assert results.by_id["auth"].status == "ok"
    assert results.by_id["rate"].status == "missing"
    assert list(load_run(suite_dir / "results.run.jsonl").records) == ["auth"]


SEED_RAG = """\
CALLS = []

def answer(question, id):
    CALLS.append(id)
    if id == "page":
        raise RuntimeError("retriever offline")
    return {
        "retrieved": [{"id": "rate-limits", "text": "Each API key may send 100 requests per "
                       "minute. Extra requests return status 429 with a Retry-After header."}],
        "answer": "You can send 100 requests per minute per API key. Extra requests return "
                  "status 429. Limits reset every hour.",
    }
"""


def test_generation_metrics_are_scored_from_the_config(
    suite_dir: Path, module_name: str, ragguard_cli
) -> None:
    (suite_dir / f"{module_name}.py").write_text(SEED_RAG)
    config = suite_dir / "ragguard.yml"
    config.write_text(
        f"suite: orders\ntestset: testset.yaml\nsystem:\n  python: {module_name}:answer\n"
        "  max_error_rate: 0.5\nmetrics: [hit_rate@1, faithfulness]\n"
        "faithfulness: {method: lexical, threshold: 0.75}\n"
    )
    out = suite_dir / "results.json"
    result = ragguard_cli("run", "-c", config, "--out", out)
    assert result.exit_code == 0, result.output
    results = load_results(out)
    rate = results.by_id["rate"]
    assert rate.metrics["faithfulness"] == pytest.approx(2 / 3)  # the seed's example
    assert [s.supported for s in rate.sentences] == [True, True, False]
    assert results.by_id["page"].status == "error"
    assert results.config["system"] == {"kind": "python", "target": f"{module_name}:answer"}
    assert results.config["faithfulness"] == {"method": "lexical", "threshold": 0.75}


def test_a_bad_generation_section_stops_before_the_system_runs(
    suite_dir: Path, module_name: str, cli_error
) -> None:
    marker = suite_dir / "called"
    (suite_dir / f"{module_name}.py").write_text(
        f"def answer(q):\n    open({str(marker)!r}, 'w').close()\n    return {{}}\n"
    )
    config = suite_dir / "ragguard.yml"
    config.write_text(
        f"testset: testset.yaml\nsystem:\n  python: {module_name}:answer\n"
        "metrics: [faithfulness]\nfaithfulness: {method: guess}\n"
    )
    cli_error(["run", "-c", config, "--out", suite_dir / "r.json"], "faithfulness")
    assert not marker.exists()


CRASH = "import sys\nsys.argv[1]\nraise RuntimeError('index missing')\n"


def test_a_crashing_command_prints_its_error_once_with_a_count(
    suite_dir: Path, ragguard_cli
) -> None:
    (suite_dir / "crash.py").write_text(CRASH)
    command = f"  command: [{json.dumps(sys.executable)}, crash.py, '{{id}}']\n  concurrency: 1"
    config = write_suite(suite_dir, command, max_error_rate=1.0)
    out = suite_dir / "results.json"
    result = ragguard_cli("run", "-c", config, "--out", out)
    assert result.exit_code == 0, result.output
    message = "command exited with status 1: RuntimeError: index missing"
    assert f"error (3 questions): {message}\n  auth, rate, page\n" in result.stdout
    assert result.stdout.count("index missing") == 1
    log = (suite_dir / "results.log").read_text(encoding="utf-8").splitlines()
    assert log[0] == "[auth] Traceback (most recent call last):"
    assert sum("Traceback" in line for line in log) == 1
    lines = len([line for line in log if line.startswith("[auth]")])
    assert f"[rate] stderr: the same {lines} line(s) as [auth]" in log
    assert f"[page] stderr: the same {lines} line(s) as [auth]" in log
    assert log[-2:] == [f"error (3 questions): {message}", "  auth, rate, page"]


DOWN_AFTER_THREE = """\
import pathlib, time

CALLS = []

def answer(question, id):
    CALLS.append(id)
    if len(CALLS) > 3:  # held until the run has journalled the 16 questions it did not ask
        journal = pathlib.Path(__file__).with_name("results.run.jsonl")
        for _ in range(3000):
            if journal.exists() and len(journal.read_text().splitlines()) >= 19:
                break
            time.sleep(0.01)
    raise ConnectionRefusedError("connection refused")
"""


def test_the_run_stops_early_once_its_verdict_is_certain(
    suite_dir: Path, module_name: str, ragguard_cli
) -> None:
    (suite_dir / "testset.yaml").write_text(
        "".join(f"- id: q{i:02d}\n  question: question {i}\n  relevant: [c]\n" for i in range(20))
    )
    (suite_dir / f"{module_name}.py").write_text(DOWN_AFTER_THREE)
    config = write_suite(
        suite_dir,
        f"  python: {module_name}:answer\n  concurrency: 1\n  retries: 0",
        max_error_rate=0.1,
    )
    out = suite_dir / "results.json"
    result = ragguard_cli("run", "-c", config, "--out", out)
    assert result.exit_code == 3, result.output
    assert sys.modules[module_name].CALLS == ["q00", "q01", "q02", "q03"]
    stopped = [line for line in result.stderr.splitlines() if "stopped early" in line]
    assert stopped == [
        "ragguard: stopped early: 4 of 20 questions failed, more than max_error_rate 10.0% "
        "allows, so the verdict is error whatever the rest does; 16 questions were not run "
        "(recorded as errors)"
    ]
    assert "run verdict: error: 20/20 questions failed (100.0%)" in result.stdout
    results = load_results(out)
    assert results.counts["error"] == 20 and results.counts["ok"] == 0
    not_run = results.by_id["q19"]
    assert not_run.status == "error"
    assert (not_run.error or "").startswith("not run: the run stopped early after 3 of 20")
    assert (
        results.by_id["q03"].error
        == f"ConnectionRefusedError: connection refused ({module_name}.py:13)"
    )
    assert "error (16 questions): not run: the run stopped early" in result.stdout


def test_a_closed_stdout_exits_141_quietly_after_writing_the_results(
    suite_dir: Path, module_name: str
) -> None:
    (suite_dir / f"{module_name}.py").write_text(MODULE)
    config = write_suite(suite_dir, f"  python: {module_name}:answer")
    out = suite_dir / "results.json"
    script = Path(sys.executable).parent / "ragguard"
    reader, writer = os.pipe()
    os.close(reader)  # like `| head -1` once head has gone: every write to stdout fails
    try:
        completed = subprocess.run(
            [str(script), "run", "-c", str(config), "--out", str(out)],
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(writer)
    assert completed.returncode == 141, completed.stderr
    assert "Traceback" not in completed.stderr
    assert "Exception ignored" not in completed.stderr
    assert "ragguard: error" not in completed.stderr
    assert load_results(out).counts["ok"] == 2


def test_a_resumed_run_stops_early_on_the_whole_test_sets_allowance(
    suite_dir: Path, module_name: str, ragguard_cli
) -> None:
    (suite_dir / "testset.yaml").write_text(
        "".join(f"- id: q{i:02d}\n  question: question {i}\n  relevant: [c]\n" for i in range(20))
    )
    (suite_dir / f"{module_name}.py").write_text(DOWN_AFTER_THREE)
    config = write_suite(
        suite_dir,
        f"  python: {module_name}:answer\n  concurrency: 1\n  retries: 0",
        max_error_rate=0.1,
    )
    earlier = [{"id": f"q{i:02d}", "retrieved": ["c"], "answer": "a"} for i in range(2)]
    (suite_dir / "results.run.jsonl").write_text("".join(json.dumps(r) + "\n" for r in earlier))
    out = suite_dir / "results.json"
    result = ragguard_cli("run", "-c", config, "--out", out, "--resume")
    assert result.exit_code == 3, result.output
    # 2 of the 20 may fail (not 1 of the 18 asked): the third failure stops the run
    assert sys.modules[module_name].CALLS == ["q02", "q03", "q04", "q05"]
    assert "14 questions were not run (recorded as errors)" in result.stderr
    results = load_results(out)
    assert results.counts == {**results.counts, "ok": 2, "error": 18}
    assert (results.by_id["q06"].error or "").startswith(
        "not run: the run stopped early after 3 of 20 questions failed"
    )


SURROGATE_MODULE = """\
def answer(question, id):
    if id == "auth":
        return {"retrieved": ["authentication"], "answer": "Send the key \\ud800 first."}
    if id == "rate":
        return {"retrieved": [{"id": "rate-limits", "text": "100 \\udfff"}], "answer": "100."}
    raise ValueError("index \\udc80 not loaded")
"""


def test_a_python_systems_lone_surrogate_fails_its_question_and_every_report_is_written(
    suite_dir: Path, module_name: str, ragguard_cli
) -> None:
    """docs/formats.md, "Decisions the formats leave open": a lone surrogate in what a python
    system returns fails that question like any malformed output; its exception's words
    are shown escaped. Results, run records and every report are then written."""
    (suite_dir / f"{module_name}.py").write_text(SURROGATE_MODULE)
    config = write_suite(suite_dir, f"  python: {module_name}:answer", max_error_rate=1.0)
    head = suite_dir / "head.json"
    result = ragguard_cli("run", "-c", config, "--out", head)
    assert result.exit_code == 0, result.output
    errors = {q.id: q.error for q in load_results(head).questions}
    target = f"{module_name}:answer returned"
    assert errors["auth"] == (
        f"{target}: answer holds a lone surrogate \\ud800, half of a UTF-16 pair and not a "
        "character; return whole characters"
    )
    assert errors["rate"].startswith(f"{target}: retrieved[0].text holds a lone surrogate \\udfff")
    assert errors["page"] == f"ValueError: index \\udc80 not loaded ({module_name}.py:6)"
    run = load_run(suite_dir / "head.run.jsonl")
    assert run.records["page"].error == errors["page"]
    reports = {name: suite_dir / name for name in ("c.md", "s.md", "j.xml", "c.json")}
    compared = ragguard_cli(
        "compare", head, head, "-c", config,
        "--markdown", reports["c.md"], "--summary", reports["s.md"],
        "--junit", reports["j.xml"], "--json", reports["c.json"],
    )  # fmt: skip
    assert compared.exit_code in (0, 3), compared.output
    assert "\\udc80" in compared.stdout + reports["s.md"].read_text(encoding="utf-8")
    for path in reports.values():
        assert "\\udc80" in path.read_text(encoding="utf-8"), path.name
