"""`ragguard demo`: the baseline and the pull request's change, scored through the runner."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ragguard.compare import NEWLY_FAILING
from ragguard.demo.pipeline import HALLUCINATIONS
from ragguard.demo.walkthrough import (
    BASELINE,
    CHANGED,
    DEMO_SUITE,
    compare_demo,
    run_demo,
    write_demo,
)
from ragguard.metrics.faithfulness import DEFAULT_THRESHOLD
from ragguard.render import comment_marker
from ragguard.results.io import load_results
from ragguard.results.records import load_run

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo_runs():
    return run_demo()


def test_the_change_regresses_retrieval_on_some_questions(demo_runs) -> None:
    baseline, changed = demo_runs
    assert baseline.settings == BASELINE and changed.settings == CHANGED
    before, after = baseline.results, changed.results
    for metric in ("hit_rate@1", "recall@5", "mrr", "ndcg@3"):
        assert after.summary[metric].value < before.summary[metric].value, metric
    newly_failing = [
        q.id
        for q in before.questions
        if q.metrics.get("hit_rate@1") == 1.0 and after.by_id[q.id].metrics["hit_rate@1"] == 0.0
    ]
    fixed = [
        q.id
        for q in before.questions
        if q.metrics.get("hit_rate@1") == 0.0 and after.by_id[q.id].metrics["hit_rate@1"] == 1.0
    ]
    assert 2 <= len(newly_failing) <= 8
    assert fixed  # a change is rarely all loss: compare has something to call "fixed"
    assert all(q.status in ("ok", "abstained") for q in after.questions)


def test_the_two_results_are_comparable(demo_runs) -> None:
    baseline, changed = demo_runs
    assert baseline.results.suite == changed.results.suite == DEMO_SUITE
    assert baseline.results.testset_fingerprint == changed.results.testset_fingerprint
    assert baseline.results.config_fingerprint == changed.results.config_fingerprint
    assert baseline.results.config["system"] == {
        "kind": "demo",
        "target": "ragguard.demo.pipeline:OrdersDocsPipeline",
    }
    assert baseline.results.config["faithfulness"] == {
        "method": "lexical",
        "threshold": DEFAULT_THRESHOLD,
    }


def test_faithfulness_flags_exactly_the_embellished_sentences(demo_runs) -> None:
    baseline, changed = demo_runs
    assert changed.results.summary["faithfulness"].value < (
        baseline.results.summary["faithfulness"].value - 0.1
    )
    unsupported = [
        sentence.text
        for question in changed.results.questions
        for sentence in question.sentences
        if sentence.supported is False
    ]
    assert len(unsupported) >= 8
    assert set(unsupported) <= set(HALLUCINATIONS)
    assert not [s for q in baseline.results.questions for s in q.sentences if s.supported is False]


def test_results_and_records_are_written(demo_runs, tmp_path: Path) -> None:
    written = write_demo(demo_runs, tmp_path / "out")
    assert sorted(p.name for p in written) == [
        "baseline.results.json",
        "baseline.run.jsonl",
        "changed.results.json",
        "changed.run.jsonl",
    ]
    loaded = load_results(tmp_path / "out" / "changed.results.json")
    assert loaded.summary == demo_runs[1].results.summary
    run = load_run(tmp_path / "out" / "baseline.run.jsonl")
    assert len(run.records) == 44


def test_demo_command_prints_both_tables_and_writes_files(ragguard_cli, tmp_path: Path) -> None:
    result = ragguard_cli("demo", "--out", tmp_path / "demo")
    assert result.exit_code == 0, result.output
    assert result.stdout.count("suite orders-api-docs · 44 questions: 43 ok, 1 abstained") == 2
    assert "faithfulness" in result.stdout
    assert "pipeline: chunking=paragraph, k=5, rerank=True, hallucinate=False" in result.stdout
    assert "pipeline: chunking=window, window=30, k=3, rerank=False, hallucinate=True" in (
        result.stdout
    )
    assert "ragguard demo --seed" in result.stdout
    assert (tmp_path / "demo" / "baseline.results.json").exists()
    assert "ragguard compare · suite orders-api-docs: FAIL" in result.stdout


def test_demo_says_last_that_it_demonstrates_and_what_compare_would_exit(
    ragguard_cli, tmp_path: Path
) -> None:
    out = tmp_path / "demo"
    result = ragguard_cli("demo", "--out", out)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == (
        "ragguard demo only demonstrates, so it exits 0; on a pull request this FAIL exits 1, "
        f"as `ragguard compare {out}/baseline.results.json {out}/changed.results.json` does"
    )
    compared = ragguard_cli("compare", out / "baseline.results.json", out / "changed.results.json")
    assert compared.exit_code == 1, compared.output


def test_the_gate_fails_the_change_and_names_its_hallucinations(demo_runs, tmp_path: Path) -> None:
    comparison = compare_demo(*demo_runs)
    assert comparison.verdict == "fail"
    failing = {q.id for q in comparison.of_kind(NEWLY_FAILING)}
    assert failing, "the changed pipeline must break some questions"
    written = write_demo(demo_runs, tmp_path, comparison)
    assert {p.name for p in written} >= {"comment.md", "summary.md"}
    comment = (tmp_path / "comment.md").read_text(encoding="utf-8")
    assert comment.startswith(comment_marker(DEMO_SUITE))
    assert "Newly failing questions" in comment
    changed = demo_runs[1].results.by_id
    hallucinated = [
        s.text for qid in failing for s in changed[qid].sentences if s.supported is False
    ]
    assert hallucinated and all(text in HALLUCINATIONS for text in hallucinated)


def test_demo_seed_shows_the_reference_examples(ragguard_cli, tmp_path: Path) -> None:
    result = ragguard_cli("demo", "--seed", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert "nDCG@3 = 0.760" in result.stdout
    assert (tmp_path / "seed-retry-429.results.json").exists()


@pytest.mark.e2e
def test_demo_runs_from_the_built_wheel_outside_the_source_tree(tmp_path: Path) -> None:
    """What `pip install . && ragguard demo` needs: the data files inside the wheel."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q",
         "-w", str(tmp_path / "wheel"), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "wheel").glob("ragguard-*.whl")
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    completed = subprocess.run(
        [sys.executable, "-c",
         "import ragguard, sys; from ragguard.cli.app import main; "
         "assert ragguard.__file__.startswith(sys.argv[1]), ragguard.__file__; "
         "sys.argv = ['ragguard', 'demo']; main()", str(site)],
        capture_output=True, text=True, timeout=120, cwd=workdir,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.count("suite orders-api-docs · 44 questions") == 2
    assert "ragguard compare · suite orders-api-docs: FAIL" in completed.stdout
    assert (workdir / "ragguard-demo" / "changed.results.json").exists()
