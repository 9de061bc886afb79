"""`ragguard run` with `system.repeat` / `--repeat`: every question asked N times.

The system is a real Python module whose answers depend on how often it was asked (a
counter file per question), so each pass sees a different system: q1 fails its first call,
q2 misses its chunk on odd calls, q0 and q3 always answer well.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI

from ragguard.results.io import load_results

QUESTIONS = 4

COUNTER = """\
import pathlib

HERE = pathlib.Path(__file__).parent


def answer(question, id):
    calls = HERE / f"calls-{id}"
    n = int(calls.read_text()) + 1 if calls.exists() else 1
    calls.write_text(str(n))
    mode = (HERE / "mode").read_text().strip() if (HERE / "mode").exists() else "counter"
    if mode == "interrupt" and id == "q1" and n == 2:  # Ctrl-C while answering, in pass 2
        import os, signal, time

        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(600)  # still in the system's hands when the run ends
    if mode == "q0-down" and id == "q0":
        raise RuntimeError("q0 is down")
    if mode == "counter" and id == "q1" and n == 1:
        raise RuntimeError("cold cache")
    if mode == "counter" and id == "q2" and n % 2 == 1:
        return {"retrieved": [{"id": "elsewhere", "text": "Nothing here."}], "answer": "No."}
    text = "Passage " + id[1:] + " says yes."
    if mode == "varying":
        text = "Passage " + id[1:] + " says yes, call " + str(n) + "."
    return {"retrieved": [{"id": "c" + id[1:], "text": text}], "answer": text}
"""


def write_suite(folder: Path, module: str, extra: str = "", repeat: str = "3") -> Path:
    (folder / f"{module}.py").write_text(COUNTER)
    lines = [
        json.dumps({"id": f"q{n}", "question": f"Q{n}?", "relevant": {f"c{n}": 1}})
        for n in range(QUESTIONS)
    ]
    (folder / "testset.jsonl").write_text("\n".join(lines) + "\n")
    repeat_line = f"  repeat: {repeat}\n" if repeat else ""
    config = folder / "ragguard.yml"
    config.write_text(
        f"suite: repeated\ntestset: testset.jsonl\nsystem:\n  python: {module}:answer\n"
        f"  concurrency: 1\n  max_error_rate: 0.5\n{repeat_line}metrics: [hit_rate@1]\n{extra}"
    )
    return config


def calls(folder: Path) -> dict[str, int]:
    return {f"q{n}": int((folder / f"calls-q{n}").read_text()) for n in range(QUESTIONS)}


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_repeat_3_asks_each_question_3_times_writes_each_pass_and_combines_them(
    tmp_path: Path, module_name: str, ragguard_cli
) -> None:
    config = write_suite(tmp_path, module_name)
    out = tmp_path / "results.json"
    result = ragguard_cli("run", "-c", config, "--out", out)

    assert result.exit_code == 0, result.output
    assert calls(tmp_path) == {"q0": 3, "q1": 3, "q2": 3, "q3": 3}
    passes = [tmp_path / name for name in ("results.run.jsonl", "results.run.2.jsonl")]
    passes.append(tmp_path / "results.run.3.jsonl")
    first, second, third = (records(path) for path in passes)
    assert [r["id"] for r in first] == [r["id"] for r in third] == ["q0", "q1", "q2", "q3"]
    assert first[1]["error"].startswith("RuntimeError: cold cache")
    assert second[1]["error"] is None and third[1]["error"] is None
    retrieved = [r["retrieved"][0]["id"] for r in (first[2], second[2], third[2])]
    assert retrieved == ["elsewhere", "c2", "elsewhere"]

    results = load_results(out)
    q1, q2 = results.by_id["q1"], results.by_id["q2"]
    assert [run.status for run in q1.repeats] == ["error", "ok", "ok"]
    assert q1.repeats[0].error.startswith("RuntimeError: cold cache")
    assert q1.metrics["hit_rate@1"] == pytest.approx(2 / 3)  # the failed run counts 0
    assert [run.metrics["hit_rate@1"] for run in q2.repeats] == [0.0, 1.0, 0.0]
    assert q2.metrics["hit_rate@1"] == pytest.approx(1 / 3)
    assert all(len(question.repeats) == 3 for question in results.questions)

    assert "run verdict: ok: 1/12 calls failed (8.3%) (4 questions asked 3 times)" in (
        result.stdout
    )
    assert "and 2 more (results.run.2.jsonl to results.run.3.jsonl)" in result.stdout
    assert "ragguard: error: q1 (pass 1): RuntimeError: cold cache" in result.stderr
    assert "match no chunk" not in result.stderr  # c2 was retrieved in pass 2
    cost = [line for line in result.stderr.splitlines() if "system calls" in line]
    assert len(cost) == 1
    assert cost[0].startswith(
        "ragguard: asked 4 questions 3 times: 12 system calls (1 failed), no judge calls, "
    )
    assert [line for line in result.stderr.splitlines() if " of 3" in line] == [
        "ragguard: pass 1 of 3",
        "ragguard: pass 2 of 3",
        "ragguard: pass 3 of 3",
    ]


def test_the_repeat_flag_overrides_the_config_and_stale_pass_files_go(
    tmp_path: Path, module_name: str, ragguard_cli
) -> None:
    config = write_suite(tmp_path, module_name)
    (tmp_path / "results.run.3.jsonl").write_text("left by an earlier run with repeat 3\n")
    result = ragguard_cli("run", "-c", config, "--out", tmp_path / "results.json", "--repeat", 2)

    assert result.exit_code == 0, result.output
    assert calls(tmp_path) == {"q0": 2, "q1": 2, "q2": 2, "q3": 2}
    assert (tmp_path / "results.run.2.jsonl").exists()
    assert not (tmp_path / "results.run.3.jsonl").exists()
    results = load_results(tmp_path / "results.json")
    assert {len(question.repeats) for question in results.questions} == {2}


def _comparable(path: Path, folder: Path, module: str) -> dict:
    """The results without the run's time, folder and module name."""
    data = json.loads(path.read_text().replace(str(folder), "X").replace(module, "M"))
    data.pop("created_at", None)
    data["config"].pop("fingerprint")  # a hash of the settings, which hold the module name
    data.pop("columns_check")  # of the lines, latencies included
    data["columns"].pop("latency_ms")
    data["columns"].pop("line_bytes")  # a latency's digits count
    for question in data["questions"]:
        question.pop("latency_ms", None)
    data["summary"].pop("latency_p50", None)
    data["summary"].pop("latency_p95", None)
    return data


def _records_without_latency(path: Path, module: str) -> list[dict]:
    texts = path.read_text().replace(module, "M")
    return [
        {k: v for k, v in json.loads(line).items() if k != "latency_ms"}
        for line in texts.splitlines()
    ]


@pytest.mark.parametrize("how", ["config", "flag"])
def test_repeat_1_changes_nothing(tmp_path: Path, module_name: str, ragguard_cli, how) -> None:
    plain, once = tmp_path / "plain", tmp_path / "once"
    plain.mkdir()
    once.mkdir()
    other = module_name + "_b"  # imports are cached per process: one module per folder
    plain_result = ragguard_cli(
        "run", "-c", write_suite(plain, module_name, repeat=""), "--out", plain / "r.json"
    )
    args = ["--repeat", "1"] if how == "flag" else []
    config = write_suite(once, other, repeat="3" if how == "flag" else "1")
    once_result = ragguard_cli("run", "-c", config, "--out", once / "r.json", *args)

    assert plain_result.exit_code == once_result.exit_code == 0, once_result.output
    assert calls(once) == calls(plain) == {"q0": 1, "q1": 1, "q2": 1, "q3": 1}
    shown = once_result.stdout.replace(str(once), "X").replace(other, "M")
    assert shown == plain_result.stdout.replace(str(plain), "X").replace(module_name, "M")
    assert "system calls" not in once_result.stderr and "pass 1" not in once_result.stderr
    assert _comparable(once / "r.json", once, other) == _comparable(
        plain / "r.json", plain, module_name
    )
    assert '"repeats"' not in (once / "r.json").read_text()
    assert sorted(p.name for p in once.glob("r.*")) == ["r.json", "r.run.jsonl"]
    assert _records_without_latency(once / "r.run.jsonl", other) == _records_without_latency(
        plain / "r.run.jsonl", module_name
    )


def test_the_early_stop_counts_every_pass_and_records_the_calls_not_made(
    tmp_path: Path, module_name: str, ragguard_cli
) -> None:
    """max_error_rate 0.1 over 12 calls allows 1 failure: q0 fails in pass 1 (allowed) and
    again as the first call of pass 2, so the run stops; pass 3 asks nothing."""
    config = write_suite(tmp_path, module_name)
    config.write_text(config.read_text().replace("max_error_rate: 0.5", "max_error_rate: 0.1"))
    (tmp_path / "mode").write_text("q0-down")
    result = ragguard_cli("run", "-c", config, "--out", tmp_path / "results.json")

    assert result.exit_code == 3, result.output
    assert calls(tmp_path)["q0"] == 2  # never asked in pass 3
    stop = "not run: the run stopped early after 2 of 12 calls failed, more than max_error_rate"
    third = records(tmp_path / "results.run.3.jsonl")
    assert [r["id"] for r in third] == ["q0", "q1", "q2", "q3"]
    assert all(r["error"].startswith(stop) for r in third)
    assert records(tmp_path / "results.run.2.jsonl")[0]["error"].startswith("RuntimeError: q0")
    assert "ragguard: stopped early: 2 of 12 calls failed (4 questions asked 3 times)" in (
        result.stderr
    )
    assert "run verdict: error: " in result.stdout
    results = load_results(tmp_path / "results.json")
    assert [run.status for run in results.by_id["q3"].repeats][2] == "error"


def test_resume_asks_only_the_calls_missing_from_each_pass(
    tmp_path: Path, module_name: str, ragguard_cli
) -> None:
    """Pass 1 finished, pass 2 stopped after two answers, pass 3 never started."""
    config = write_suite(tmp_path, module_name)
    (tmp_path / "mode").write_text("healthy")
    done = [
        {"id": f"q{n}", "retrieved": [f"c{n}"], "answer": "kept", "error": None}
        for n in range(QUESTIONS)
    ]
    (tmp_path / "results.run.jsonl").write_text("".join(json.dumps(r) + "\n" for r in done))
    (tmp_path / "results.run.2.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in done[:2]) + '{"id": "q2", "retr'
    )
    result = ragguard_cli("run", "-c", config, "--out", tmp_path / "results.json", "--resume")

    assert result.exit_code == 0, result.output
    assert "resuming: 6 of 12 calls (4 questions x 3 passes) already done" in result.stderr
    assert calls(tmp_path) == {"q0": 1, "q1": 1, "q2": 2, "q3": 2}
    second = records(tmp_path / "results.run.2.jsonl")
    assert [(r["id"], r["answer"]) for r in second] == [
        ("q0", "kept"),
        ("q1", "kept"),
        ("q2", "Passage 2 says yes."),
        ("q3", "Passage 3 says yes."),
    ]
    assert len(records(tmp_path / "results.run.3.jsonl")) == QUESTIONS
    results = load_results(tmp_path / "results.json")
    assert {len(question.repeats) for question in results.questions} == {3}


def test_ctrl_c_in_pass_2_keeps_the_passes_started_and_resume_finishes_the_run(
    tmp_path: Path, module_name: str
) -> None:
    """A real SIGINT to a real `ragguard run` (the system sends it while answering q1 in
    pass 2); then `--resume` asks only what passes 2 and 3 are missing."""
    config = write_suite(tmp_path, module_name)
    (tmp_path / "mode").write_text("interrupt")
    command = [sys.executable, "-m", "ragguard", "run", "-c", str(config)]
    first = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)

    assert first.returncode == 130, first.stderr
    assert "Traceback" not in first.stderr
    assert len(records(tmp_path / "results.run.jsonl")) == QUESTIONS
    second = records(tmp_path / "results.run.2.jsonl")
    assert [record["id"] for record in second] == ["q0"]
    assert not (tmp_path / "results.run.3.jsonl").exists()  # pass 3 never started
    interrupted = load_results(tmp_path / "results.json")
    assert {len(q.repeats) for q in interrupted.questions} == {2}
    assert interrupted.by_id["q3"].repeats[1].status == "missing"
    assert "interrupted: 5 of 12 calls done" in first.stderr

    (tmp_path / "mode").write_text("healthy")
    resumed = subprocess.run(
        [*command, "--resume"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming: 5 of 12 calls (4 questions x 3 passes) already done" in resumed.stderr
    # once per pass; q1 once more: the call in the system's hands at Ctrl-C is asked again
    assert calls(tmp_path) == {"q0": 3, "q1": 4, "q2": 3, "q3": 3}
    assert records(tmp_path / "results.run.2.jsonl")[0] == second[0]
    assert len(records(tmp_path / "results.run.3.jsonl")) == QUESTIONS
    done = load_results(tmp_path / "results.json")
    assert {len(q.repeats) for q in done.questions} == {3}


def test_shards_run_their_passes_and_merge_keeps_the_repeats(
    tmp_path: Path, module_name: str, ragguard_cli
) -> None:
    config = write_suite(tmp_path, module_name, repeat="2")
    for index in (1, 2):
        out = tmp_path / f"part{index}.json"
        done = ragguard_cli("run", "-c", config, "--out", out, "--shard", f"{index}/2")
        assert done.exit_code == 0, done.output
        assert (tmp_path / f"part{index}.run.2.jsonl").exists()
    merged = ragguard_cli(
        "merge", tmp_path / "part1.json", tmp_path / "part2.json", "--out", tmp_path / "all.json"
    )

    assert merged.exit_code == 0, merged.output
    assert calls(tmp_path) == {"q0": 2, "q1": 2, "q2": 2, "q3": 2}
    results = load_results(tmp_path / "all.json")
    assert [q.id for q in results.questions] == ["q0", "q1", "q2", "q3"]
    assert {len(question.repeats) for question in results.questions} == {2}
    assert [run.metrics["hit_rate@1"] for run in results.by_id["q2"].repeats] == [0.0, 1.0]


def test_merge_refuses_shards_run_with_different_repeats(
    tmp_path: Path, module_name: str, ragguard_cli, cli_error
) -> None:
    config = write_suite(tmp_path, module_name, repeat="2")
    ragguard_cli("run", "-c", config, "--out", tmp_path / "part1.json", "--shard", "1/2")
    ragguard_cli(
        "run", "-c", config, "--out", tmp_path / "part2.json", "--shard", "2/2", "--repeat", 1
    )
    cli_error(
        ["merge", tmp_path / "part1.json", tmp_path / "part2.json", "--out", tmp_path / "a.json"],
        "part2.json",
        "runs per question (system.repeat) 1 differs from",
        "'s 2",
    )


def test_identical_answers_in_later_passes_are_judged_from_the_cache(
    tmp_path: Path, module_name: str, ragguard_cli
) -> None:
    config = write_suite(tmp_path, module_name)
    (tmp_path / "mode").write_text("healthy")  # the same answer on every call
    with FakeOpenAI() as server:
        config.write_text(
            config.read_text().replace("[hit_rate@1]", "[hit_rate@1, faithfulness]")
            + "faithfulness: {method: judge}\n"
            + f"judge: {{base_url: '{server.base_url}', model: m, cache: cache}}\n"
        )
        result = ragguard_cli("run", "-c", config, "--out", tmp_path / "results.json")
        asked = server.calls

    assert result.exit_code == 0, result.output
    assert asked == QUESTIONS  # pass 1 judges each answer; passes 2 and 3 hit the cache
    assert (
        "ragguard: asked 4 questions 3 times: 12 system calls (0 failed), 4 judge calls "
        "(8 answered from the cache), "
    ) in result.stderr
    results = load_results(tmp_path / "results.json")
    assert {len(q.repeats) for q in results.questions} == {3}
    assert all("faithfulness" in run.metrics for q in results.questions for run in q.repeats)


@pytest.mark.parametrize(("mode", "max_calls", "calls"), [("healthy", 4, 4), ("varying", 11, 0)])
def test_judge_max_calls_counts_every_pass_before_any_is_judged(
    tmp_path: Path, module_name: str, ragguard_cli, mode: str, max_calls: int, calls: int
) -> None:
    """The same answer in three passes is one call (4 in all: within 4); answers that differ
    in every pass are 12 calls, over 11: refused before the first call."""
    config = write_suite(tmp_path, module_name)
    (tmp_path / "mode").write_text(mode)
    with FakeOpenAI() as server:
        config.write_text(
            config.read_text().replace("[hit_rate@1]", "[hit_rate@1, faithfulness]")
            + "faithfulness: {method: judge}\n"
            + f"judge: {{base_url: '{server.base_url}', model: m, cache: cache, "
            + f"max_calls: {max_calls}}}\n"
        )
        result = ragguard_cli("run", "-c", config, "--out", tmp_path / "results.json")
        asked = server.calls

    assert asked == calls
    if calls:
        assert result.exit_code == 0, result.output
        return
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1].endswith(
        "judge.max_calls: this run needs 12 judge calls over its 12 answers in all passes "
        "(0 distinct answers cached), more than max_calls = 11; raise judge.max_calls, lower "
        "repeat or score fewer questions"
    )
    assert not (tmp_path / "results.json").exists()
    assert len(records(tmp_path / "results.run.3.jsonl")) == QUESTIONS  # the answers are kept


@pytest.mark.parametrize(
    ("value", "shown"),
    [("0", "0"), ("21", "21"), ("2.5", "2.5"), ("three", "'three'"), ("true", "True")],
)
def test_bad_repeat_values_are_one_line_errors(
    tmp_path: Path, module_name: str, cli_error, value: str, shown: str
) -> None:
    config = write_suite(tmp_path, module_name, repeat=value)
    cli_error(
        ["run", "-c", config, "--out", tmp_path / "r.json"],
        "ragguard.yml:7: system.repeat: expected a whole number of runs of the test set "
        f"from 1 to 20, found {shown}",
    )
    assert not (tmp_path / "calls-q0").exists()


@pytest.mark.parametrize("value", ["0", "21", "-1"])
def test_bad_repeat_flags_are_one_line_errors(
    tmp_path: Path, module_name: str, cli_error, value: str
) -> None:
    config = write_suite(tmp_path, module_name)
    cli_error(
        ["run", "-c", config, "--out", tmp_path / "r.json", "--repeat", value],
        "--repeat:",
        f"expected a whole number of runs of the test set from 1 to 20, found {value}",
    )
    assert not (tmp_path / "calls-q0").exists()


WATCHER = """\
import pathlib

HERE = pathlib.Path(__file__).parent


def answer(question, id):
    with open(HERE / "seen.log", "a") as log:
        log.write(f"{id} {(HERE / 'results.run.2.jsonl').exists()}\\n")
    return {"retrieved": ["c" + id[1:]], "answer": "yes"}
"""


def test_a_fresh_run_drops_an_earlier_runs_later_passes_once_it_starts_writing(
    tmp_path: Path, module_name: str, ragguard_cli
) -> None:
    """Were the run interrupted in pass 1, `--resume` must not find the old run's pass 2."""
    config = write_suite(tmp_path, module_name, repeat="2")
    (tmp_path / f"{module_name}.py").write_text(WATCHER)
    old = json.dumps({"id": "q0", "retrieved": ["c0"], "answer": "old", "error": None})
    (tmp_path / "results.run.2.jsonl").write_text(old + "\n")
    result = ragguard_cli("run", "-c", config, "--out", tmp_path / "results.json")

    assert result.exit_code == 0, result.output
    seen = (tmp_path / "seen.log").read_text().splitlines()
    assert seen[:2] == ["q0 True", "q1 False"]  # gone once pass 1's first record was written
    assert "old" not in (tmp_path / "results.run.2.jsonl").read_text()


BATCH = """\
import json, pathlib, sys

with open(pathlib.Path(__file__).parent / "starts.log", "a") as log:
    log.write("start\\n")
for line in sys.stdin:
    question = json.loads(line)
    number = question["id"][1:]
    print(json.dumps({"id": question["id"], "retrieved": ["c" + number]}), flush=True)
"""


def test_a_batch_command_is_started_once_per_pass(tmp_path: Path, ragguard_cli) -> None:
    write_suite(tmp_path, "unused", repeat="2")
    (tmp_path / "batch.py").write_text(BATCH)
    config = tmp_path / "ragguard.yml"
    system = f"  command: [{json.dumps(sys.executable)}, batch.py]\n  mode: batch\n"
    config.write_text(config.read_text().replace("  python: unused:answer\n", system))
    result = ragguard_cli("run", "-c", config, "--out", tmp_path / "results.json")

    assert result.exit_code == 0, result.output
    assert (tmp_path / "starts.log").read_text().split() == ["start", "start"]
    for name in ("results.run.jsonl", "results.run.2.jsonl"):
        assert [r["id"] for r in records(tmp_path / name)] == ["q0", "q1", "q2", "q3"]
    results = load_results(tmp_path / "results.json")
    assert {len(q.repeats) for q in results.questions} == {2}
