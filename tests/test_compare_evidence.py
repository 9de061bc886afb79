"""compare with evidence labels: rechunked runs, relabelled evidence, unlabelled chunks."""

from __future__ import annotations

import pytest

from ragguard.compare import NEWLY_FAILING, compare
from ragguard.config.sections.gate import GateRules, default_gate_rules
from ragguard.metrics.names import parse_metric_list
from ragguard.results.chunks import Chunk
from ragguard.results.records import RunRecord
from ragguard.scoring.score import score_run
from ragguard.testset.model import Evidence, Question, TestSet

QUOTE = "Each API key may send 100 requests per minute"
SPECS = parse_metric_list("hit_rate@1,hit_rate@3,recall@3,ndcg@3,doc_recall@3,judged@3")


def _results(questions, retrieved):
    testset = TestSet(tuple(questions))
    records = {q.id: RunRecord(q.id, tuple(retrieved[q.id]), answer="x") for q in questions}
    return score_run(testset, records, SPECS, suite="s", config={})


def _question(quote: str = QUOTE) -> Question:
    return Question("q", "How fast?", evidence=(Evidence("limits.md", 2, quote=quote),))


def test_relabelled_evidence_keeps_the_baselines_values_and_is_marked() -> None:
    chunks = {"q": [Chunk("limits.md#1", text=QUOTE, doc="limits.md")]}
    baseline = _results([_question()], chunks)
    head = _results([_question(QUOTE + ".")], chunks)  # the quote edited: relabelled
    assert baseline.questions[0].fingerprint != head.questions[0].fingerprint
    comparison = compare(baseline, head, default_gate_rules())
    (diff,) = comparison.questions
    assert diff.relabelled
    assert {m.name: m.baseline for m in comparison.metrics}["hit_rate@1"] == 1.0


def test_a_failing_question_names_the_unlabelled_chunks_new_in_its_top_k() -> None:
    question = _question()
    baseline = _results(
        [question], {"q": [Chunk("limits.md#1", text=QUOTE, doc="limits.md"), Chunk("faq#1")]}
    )
    head = _results(
        [question],
        {
            "q": [
                Chunk("faq#1"),
                Chunk("pricing#4"),
                Chunk("limits.md#9", text="x", doc="limits.md"),
            ]
        },
    )
    comparison = compare(baseline, head, GateRules(per_question={"hit_rate@3": 1}))
    (diff,) = comparison.of_kind(NEWLY_FAILING)
    assert diff.unlabelled is not None
    assert diff.unlabelled.k == 3
    assert diff.unlabelled.chunks == ("pricing#4", "limits.md#9")  # faq#1 was there before


def test_judged_at_k_is_reported_but_not_gated_unless_a_rule_names_it() -> None:
    from ragguard.config.sections.gate import MetricRule

    questions = [Question(f"q{i}", "?", {f"a{i}": 1, f"z{i}": 0}) for i in range(12)]
    baseline = _results(
        questions, {q.id: [Chunk(f"a{q.id[1:]}"), Chunk(f"z{q.id[1:]}")] for q in questions}
    )
    head = _results(
        questions, {q.id: [Chunk(f"a{q.id[1:]}"), Chunk("new1"), Chunk("new2")] for q in questions}
    )

    def judged(rules: GateRules):
        return {m.name: m for m in compare(baseline, head, rules).metrics}["judged@3"]

    quiet = judged(GateRules())
    assert quiet.head == pytest.approx(1 / 3) and quiet.baseline == pytest.approx(2 / 3)
    assert quiet.verdict == "pass"
    assert judged(GateRules(metrics={"judged@3": MetricRule()})).verdict == "fail"
