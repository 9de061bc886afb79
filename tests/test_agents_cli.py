"""An agent evaluated end to end through the CLI: a broken hop and a changed tool call are
named in the comment and the terminal, and fail the gate; an unchanged agent passes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

QUESTIONS = [
    {
        "id": f"q{n}",
        "question": f"How long is the warranty on model {n}?",
        "hops": [{"relevant": [f"models#{n}"]}, {"relevant": [f"warranty#{n}"]}],
        "expected_tools": [{"name": "lookup_model", "arguments": {"model": n}}],
    }
    for n in range(1, 31)
]


def _record(n: int, hop2: str | None = None, tool: str = "lookup_model") -> dict:
    return {
        "id": f"q{n}",
        "answer": f"Model {n} has a two-year warranty.",
        "steps": [
            {"type": "retrieval", "query": f"model {n}", "retrieved": [f"models#{n}", "faq#1"]},
            {"type": "tool", "name": tool, "arguments": {"model": n}},
            {
                "type": "retrieval",
                "query": f"warranty for model {n}",
                "retrieved": [hop2 or f"warranty#{n}", "faq#2"],
            },
        ],
    }


def _score(ragguard_cli, tmp_path: Path, name: str, records: list[dict]) -> Path:
    testset = tmp_path / "testset.yaml"
    testset.write_text(yaml.safe_dump(QUESTIONS, sort_keys=False))
    run = tmp_path / f"{name}.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / f"{name}.json"
    result = ragguard_cli("score", "--testset", testset, "--run", run, "--out", out)
    assert result.exit_code == 0, result.stderr
    return out


def test_a_broken_hop_and_a_changed_tool_are_named_and_fail_and_the_rest_pass(
    ragguard_cli, tmp_path
):
    base = _score(ragguard_cli, tmp_path, "base", [_record(n) for n in range(1, 31)])
    head_records = [_record(n) for n in range(1, 31)]
    for n in range(1, 9):  # hop 2 loses its evidence
        head_records[n - 1] = _record(n, hop2="faq#9")
    for n in range(9, 15):  # the tool call changed
        head_records[n - 1] = _record(n, tool="refund")
    head = _score(ragguard_cli, tmp_path, "head", head_records)
    comment = tmp_path / "comment.md"
    result = ragguard_cli("compare", base, head, "--markdown", comment)
    assert result.exit_code == 1, result.stdout + result.stderr
    text = comment.read_text()
    assert (
        "hop 2 (query “*warranty for model 7*”): *warranty\\#\u200b7* no longer retrieved" in text
    )
    assert (  # the same why for six questions: one line naming them
        "- calls *refund* where *lookup\\_model* was expected — 6 questions: **q9**, **q10**"
        in text
    )
    assert "hop 2 (query “warranty for model 7”): warranty#7 no longer retrieved" in result.stdout
    assert "tools: calls refund where lookup_model was expected" in result.stdout
    assert "| 2 | 30 | 8 | 1.000 → 0.733 (−0.267) |" in text  # the By hop table names hop 2
    assert "  hop 2: 30 questions, 8 newly failing here; hop_recall@5 1.000 -> 0.733" in (
        result.stdout
    )
    assert "| 1 | 30 | 0 | 1.000 |" in text
    for unchanged in ("**q15**", "**q20**", "**q30**"):
        assert unchanged not in text


def test_an_unchanged_agent_passes(ragguard_cli, tmp_path):
    base = _score(ragguard_cli, tmp_path, "base", [_record(n) for n in range(1, 31)])
    head = _score(ragguard_cli, tmp_path, "head", [_record(n) for n in range(1, 31)])
    comment = tmp_path / "comment.md"
    result = ragguard_cli("compare", base, head, "--markdown", comment)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "| 2 | 30 | 0 | 1.000 |" in comment.read_text()


CONVERSATION = [
    {
        "id": "support-12",
        "critical": True,
        "turns": [
            {"question": "I bought a model X.", "relevant": ["models#x"]},
            {"question": "How long is its warranty?", "relevant": ["warranty#x"]},
            {"question": "And the battery?", "relevant": ["battery#x"]},
        ],
    },
    *({"id": f"q{n}", "question": f"Question {n}?", "relevant": [f"c{n}"]} for n in range(8)),
]


def test_a_conversation_whose_turn_2_regresses_is_named_with_its_turn(ragguard_cli, tmp_path):
    testset = tmp_path / "conversation.yaml"
    testset.write_text(yaml.safe_dump(CONVERSATION, sort_keys=False))
    good = {"support-12#1": "models#x", "support-12#2": "warranty#x", "support-12#3": "battery#x"}
    plain = {f"q{n}": f"c{n}" for n in range(8)}

    def scored(name: str, chunks: dict[str, str]) -> Path:
        run = tmp_path / f"{name}.jsonl"
        run.write_text(
            "".join(json.dumps({"id": i, "retrieved": [c]}) + "\n" for i, c in chunks.items())
        )
        out = tmp_path / f"{name}.json"
        result = ragguard_cli("score", "--testset", testset, "--run", run, "--out", out)
        assert result.exit_code == 0, result.stderr
        return out

    base = scored("base", {**good, **plain})
    head = scored("head", {**good, "support-12#2": "faq#1", **plain})
    comment = tmp_path / "comment.md"
    result = ragguard_cli("compare", base, head, "--markdown", comment)
    assert result.exit_code == 1, result.stdout  # a critical turn newly fails
    text = comment.read_text()
    assert "**support\\-12\\#\u200b2** _(critical)_ (turn 2 of *support\\-12*)" in text
    assert "12\\#\u200b1**" not in text and "12\\#\u200b3**" not in text
    assert "support-12#2 (critical, turn 2 of support-12):" in result.stdout
    assert (
        "Conversations that fail (one failing turn fails its conversation): *support\\-12* (turn 2)."
        in text
    )


def test_the_gate_takes_rules_for_agent_metrics_like_any_metric(ragguard_cli, tmp_path):
    base = _score(ragguard_cli, tmp_path, "base", [_record(n) for n in range(1, 31)])
    head_records = [_record(n) for n in range(1, 31)]
    head_records[0] = _record(1, tool="refund")  # one changed call: not significant alone
    head = _score(ragguard_cli, tmp_path, "head", head_records)
    config = tmp_path / "ragguard.yml"
    system = "suite: testset\ntestset: testset.yaml\nsystem: {python: app:answer}\n"
    config.write_text(system + "gate:\n  metrics:\n    tool_recall: {min: 0.99}\n")
    result = ragguard_cli("compare", base, head, "-c", config)
    assert result.exit_code == 1, result.stdout
    assert "tool_recall" in result.stdout.split("fail:", 1)[1]
    config.write_text(system + "gate:\n  metrics:\n    tool_recal: {min: 0.99}\n")
    result = ragguard_cli("compare", base, head, "-c", config)
    assert result.exit_code == 2 and "did you mean 'tool_recall'" in result.stderr


def test_the_comparison_json_holds_the_hop_table(ragguard_cli, tmp_path):
    base = _score(ragguard_cli, tmp_path, "base", [_record(n) for n in range(1, 31)])
    head_records = [_record(n) for n in range(1, 31)]
    head_records[0] = _record(1, hop2="faq#9")
    head = _score(ragguard_cli, tmp_path, "head", head_records)
    out = tmp_path / "comparison.json"
    ragguard_cli("compare", base, head, "--json", out)
    hops = json.loads(out.read_text())["hops"]
    assert [(h["hop"], h["questions"], h["newly_failing"]) for h in hops] == [
        (1, 30, 0),
        (2, 30, 1),
    ]
    assert hops[1]["metrics"]["hop_recall@5"]["head"] == pytest.approx(29 / 30)


def test_steps_are_compared_lower_is_better_and_a_budget_holds_them(ragguard_cli, tmp_path):
    def longer(n: int) -> dict:
        record = _record(n)
        retry = {"type": "retrieval", "query": "again", "retrieved": ["faq#3"]}
        record["steps"] = [*record["steps"], retry, retry]
        return record

    base = _score(ragguard_cli, tmp_path, "base", [_record(n) for n in range(1, 31)])
    head = _score(ragguard_cli, tmp_path, "head", [longer(n) for n in range(1, 31)])
    assert json.loads(head.read_text())["questions"][0]["agent"]["steps"] == 5
    out = tmp_path / "comparison.json"
    result = ragguard_cli("compare", base, head, "--json", out)
    steps = json.loads(out.read_text())["costs"]["steps"]
    assert (steps["baseline"], steps["head"], steps["lower_is_better"]) == (3.0, 5.0, True)
    assert "steps" in result.stdout and "3 steps" in result.stdout and "5 steps" in result.stdout
    config = tmp_path / "ragguard.yml"
    system = "suite: testset\ntestset: testset.yaml\nsystem: {python: app:answer}\n"
    config.write_text(system + "gate:\n  metrics:\n    steps: {max: 4}\n")
    result = ragguard_cli("compare", base, head, "-c", config)
    assert result.exit_code == 1, result.stdout
