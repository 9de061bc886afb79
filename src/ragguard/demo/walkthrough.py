"""The embedded demo: the Orders API assistant before and after a pull request.

:func:`run_demo` runs the baseline pipeline and a changed one (smaller chunks, fewer chunks
returned, no reranking, and answers that embellish) through the real runner and scoring,
and returns two :class:`DemoRun` values whose ``results`` are ready to hand to compare.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragguard.compare import Comparison, exit_code
from ragguard.config.model import RunSettings
from ragguard.config.sections.gate import default_gate_rules
from ragguard.core.files import write_all, write_report
from ragguard.demo.pipeline import TESTSET_PATH, OrdersDocsPipeline, PipelineSettings
from ragguard.metrics.names import parse_metric_list
from ragguard.metrics.settings import GenerationSettings
from ragguard.pipeline.compare import compare_to_baseline
from ragguard.pipeline.evaluate import evaluate_system
from ragguard.pipeline.reporter import SilentReporter
from ragguard.render import render_comment, render_summary
from ragguard.results.io import write_results
from ragguard.results.model import Results
from ragguard.results.records import dump_run
from ragguard.system.outcome import RunOutcome
from ragguard.testset.load import load_testset
from ragguard.testset.model import TestSet

DEMO_SUITE = "orders-api-docs"
DEMO_METRICS = (
    "hit_rate@1",
    "hit_rate@3",
    "recall@5",
    "doc_recall@5",
    "mrr",
    "ndcg@3",
    "faithfulness",
    "answer_relevance",
    "answer_f1",
    "abstention",
)
DEMO_RUN_SETTINGS = RunSettings(concurrency=4, timeout=30.0, retries=0, max_error_rate=0.0)

BASELINE = PipelineSettings(chunking="paragraph", k=5, rerank=True, hallucinate=False)
CHANGED = PipelineSettings(chunking="window", window=30, k=3, rerank=False, hallucinate=True)


@dataclass(frozen=True)
class DemoRun:
    name: str
    title: str
    settings: PipelineSettings
    outcome: RunOutcome
    results: Results


def demo_testset() -> TestSet:
    return load_testset(TESTSET_PATH)


def run_pipeline(
    name: str,
    title: str,
    settings: PipelineSettings,
    testset: TestSet | None = None,
    metrics: tuple[str, ...] = DEMO_METRICS,
) -> DemoRun:
    """Run one pipeline configuration over the demo test set and score it."""
    testset = testset or demo_testset()
    evaluation = evaluate_system(
        OrdersDocsPipeline(settings),
        testset,
        parse_metric_list(list(metrics)),
        DEMO_RUN_SETTINGS,
        GenerationSettings(),  # lexical: offline, no judge
        suite=DEMO_SUITE,
        reporter=SilentReporter(),
    )
    return DemoRun(name, title, settings, evaluation.outcome, evaluation.results)


def run_demo() -> tuple[DemoRun, DemoRun]:
    """The baseline (the target branch) and the changed pipeline (the pull request)."""
    testset = demo_testset()
    baseline = run_pipeline(
        "baseline", "Baseline: the docs assistant on the main branch", BASELINE, testset
    )
    changed = run_pipeline(
        "changed",
        "Pull request: 30-word chunks, k 5 -> 3, reranker off, a prompt that embellishes",
        CHANGED,
        testset,
    )
    return baseline, changed


def compare_demo(baseline: DemoRun, changed: DemoRun) -> Comparison:
    """The pull request's results against the baseline, under the default gate rules."""
    return compare_to_baseline(baseline.results, changed.results, default_gate_rules())


def demo_exit_note(comparison: Comparison, out_dir: Path) -> str:
    """The demo's last line: it demonstrates, so it exits 0 whatever the verdict; say what
    ``ragguard compare`` (and CI) would exit with on the files it wrote."""
    baseline, changed = out_dir / "baseline.results.json", out_dir / "changed.results.json"
    return (
        f"ragguard demo only demonstrates, so it exits 0; on a pull request this "
        f"{comparison.verdict.upper()} exits {exit_code(comparison)}, as "
        f"`ragguard compare {baseline} {changed}` does"
    )


def write_demo(
    runs: tuple[DemoRun, ...], out_dir: Path, comparison: Comparison | None = None
) -> list[Path]:
    """Write each run's results and run records, and the rendered comparison; return the paths."""
    written = []
    for run in runs:
        results_path = write_results(run.results, out_dir / f"{run.name}.results.json")
        records_path = write_report(
            out_dir / f"{run.name}.run.jsonl", dump_run(run.outcome.records.values())
        )
        written += [results_path, records_path]
    if comparison is not None:
        reports = [
            (out_dir / "comment.md", render_comment(comparison)),
            (out_dir / "summary.md", render_summary(comparison)),
        ]
        write_all(reports)
        written += [path for path, _text in reports]
    return written
