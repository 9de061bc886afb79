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
