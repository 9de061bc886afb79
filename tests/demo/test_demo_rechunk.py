"""Evidence labels across a rechunk: the demo's labels judge chunks by their text, so a
rechunk that keeps each answering sentence retrievable reads as no regression, and one that
cuts the sentences apart reads as one."""

from __future__ import annotations

from ragguard.compare import FAIL, NEWLY_FAILING, PASS, compare
from ragguard.config.sections.gate import default_gate_rules
from ragguard.demo.pipeline import PipelineSettings
from ragguard.demo.walkthrough import BASELINE, demo_testset, run_pipeline

RETRIEVAL = ("hit_rate@1", "hit_rate@3", "recall@5", "mrr", "ndcg@3")


def _run(settings: PipelineSettings):
    return run_pipeline("run", "run", settings, demo_testset()).results


def test_a_rechunk_that_keeps_the_evidence_is_not_a_regression() -> None:
    baseline = run_pipeline("b", "b", BASELINE, demo_testset())
    pages = run_pipeline("p", "p", PipelineSettings(chunking="section"), demo_testset())
    before = {c.id: c.text for r in baseline.outcome.records.values() for c in r.retrieved}
    after = {c.id: c.text for r in pages.outcome.records.values() for c in r.retrieved}
    # the ids are the chunker's: where a name recurs, it names other text now
    assert any(before[i] != after[i] for i in set(before) & set(after))
    comparison = compare(baseline.results, pages.results, default_gate_rules())
    assert comparison.verdict == PASS
    for name in RETRIEVAL:
        assert pages.results.summary[name].value >= baseline.results.summary[name].value - 0.05
    assert not [q for q in comparison.of_kind(NEWLY_FAILING) if q.misses]


def test_a_rechunk_that_cuts_the_answers_apart_is_a_regression() -> None:
    baseline = _run(BASELINE)
    windows = _run(PipelineSettings(chunking="window", window=12, k=5, rerank=True))
    comparison = compare(baseline, windows, default_gate_rules())
    assert comparison.verdict == FAIL
    failing = {m.name for m in comparison.metrics if m.verdict == FAIL}
    assert {"hit_rate@1", "ndcg@3"} <= failing
    assert windows.summary["faithfulness"].value == baseline.summary["faithfulness"].value
