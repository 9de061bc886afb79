"""An agent's question scored by its steps: hops against trec_eval, tools, the defaults."""

from __future__ import annotations

import json
import random

import pytest
import pytrec_eval  # the reference implementation

from ragguard.core.errors import Where
from ragguard.metrics.names import parse_metric_list
from ragguard.results.records import parse_run_jsonl
from ragguard.scoring.agents import score_hops
from ragguard.scoring.score import score_run
from ragguard.testset.load import question_from_mapping
from ragguard.testset.model import TestSet

TREC = {"recall": "recall", "ndcg": "ndcg_cut"}
KS = (1, 3, 5, 10)


def _question(entry):
    return question_from_mapping(entry, Where("t.yaml"))


def _record(entry):
    return parse_run_jsonl(json.dumps(entry) + "\n", "run.jsonl").records[entry["id"]]


def _random_agent(seed: int):
    rng = random.Random(seed)
    pool = [f"c{i}" for i in range(30)]
    hops = [
        {"relevant": {c: rng.choice([0, 1, 2, 3]) for c in rng.sample(pool, rng.randint(1, 4))}}
        for _ in range(rng.randint(1, 3))
    ]
    for hop in hops:  # every hop needs a label of grade >= 1
        hop["relevant"][next(iter(hop["relevant"]))] = rng.randint(1, 3)
    steps = [
        {"type": "retrieval", "query": f"q{n}", "retrieved": rng.sample(pool, rng.randint(0, 12))}
        for n in range(rng.randint(0, 4))
    ]
    return _question({"id": "q", "question": "x", "hops": hops}), _record(
        {"id": "q", "steps": steps}
    )


@pytest.mark.parametrize("seed", range(60))
def test_each_hop_scores_as_trec_eval_scores_its_step_as_a_query(seed):
    question, record = _random_agent(seed)
    specs = parse_metric_list([f"hop_{base}@{k}" for base in TREC for k in KS])
    scores = score_hops(question, record.steps, specs)
    steps = [step for step in record.steps if step.type == "retrieval"]
    measures = {f"{family}.{','.join(map(str, KS))}" for family in TREC.values()}
    for hop, outcome in zip(question.hops, scores.hops, strict=True):
        ranking = (
            [c.id for c in steps[outcome.retrieval - 1].retrieved] if outcome.retrieval else []
        )
        run = {"q": {cid: float(len(ranking) - rank) for rank, cid in enumerate(ranking)}}
        evaluator = pytrec_eval.RelevanceEvaluator({"q": dict(hop.relevant)}, measures)
        expected = evaluator.evaluate(run).get("q", {}) if ranking else {}
        for base, family in TREC.items():
            for k in KS:
                want = expected.get(f"{family}_{k}", 0.0)
                assert outcome.values[f"hop_{base}@{k}"] == pytest.approx(want, abs=1e-9)


TESTSET = [
    {
        "id": "warranty",
        "question": "How long is the warranty on model X?",
        "hops": [{"relevant": ["models#2"]}, {"relevant": ["warranty#3"]}],
        "expected_tools": [{"name": "lookup_model", "arguments": {"model": "X"}}],
    },
    {"id": "plain", "question": "What is a plan?", "relevant": ["plans#1"]},
]


def _score(steps_by_id, specs=("hit_rate@3",)):
    testset = TestSet(tuple(map(_question, TESTSET)))
    lines = [{"id": qid, **record} for qid, record in steps_by_id.items()]
    run = parse_run_jsonl("".join(json.dumps(line) + "\n" for line in lines), "run.jsonl")
    return score_run(testset, run.records, parse_metric_list(list(specs)), suite="s")


GOOD = {
    "warranty": {
        "steps": [
            {"type": "retrieval", "query": "model X", "retrieved": ["models#2", "x"]},
            {"type": "tool", "name": "lookup_model", "arguments": {"model": "X", "v": 1}},
            {"type": "retrieval", "query": "warranty for model X", "retrieved": ["warranty#3"]},
        ]
    },
    "plain": {"retrieved": ["plans#1"]},
}


def test_a_test_set_with_hops_and_tools_brings_the_agent_metrics_and_scores_them():
    results = _score(GOOD)
    assert results.metrics == (
        "hit_rate@3",
        "hops_reached",
        "hop_recall@5",
        "tool_recall",
        "tool_precision",
        "trajectory_match",
    )
    warranty, plain = results.questions
    assert warranty.metrics == {
        "hit_rate@3": 1.0,
        "hops_reached": 1.0,
        "hop_recall@5": 1.0,
        "tool_recall": 1.0,
        "tool_precision": 1.0,
        "trajectory_match": 1.0,
    }
    assert warranty.retrieved == ("models#2", "x", "warranty#3")
    assert plain.metrics == {"hit_rate@3": 1.0}  # agent metrics do not apply to it
    assert results.summary["hops_reached"].n == 1


def test_a_broken_hop_and_a_changed_tool_score_zero_where_they_broke():
    broken = {
        "warranty": {
            "steps": [
                {"type": "retrieval", "query": "model X", "retrieved": ["models#2"]},
                {"type": "tool", "name": "refund", "arguments": {"model": "X"}},
                {"type": "retrieval", "query": "warranty", "retrieved": ["faq#1"]},
            ]
        },
        "plain": {"retrieved": ["plans#1"]},
    }
    warranty = _score(broken).questions[0]
    assert warranty.metrics["hops_reached"] == 0.0
    assert warranty.metrics["hop_recall@5"] == 0.5
    assert warranty.metrics["tool_recall"] == 0.0


def test_an_error_or_a_missing_answer_scores_zero_on_every_agent_metric():
    results = _score({"warranty": {"error": "timeout"}})
    warranty, plain = results.questions
    assert set(warranty.metrics.values()) == {0.0} and len(warranty.metrics) == 6
    assert plain.status == "missing" and plain.metrics == {"hit_rate@3": 0.0}


def test_naming_an_agent_metric_keeps_the_list_as_written():
    results = _score(GOOD, ("hit_rate@3", "hop_ndcg@3"))
    assert results.metrics == ("hit_rate@3", "hop_ndcg@3")


def test_the_results_file_keeps_each_hops_step_and_misses_and_the_tool_calls(tmp_path):
    from ragguard.results.io import load_results, write_results

    broken = {
        "warranty": {
            "steps": [
                {"type": "retrieval", "query": "model X", "retrieved": ["models#2"]},
                {"type": "tool", "name": "refund", "arguments": {"model": "X"}},
                {"type": "retrieval", "query": "warranty", "retrieved": ["faq#1"]},
            ]
        },
        "plain": {"retrieved": ["plans#1"]},
    }
    results = _score(broken)
    detail = results.questions[0].agent
    assert detail is not None
    assert [(h.retrieval, h.query, h.missing) for h in detail.hops] == [
        (1, "model X", ()),
        (None, "warranty", ("warranty#3",)),  # the query of the step in its place
    ]
    assert [c.name for c in detail.missing_tools] == ["lookup_model"]
    assert [c.name for c in detail.unexpected_tools] == ["refund"]
    assert results.questions[1].agent is None
    path = tmp_path / "results.json"
    write_results(results, path)
    again = load_results(path)
    assert again.questions == results.questions
    assert json.loads(path.read_text())["questions"][0]["agent"]["hops"][1]["missing"] == [
        "warranty#3"
    ]
