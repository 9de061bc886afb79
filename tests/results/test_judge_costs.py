"""The judge's cost in a results file: written and read back by every reader, an older file
without it read as before, a broken entry named by its key, merged shards summed."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from ragguard.core.errors import InputError
from ragguard.results.io import load_results, results_from_dict, write_results
from ragguard.results.judging import JudgeCharge, JudgeCosts
from ragguard.results.model import Results, ShardInfo
from ragguard.scoring.merge import merge_parts

COSTS = JudgeCosts(
    (
        JudgeCharge("q1", 1, 800, 60, "usage"),
        JudgeCharge("q2", 2, 1700, 90, "estimate"),
        JudgeCharge("q3", cached=True),
    ),
    (0.15, 0.60),
)
PLAIN = Results("s", "2026-12-04T00:00:00+00:00", ("mrr",), {}, (), "f")


def test_the_totals_are_the_sums_and_the_cost_is_at_the_price() -> None:
    assert (COSTS.calls, COSTS.cached, COSTS.prompt_tokens, COSTS.completion_tokens) == (
        3,
        1,
        2500,
        150,
    )
    assert COSTS.estimated is True
    assert COSTS.cost == pytest.approx((2500 * 0.15 + 150 * 0.60) / 1e6)
    assert replace(COSTS, price=None).cost is None


@pytest.mark.parametrize("with_questions", [False, True])
def test_written_and_read_back_by_every_reader(tmp_path: Path, with_questions: bool) -> None:
    from test_results import RESULTS

    results = replace(RESULTS if with_questions else PLAIN, judge=COSTS)
    path = write_results(results, tmp_path / "results.json")
    assert load_results(path) == results
    assert results_from_dict(json.loads(path.read_text()), path) == results
    assert json.loads(path.read_text())["judge"]["cost"] == pytest.approx(COSTS.cost)


def test_an_older_file_without_judge_reads_as_none(tmp_path: Path) -> None:
    path = write_results(PLAIN, tmp_path / "results.json")
    assert "judge" not in json.loads(path.read_text())
    assert load_results(path).judge is None


def test_a_broken_entry_is_named_by_its_key() -> None:
    data = json.loads(replace(PLAIN, judge=COSTS).to_json())
    data["judge"]["judged"][1]["calls"] = -1
    with pytest.raises(InputError) as caught:
        results_from_dict(data, "results.json")
    assert caught.value.key == "judge.judged[1].calls"


def test_merged_shards_carry_every_parts_judged_answers() -> None:
    first = replace(
        PLAIN, judge=JudgeCosts(COSTS.judged[:1], COSTS.price), shard=ShardInfo(1, 2, 0, ())
    )
    second = replace(
        PLAIN, judge=JudgeCosts(COSTS.judged[1:], COSTS.price), shard=ShardInfo(2, 2, 0, ())
    )
    merged = merge_parts([(Path("a.json"), first), (Path("b.json"), second)])
    assert merged.judge == COSTS
