"""`ragguard score` with several --run files: recorded repeats of one run, combined; and a
recorded system, which cannot be asked again, refuses `repeat`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragguard.results.io import load_results

TESTSET = "".join(
    json.dumps({"id": f"q{n}", "question": f"Q{n}?", "relevant": {f"c{n}": 1}}) + "\n"
    for n in range(3)
)


def run_file(folder: Path, name: str, hits: dict[str, bool], skip: str = "") -> Path:
    lines = [
        json.dumps({"id": qid, "retrieved": [f"c{qid[1:]}" if hit else "other"]})
        for qid, hit in hits.items()
        if qid != skip
    ]
    path = folder / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_several_runs_are_scored_as_repeats(write, ragguard_cli, tmp_path: Path) -> None:
    testset = write("testset.jsonl", TESTSET)
    first = run_file(tmp_path, "a.jsonl", {"q0": True, "q1": False, "q2": True})
    second = run_file(tmp_path, "b.jsonl", {"q0": True, "q1": True, "q2": False})
    third = run_file(tmp_path, "c.jsonl", {"q0": True, "q1": False, "q2": True}, skip="q2")
    out = tmp_path / "results.json"
    result = ragguard_cli(
        "score", "--testset", testset, "--run", first, "--run", second, "--run", third,
        "--metrics", "hit_rate@1", "--out", out,
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    assert "ragguard: 3 runs of 3 questions scored as repeats (9 answers)" in result.stderr
    results = load_results(out)
    q0, q1, q2 = (results.by_id[qid] for qid in ("q0", "q1", "q2"))
    assert [run.metrics["hit_rate@1"] for run in q1.repeats] == [0.0, 1.0, 0.0]
    assert q1.metrics["hit_rate@1"] == pytest.approx(1 / 3)
    assert q0.metrics["hit_rate@1"] == 1.0
    assert [run.status for run in q2.repeats] == ["ok", "ok", "missing"]
    assert q2.metrics["hit_rate@1"] == pytest.approx(1 / 3)  # the missing answer counts 0
    assert results.summary["hit_rate@1"].value == pytest.approx((1 + 1 / 3 + 1 / 3) / 3)


def test_one_run_has_no_repeats(write, ragguard_cli, tmp_path: Path) -> None:
    testset = write("testset.jsonl", TESTSET)
    first = run_file(tmp_path, "a.jsonl", {"q0": True, "q1": False, "q2": True})
    out = tmp_path / "results.json"
    result = ragguard_cli(
        "score", "--testset", testset, "--run", first, "--metrics", "hit_rate@1", "--out", out
    )
    assert result.exit_code == 0, result.output
    assert "repeats" not in out.read_text()
    assert "scored as repeats" not in result.stderr


def test_a_bad_second_run_is_one_line_naming_it(write, cli_error, tmp_path: Path) -> None:
    testset = write("testset.jsonl", TESTSET)
    first = run_file(tmp_path, "a.jsonl", {"q0": True, "q1": False, "q2": True})
    second = tmp_path / "b.jsonl"
    second.write_text('{"id": "q0", "retrieved": ["c0"]}\n{"id": "q1", "retrieved": 7}\n')
    cli_error(
        ["score", "--testset", testset, "--run", first, "--run", second, "--metrics", "mrr"],
        "b.jsonl:2",
    )


RECORDED_SUITE = """\
suite: recorded
testset: testset.jsonl
system:
  recorded: run.jsonl
{repeat}metrics: [hit_rate@1]
"""


@pytest.mark.parametrize(("in_config", "flag"), [(True, []), (False, ["--repeat", "2"])])
def test_a_recorded_system_refuses_repeat(
    write, cli_error, tmp_path: Path, in_config: bool, flag: list[str]
) -> None:
    write("testset.jsonl", TESTSET)
    run_file(tmp_path, "run.jsonl", {"q0": True, "q1": False, "q2": True})
    config = write(
        "ragguard.yml", RECORDED_SUITE.format(repeat="  repeat: 3\n" if in_config else "")
    )
    line = cli_error(
        ["run", "-c", config, "--out", tmp_path / "r.json", *flag],
        "system.repeat: a recorded run gives the same answers every time",
        "ragguard score --run a.jsonl --run b.jsonl",
    )
    assert ("ragguard.yml:5:" if in_config else "ragguard.yml:4:") in line
    assert not (tmp_path / "r.json").exists()


def answered_run(folder: Path, name: str, wording: str) -> Path:
    lines = [
        json.dumps(
            {
                "id": f"q{n}",
                "retrieved": [{"id": f"c{n}", "text": f"Chunk {n} says yes."}],
                "answer": f"Chunk {n} says yes{wording}.",
            }
        )
        for n in range(3)
    ]
    path = folder / name
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(("second_wording", "calls"), [("", 3), (", surely", 0)])
def test_judge_max_calls_holds_over_all_the_runs(
    write, ragguard_cli, tmp_path: Path, second_wording: str, calls: int
) -> None:
    """max_calls 5: the same answers twice are 3 calls (the second run from the cache);
    different answers are 6, refused before the first call."""
    from fake_openai import FakeOpenAI

    testset = write("testset.jsonl", TESTSET)
    first = answered_run(tmp_path, "a.jsonl", "")
    second = answered_run(tmp_path, "b.jsonl", second_wording)
    with FakeOpenAI() as server:
        config = write(
            "ragguard.yml",
            "faithfulness: {method: judge}\n"
            f"judge: {{base_url: '{server.base_url}', model: m, cache: cache, max_calls: 5}}\n",
        )
        result = ragguard_cli(
            "score", "--testset", testset, "--run", first, "--run", second,
            "--metrics", "faithfulness", "--config", config, "--out", tmp_path / "r.json",
        )  # fmt: skip
        asked = server.calls

    assert asked == calls
    if calls:
        assert result.exit_code == 0, result.output
        assert "judge: 6 answers, 3 requests (3 cached" in result.stderr
        results = load_results(tmp_path / "r.json")
        assert {len(q.repeats) for q in results.questions} == {2}
        return
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1].endswith(
        "judge.max_calls: this run needs 6 judge calls over its 6 answers in all passes "
        "(0 distinct answers cached), more than max_calls = 5; raise judge.max_calls, lower "
        "repeat or score fewer questions"
    )
