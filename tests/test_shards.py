"""Sharded runs: the split by question id, and `ragguard merge` rebuilding the whole run."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from tests.conftest import assert_input_error

from ragguard.core.errors import InputError
from ragguard.results.io import load_results
from ragguard.testset.model import Question, TestSet
from ragguard.testset.shards import Shard, parse_shard, select_shard, shard_of

QUESTION_COUNT = 40


def write_suite(folder: Path) -> Path:
    """A suite replaying a recorded run: deterministic, latencies included, some failures."""
    testset, records = [], []
    for n in range(QUESTION_COUNT):
        qid = f"q{n:03d}"
        testset.append(
            {
                "id": qid,
                "question": f"Where is fact {n}?",
                "relevant": {f"c{n}": 2, f"c{n + 1}": 1},
                "reference_answer": f"Fact {n} is in chunk {n}.",
            }
        )
        if n % 13 == 5:
            continue  # no record: scored as missing
        record = {
            "id": qid,
            "retrieved": [
                {"id": f"x{(n * 7) % 50}", "text": f"Fact {n} is in chunk {n}."},
                {"id": f"c{n}", "text": "Other text."},
                {"id": f"c{n + 1}", "text": "More."},
            ],
            "answer": f"Fact {n} is in chunk {n}.",
            "latency_ms": 10.0 + n,
        }
        if n % 11 == 3:
            record = {"id": qid, "error": "HTTP 500", "latency_ms": 5.0}
        records.append(record)
    (folder / "testset.jsonl").write_text("".join(json.dumps(q) + "\n" for q in testset))
    (folder / "run.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    config = folder / "ragguard.yml"
    config.write_text(
        "suite: sharded\ntestset: testset.jsonl\nsystem:\n  recorded: run.jsonl\n"
        "  max_error_rate: 0.5\nmetrics: [hit_rate@1, ndcg@3, mrr, answer_f1, faithfulness]\n"
    )
    return config


def test_a_question_s_shard_depends_only_on_its_id() -> None:
    ids = [f"id-{n}" for n in range(300)]
    before = {qid: shard_of(qid, 3) for qid in ids}
    grown = [*ids, *(f"new-{n}" for n in range(300))]
    assert {qid: shard_of(qid, 3) for qid in grown if qid in before} == before
    counts = [sum(1 for s in before.values() if s == index) for index in (1, 2, 3)]
    assert all(60 < count < 140 for count in counts), counts


def test_select_shard_keeps_test_set_order_and_positions() -> None:
    testset = TestSet(tuple(Question(f"q{n}", f"Q{n}?") for n in range(20)))
    parts = [select_shard(testset, Shard(i, 3)) for i in (1, 2, 3)]
    positions = sorted(p for part in parts for p in part.info.positions)
    assert positions == list(range(20))
    for part in parts:
        assert [testset.questions[p].id for p in part.info.positions] == [
            q.id for q in part.testset.questions
        ]
        assert part.whole_fingerprint == testset.fingerprint


@pytest.mark.parametrize("text", ["3", "0/3", "4/3", "a/b", "1/0", ""])
def test_bad_shard_text_is_an_input_error(text: str) -> None:
    with pytest.raises(InputError, match="--shard"):
        parse_shard(text)


def run_shards(ragguard_cli, config: Path, folder: Path, count: int) -> list[Path]:
    parts = []
    for index in range(1, count + 1):
        out = folder / f"part{index}.json"
        result = ragguard_cli("run", "-c", config, "--out", out, "--shard", f"{index}/{count}")
        assert result.exit_code == 0, result.output
        parts.append(out)
    return parts


def test_merge_of_three_shards_equals_the_unsharded_run(tmp_path: Path, ragguard_cli) -> None:
    config = write_suite(tmp_path)
    whole_path = tmp_path / "whole.json"
    assert ragguard_cli("run", "-c", config, "--out", whole_path).exit_code == 0
    parts = run_shards(ragguard_cli, config, tmp_path, 3)
    part_results = [load_results(part) for part in parts]
    assert all(0 < len(part.questions) < QUESTION_COUNT for part in part_results)
    assert sum(len(part.questions) for part in part_results) == QUESTION_COUNT

    merged_path = tmp_path / "merged.json"
    result = ragguard_cli("merge", *reversed(parts), "--out", merged_path)
    assert result.exit_code == 0, result.output
    assert f"merged 3 parts ({QUESTION_COUNT} questions)" in result.stdout

    whole, merged = load_results(whole_path), load_results(merged_path)
    assert merged.shard is None
    assert {q.status for q in whole.questions} == {"ok", "error", "missing"}
    # created_at is when a part was written (the latest part's, by design); all else equal
    assert replace(merged, created_at=whole.created_at) == whole
    merged_bytes = merged_path.read_text().replace(merged.created_at, whole.created_at)
    assert merged_bytes == whole_path.read_text()


def test_shard_results_are_marked_and_cover_their_ids(tmp_path: Path, ragguard_cli) -> None:
    config = write_suite(tmp_path)
    part = load_results(run_shards(ragguard_cli, config, tmp_path, 2)[1])
    assert part.shard is not None
    assert (part.shard.index, part.shard.count, part.shard.testset_size) == (2, 2, QUESTION_COUNT)
    assert all(shard_of(q.id, 2) == 2 for q in part.questions)
    assert [f"q{p:03d}" for p in part.shard.positions] == [q.id for q in part.questions]


def test_merge_refuses_a_missing_part(tmp_path: Path, ragguard_cli) -> None:
    config = write_suite(tmp_path)
    parts = run_shards(ragguard_cli, config, tmp_path, 3)
    result = ragguard_cli("merge", parts[0], parts[2], "--out", tmp_path / "m.json")
    assert_input_error(result.exit_code, result.stderr, "shard(s) 2 of 3 missing")


def test_merge_refuses_a_part_given_twice(tmp_path: Path, ragguard_cli) -> None:
    config = write_suite(tmp_path)
    parts = run_shards(ragguard_cli, config, tmp_path, 3)
    copy = tmp_path / "copy.json"
    copy.write_text(parts[1].read_text())
    result = ragguard_cli("merge", *parts, copy, "--out", tmp_path / "m.json")
    assert_input_error(
        result.exit_code,
        result.stderr,
        str(copy),
        f"is shard 2 of 3, as {parts[1]} is; pass each shard's results once",
    )


def test_merge_names_a_file_given_twice_as_such(tmp_path: Path, ragguard_cli) -> None:
    config = write_suite(tmp_path)
    parts = run_shards(ragguard_cli, config, tmp_path, 2)
    result = ragguard_cli("merge", parts[0], parts[0], "--out", tmp_path / "m.json")
    assert result.stderr == (
        f"ragguard: error: {parts[0]}: is given twice; pass each shard's results once\n"
    )
    assert result.exit_code == 2


def test_merge_refuses_parts_of_another_config(tmp_path: Path, ragguard_cli) -> None:
    config = write_suite(tmp_path)
    parts = run_shards(ragguard_cli, config, tmp_path, 2)
    (tmp_path / "other.jsonl").write_text((tmp_path / "run.jsonl").read_text())
    config.write_text(config.read_text().replace("run.jsonl", "other.jsonl"))
    other = tmp_path / "other-part.json"
    result = ragguard_cli("run", "-c", config, "--out", other, "--shard", "2/2")
    assert result.exit_code == 0, result.output
    result = ragguard_cli("merge", parts[0], other, "--out", tmp_path / "m.json")
    assert_input_error(result.exit_code, result.stderr, str(other), "config fingerprint")


def test_merge_refuses_unsharded_results(tmp_path: Path, ragguard_cli) -> None:
    config = write_suite(tmp_path)
    whole = tmp_path / "whole.json"
    assert ragguard_cli("run", "-c", config, "--out", whole).exit_code == 0
    result = ragguard_cli("merge", whole, "--out", tmp_path / "m.json")
    assert_input_error(result.exit_code, result.stderr, str(whole), "no shard marker")


def test_results_without_shard_marker_still_load_and_write_no_marker(
    tmp_path: Path, ragguard_cli
) -> None:
    config = write_suite(tmp_path)
    whole = tmp_path / "whole.json"
    assert ragguard_cli("run", "-c", config, "--out", whole).exit_code == 0
    assert "shard" not in json.loads(whole.read_text())
    assert load_results(whole).shard is None


@pytest.mark.parametrize("key", ["count", "testset_size"])
def test_merge_refuses_a_shard_size_of_hundreds_of_digits(
    tmp_path: Path, ragguard_cli, key: str
) -> None:
    """It ended in an OverflowError traceback."""
    import re

    config = write_suite(tmp_path)
    parts = run_shards(ragguard_cli, config, tmp_path, 2)
    text = parts[1].read_text()
    huge, count = re.subn(rf'"{key}": \d+', f'"{key}": {"9" * 300}', text, count=1)
    assert count == 1
    parts[1].write_text(huge)
    result = ragguard_cli("merge", *parts, "--out", tmp_path / "m.json")
    assert_input_error(result.exit_code, result.stderr, str(parts[1]), f"shard.{key}", "300 digits")
    assert not (tmp_path / "m.json").exists()


def test_shards_of_a_test_set_with_an_unanswerable_question_merge(
    tmp_path: Path, ragguard_cli
) -> None:
    """Abstention by default (#29 item 5) is decided on the whole test set: every shard
    scores it, also those without the ``answerable: false`` question, so the parts merge
    into the unsharded run's results."""
    config = write_suite(tmp_path)
    testset = tmp_path / "testset.jsonl"
    entries = [json.loads(line) for line in testset.read_text().splitlines()]
    entries[10] = {"id": entries[10]["id"], "question": "Who is the CEO?", "answerable": False}
    testset.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    whole_path = tmp_path / "whole.json"
    assert ragguard_cli("run", "-c", config, "--out", whole_path).exit_code == 0
    parts = run_shards(ragguard_cli, config, tmp_path, 3)
    assert all("abstention" in load_results(part).metrics for part in parts)
    merged_path = tmp_path / "merged.json"
    result = ragguard_cli("merge", *parts, "--out", merged_path)
    assert result.exit_code == 0, result.output
    whole, merged = load_results(whole_path), load_results(merged_path)
    assert whole.summary["abstention"].n == 1
    assert replace(merged, created_at=whole.created_at) == whole


def test_shards_of_a_test_set_with_one_tool_question_merge(tmp_path: Path, ragguard_cli) -> None:
    """The agent metrics a test set brings (``expected_tools:``, ``hops:``) are chosen on
    the whole test set: every shard scores them, also those without such a question, so
    the parts merge into the unsharded run's results."""
    config = write_suite(tmp_path)
    testset = tmp_path / "testset.jsonl"
    entries = [json.loads(line) for line in testset.read_text().splitlines()]
    entries[10]["expected_tools"] = [{"name": "search"}]
    entries[20]["hops"] = [{"relevant": {"c20": 2}}, {"relevant": {"c21": 1}}]
    del entries[20]["relevant"]
    testset.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    whole_path = tmp_path / "whole.json"
    assert ragguard_cli("run", "-c", config, "--out", whole_path).exit_code == 0
    whole = load_results(whole_path)
    assert {"tool_recall", "hops_reached"} <= set(whole.metrics)
    parts = run_shards(ragguard_cli, config, tmp_path, 3)
    merged_path = tmp_path / "merged.json"
    result = ragguard_cli("merge", *parts, "--out", merged_path)
    assert result.exit_code == 0, result.output
    merged = load_results(merged_path)
    assert replace(merged, created_at=whole.created_at) == whole
