"""Repeated runs combined into one result (ragguard.scoring.repeats) and kept in the results file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ragguard.core.errors import InputError
from ragguard.results.io import load_results, write_results
from ragguard.results.model import (
    QuestionResult,
    RepeatRun,
    Results,
    SentenceVerdict,
    run_count,
    runs_of,
)
from ragguard.results.usage import Usage
from ragguard.scoring.repeats import combine_question, combine_repeats
from ragguard.scoring.score import summarize

METRICS = ("hit_rate@3", "faithfulness", "hallucination_free")


def _question(
    qid: str = "q1",
    status: str = "ok",
    hit: float = 1.0,
    unsupported: int = 0,
    latency: float | None = 100.0,
    answer: str = "an answer",
) -> QuestionResult:
    sentences = tuple(
        SentenceVerdict(id=f"s{i}", text=f"claim {i}", supported=i >= unsupported) for i in range(2)
    )
    metrics = (
        {}
        if status == "error"
        else {
            "hit_rate@3": hit,
            "faithfulness": sum(s.supported is True for s in sentences) / 2,
            "hallucination_free": float(unsupported == 0),
        }
    )
    return QuestionResult(
        id=qid,
        question=f"question {qid}",
        status=status,
        metrics=metrics,
        retrieved=("c1", "c2"),
        answer=None if status == "error" else answer,
        sentences=() if status == "error" else sentences,
        latency_ms=latency,
        error="timed out after 30s" if status == "error" else None,
    )


def _results(*questions: QuestionResult) -> Results:
    return Results(
        suite="s",
        created_at="2026-12-03T00:00:00+00:00",
        metrics=METRICS,
        summary=summarize(questions, METRICS),
        questions=questions,
        testset_fingerprint="f",
    )


def test_metrics_are_means_over_the_runs_so_a_hit_becomes_a_rate() -> None:
    combined = combine_question(
        [_question(hit=1.0), _question(hit=0.0), _question(hit=1.0, unsupported=1)]
    )
    assert combined.metrics["hit_rate@3"] == pytest.approx(2 / 3)
    assert combined.metrics["hallucination_free"] == pytest.approx(2 / 3)
    assert combined.metrics["faithfulness"] == pytest.approx((1 + 1 + 0.5) / 3)
    assert run_count(combined) == 3
    assert [run.metrics["hit_rate@3"] for run in combined.repeats] == [1.0, 0.0, 1.0]


def test_the_worst_run_is_the_one_shown_so_a_hallucination_in_any_run_is_seen() -> None:
    runs = [_question(answer="fine"), _question(answer="invented", unsupported=1), _question()]
    combined = combine_question(runs)
    assert combined.answer == "invented"
    assert [s.supported for s in combined.sentences] == [False, True]


def test_a_failed_run_counts_its_retrieval_zeros_so_crashing_cannot_raise_a_score() -> None:
    failed = replace(_question(status="error", latency=None), metrics={"hit_rate@3": 0.0})
    combined = combine_question([_question(hit=1.0), failed, failed])
    assert combined.status == "ok"
    assert combined.metrics["hit_rate@3"] == pytest.approx(1 / 3)
    assert combined.metrics["faithfulness"] == 1.0  # judged in the one run that answered
    assert [run.status for run in combined.repeats] == ["ok", "error", "error"]
    assert combined.repeats[1].error == "timed out after 30s"


def test_a_question_that_failed_in_every_run_is_an_error() -> None:
    combined = combine_question([_question(status="error"), _question(status="error")])
    assert combined.status == "error"
    assert combined.metrics == {}
    assert len(combined.repeats) == 2


def test_latency_is_the_mean_of_the_runs_that_report_one() -> None:
    combined = combine_question([_question(latency=100.0), _question(latency=300.0)])
    assert combined.latency_ms == 200.0


def test_one_run_is_returned_unchanged_and_a_plain_question_is_its_own_run() -> None:
    results = _results(_question())
    assert combine_repeats([results]) is results
    assert run_count(results.questions[0]) == 1
    assert runs_of(results.questions[0])[0].metrics == results.questions[0].metrics


def test_the_summary_is_taken_over_the_combined_questions() -> None:
    first = _results(_question("a", hit=1.0), _question("b", hit=0.0))
    second = _results(_question("a", hit=0.0), _question("b", hit=0.0))
    combined = combine_repeats([first, second])
    assert combined.summary["hit_rate@3"].value == pytest.approx(0.25)
    assert combined.summary["hit_rate@3"].n == 2


def test_runs_of_different_questions_are_refused() -> None:
    with pytest.raises(ValueError, match="same questions"):
        combine_repeats([_results(_question("a")), _results(_question("b"))])


def test_repeats_survive_the_results_file(tmp_path: Path) -> None:
    combined = combine_repeats(
        [
            _results(_question("a", hit=1.0), _question("b", status="error")),
            _results(_question("a", hit=0.0, unsupported=1), _question("b", hit=1.0)),
        ]
    )
    path = write_results(combined, tmp_path / "results.json")
    assert load_results(path) == combined


def test_a_bad_repeat_in_a_results_file_names_its_key(tmp_path: Path) -> None:
    combined = combine_repeats([_results(_question("a")), _results(_question("a"))])
    path = write_results(combined, tmp_path / "results.json")
    text = path.read_text(encoding="utf-8")
    assert '"repeats": [{"status": "ok"' in text
    path.write_text(text.replace('"repeats": [{"status": "ok"', '"repeats": [{"status": "fine"'))
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert "questions[0].repeats[0].status" in str(caught.value)
    assert "'fine'" in str(caught.value)


def test_repeat_run_keeps_the_error_text() -> None:
    run = RepeatRun(status="error", metrics={}, error="boom")
    question = replace(_question(), repeats=(run, run))
    assert runs_of(question) == (run, run)


def test_usage_is_the_mean_per_answer_over_the_runs_that_report_it() -> None:
    cheap = replace(_question(), usage=Usage(total_tokens=100.0, cost=0.01))
    dear = replace(_question(unsupported=1), usage=Usage(total_tokens=300.0))
    combined = combine_question([cheap, dear, _question()])
    assert combined.answer == dear.answer  # the worst run is shown ...
    assert combined.usage == Usage(total_tokens=200.0, cost=0.01)  # ... the cost is a mean
