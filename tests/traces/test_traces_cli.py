"""A trace file wherever a run file goes: ``ragguard score --run`` and ``recorded:``, end to
end through the CLI, scored like the same run written as JSON Lines."""

from __future__ import annotations

import json
from pathlib import Path

from otlp_writers import collector_lines, protobuf_json, recording_provider
from traced_agents import QUESTIONS, two_hop_agent

from ragguard.results.records import dump_run
from ragguard.traces.reader import load_trace_run

TWO_HOPS = f"""\
- id: warranty
  question: {QUESTIONS["warranty"]}
  hops:
    - relevant: [models#2]
    - relevant: [warranty#3]
  expected_tools:
    - name: lookup_model
      arguments: {{model: X}}
- id: refund
  question: {QUESTIONS["refund"]}
  hops:
    - relevant: [models#2]
    - relevant: [warranty#3]
  expected_tools: [lookup_model]
"""


def traced_run(tmp_path: Path) -> tuple[Path, str]:
    """The agent answers both questions (hop 2 of 'refund' misses its evidence) and one
    question that is not in the test set (the trace id of that one comes back too)."""
    provider, exporter = recording_provider()
    two_hop_agent(provider, QUESTIONS["warranty"])
    two_hop_agent(provider, QUESTIONS["refund"], break_hop_two=True)
    two_hop_agent(provider, "Is model Y blue?")
    path = tmp_path / "traces.json"
    spans = exporter.get_finished_spans()
    path.write_text(collector_lines([spans]), encoding="utf-8")
    return path, format(spans[-1].context.trace_id, "032x")


def scored(results: Path) -> tuple[dict, dict]:
    data = json.loads(results.read_text(encoding="utf-8"))
    questions = {q["id"]: q for q in data["questions"]}
    return data["summary"], questions


def test_score_reads_a_trace_file_as_its_run(ragguard_cli, tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TWO_HOPS, encoding="utf-8")
    traces, trace_id = traced_run(tmp_path)
    result = ragguard_cli(
        "score", "--testset", tmp_path / "t.yaml", "--run", traces, "--out", tmp_path / "r.json"
    )
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[0] == (
        f"ragguard: {traces}: 1 trace skipped: no span names a question in "
        "ragguard.question.id, and the root span's input.value is no question's text (at "
        f"trace {trace_id}, line 1)"
    )
    summary, questions = scored(tmp_path / "r.json")
    assert questions["warranty"]["metrics"]["hops_reached"] == 1.0
    assert questions["refund"]["metrics"]["hops_reached"] == 0.0
    assert questions["refund"]["metrics"]["hop_recall@5"] == 0.5
    assert summary["tool_recall"]["value"] == 1.0
    assert questions["warranty"]["answer"] == "Model X has a two-year warranty."
    assert questions["warranty"]["usage"] == {
        "prompt_tokens": 812.0,
        "completion_tokens": 96.0,
        "total_tokens": 908.0,
    }


def test_a_trace_file_scores_as_the_same_run_in_json_lines(ragguard_cli, tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(TWO_HOPS, encoding="utf-8")
    traces, _ = traced_run(tmp_path)
    records = load_trace_run(traces, QUESTIONS).records.values()
    (tmp_path / "run.jsonl").write_text(dump_run(records), encoding="utf-8")
    for run, out in ((traces, "from-traces.json"), (tmp_path / "run.jsonl", "from-jsonl.json")):
        result = ragguard_cli(
            "score", "--testset", tmp_path / "t.yaml", "--run", run, "--out", tmp_path / out
        )
        assert result.exit_code == 0, result.stderr
    assert scored(tmp_path / "from-traces.json") == scored(tmp_path / "from-jsonl.json")


def test_a_recorded_system_replays_a_trace_file(ragguard_cli, tmp_path: Path) -> None:
    """``system: {recorded: traces.json}``: a protobuf JSON document over many lines; what
    its reader skipped is a note on stderr."""
    (tmp_path / "t.yaml").write_text(TWO_HOPS, encoding="utf-8")
    provider, exporter = recording_provider()
    two_hop_agent(provider, QUESTIONS["warranty"])
    two_hop_agent(provider, QUESTIONS["refund"], break_hop_two=True)
    two_hop_agent(provider, "Is model Y blue?")
    (tmp_path / "traces.json").write_text(protobuf_json(exporter.get_finished_spans()))
    (tmp_path / "ragguard.yml").write_text(
        "suite: traced\ntestset: t.yaml\nsystem:\n  recorded: traces.json\n", encoding="utf-8"
    )
    result = ragguard_cli(
        "run", "--config", tmp_path / "ragguard.yml", "--out", tmp_path / "r.json"
    )
    assert result.exit_code == 0, result.stderr
    _, questions = scored(tmp_path / "r.json")
    assert questions["warranty"]["metrics"]["hops_reached"] == 1.0
    assert questions["refund"]["metrics"]["hops_reached"] == 0.0
    skipped = f"ragguard: {tmp_path / 'traces.json'}: 1 trace skipped: no span names a question"
    assert [line for line in result.stderr.splitlines() if line.startswith(skipped)]
