"""benchmarks/gate_worlds.py with repeats: the worlds it simulates are the ones it names, and
its exact critical-question odds agree with brute-force enumeration of the runs."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType

import pytest

from ragguard.compare.questions import pass_tally
from ragguard.results.model import run_count

ROOT = Path(__file__).resolve().parents[2]
RULE = {"hit_rate@3": 1.0, "faithfulness": 1.0}


@pytest.fixture(scope="module")
def worlds() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gate_worlds", ROOT / "benchmarks" / "gate_worlds.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gate_worlds"] = module
    spec.loader.exec_module(module)
    return module


def test_every_side_is_repeat_runs_combined(worlds: ModuleType) -> None:
    baseline, heads = worlds.world_runs(3, 20, "steady", repeat=3)
    assert all(run_count(q) == 3 for q in baseline.questions)
    for head in heads.values():
        assert all(run_count(q) == 3 for q in head.questions)


def test_the_retrieval_drop_applies_to_every_run_of_the_pushed_questions(
    worlds: ModuleType,
) -> None:
    _, heads = worlds.world_runs(3, 20, "steady", repeat=3)
    noise, dropped = heads["noise"], heads["retrieval drop"]
    never = [q.id for q in dropped.questions if q.metrics["hit_rate@3"] == 0.0]
    pushed = [
        qid for qid in never if noise.by_id[qid].metrics["hit_rate@3"] > 0.0
    ]  # in the top 3 in some run of the same draws without the drop
    assert len(pushed) == round(0.15 * 20)
    for qid in pushed:
        assert pass_tally(dropped.by_id[qid], RULE).passed == 0


def test_repeat_1_draws_the_same_runs_as_before_repeats(worlds: ModuleType) -> None:
    once, _ = worlds.world_runs(5, 20, "steady")
    again, _ = worlds.world_runs(5, 20, "steady", repeat=1)
    assert once == again
    assert all(not q.repeats for q in once.questions)


@pytest.mark.parametrize(("runs", "recheck"), [(1, 0), (1, 3), (2, 1), (3, 0), (3, 3), (5, 2)])
def test_the_exact_blocking_chance_matches_enumerating_every_outcome(
    worlds: ModuleType, runs: int, recheck: int
) -> None:
    p_fail = 0.23
    enumerated = 0.0
    for outcome in itertools.product((True, False), repeat=runs + recheck):  # True: failed
        head = outcome[:runs]
        newly_failing = 2 * (runs - sum(head)) <= runs  # no strict majority of passes
        blocks = 2 * sum(outcome) > runs + recheck
        if newly_failing and blocks:
            failed = sum(outcome)
            enumerated += p_fail**failed * (1 - p_fail) ** (len(outcome) - failed)
    assert worlds._blocks(p_fail, runs, recheck) == pytest.approx(enumerated)
