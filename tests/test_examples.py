"""This repository's own ragguard suite runs the demo pipeline like any team's pipeline."""

from __future__ import annotations

from pathlib import Path

from ragguard.demo.walkthrough import run_demo
from ragguard.results.io import load_results

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "examples" / "orders-api" / "ragguard.yml"


def test_the_example_suite_reproduces_the_demo_baseline(ragguard_cli, tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    result = ragguard_cli("run", "-c", SUITE, "--out", out)
    assert result.exit_code == 0, result.output
    results = load_results(out)
    baseline = run_demo()[0].results
    assert results.suite == baseline.suite
    assert {name: s.value for name, s in results.summary.items()} == {
        name: s.value for name, s in baseline.summary.items()
    }
    assert results.config["system"] == {"kind": "python", "target": "ragguard.demo.pipeline:answer"}


AGENT = ROOT / "examples" / "two-hop-agent"


def test_the_two_hop_agent_is_evaluated_from_its_spans_and_the_pr_breaking_hop_2_is_named(
    ragguard_cli, ragguard_process, tmp_path: Path
) -> None:
    """The example as its README runs it: the agent returns only its answer; its retrievals
    come from its OpenTelemetry spans; the patch breaks hop 2 for the Home and Travel lines."""
    import shutil
    import subprocess

    base_dir, head_dir = tmp_path / "base", tmp_path / "head"
    for folder in (base_dir, head_dir):
        shutil.copytree(AGENT, folder)
    subprocess.run(["git", "apply", "break-hop-2.patch"], cwd=head_dir, check=True)
    outs = []
    for folder in (base_dir, head_dir):  # each in its own process: both import `agent`
        completed = ragguard_process("run", "--out", "results.json", cwd=folder)
        assert completed.returncode == 0, completed.stderr
        outs.append(folder / "results.json")
    base = load_results(outs[0])
    assert base.summary["hops_reached"].value == 1.0
    first = base.questions[0]
    assert first.agent is not None and [h.query for h in first.agent.hops] == [
        "How long is the warranty on the Aurora X2?",
        "Pro line warranty",
    ]
    comment = tmp_path / "comment.md"
    result = ragguard_cli("compare", *outs, "--markdown", comment)
    assert result.exit_code == 1, result.output
    text = comment.read_text()
    assert "hop 2 (query “*tablet warranty*”): *warranty\\#\u200bhome* no longer retrieved" in text
    assert "| 2 | 12 | 8 | 1.000 → 0.333 (−0.667) |" in text
