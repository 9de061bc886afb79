"""Abstention by default (#29 item 5): which runs score it without being asked
(``scoring.score.with_default_abstention``), scored through ``pipeline.passes.prepare_passes``
like a listed metric, and turned off with ``abstention: {auto: false}``."""

from __future__ import annotations

from ragguard.config.sections.generation import generation_settings
from ragguard.metrics.names import parse_metric_list
from ragguard.metrics.settings import GenerationSettings
from ragguard.pipeline.passes import prepare_passes
from ragguard.results.chunks import Chunk
from ragguard.results.records import RunRecord
from ragguard.scoring.score import with_default_abstention
from ragguard.scoring.suite import RunPass
from ragguard.testset.model import Question, TestSet

ANSWERABLE = Question("rate", "How many requests per minute?", {"rate-limits": 1})
UNANSWERABLE = Question("salary", "What is the CEO's salary?", answerable=False)
BOTH = TestSet((ANSWERABLE, UNANSWERABLE))
RETRIEVAL = parse_metric_list("hit_rate@3,mrr")


def _records(salary_answer: str | None = "The CEO earns a lot.") -> dict[str, RunRecord]:
    chunk = Chunk("rate-limits", "Each key may send 100 requests per minute.")
    return {
        "rate": RunRecord("rate", (chunk,), "Each key may send 100 requests per minute."),
        "salary": RunRecord("salary", (chunk,), salary_answer),
    }


def _names(specs) -> list[str]:
    return [spec.name for spec in specs]


def test_abstention_is_added_where_the_test_set_marks_a_question_unanswerable() -> None:
    chosen = with_default_abstention(BOTH, RETRIEVAL, [_records()])
    assert _names(chosen) == ["hit_rate@3", "mrr", "abstention"]


def test_a_test_set_without_unanswerable_questions_keeps_its_metrics() -> None:
    only_answerable = TestSet((ANSWERABLE,))
    assert with_default_abstention(only_answerable, RETRIEVAL, [_records()]) == RETRIEVAL


def test_a_run_without_answers_keeps_its_metrics() -> None:
    records = {qid: RunRecord(qid, record.retrieved, None) for qid, record in _records().items()}
    assert with_default_abstention(BOTH, RETRIEVAL, [records]) == RETRIEVAL


def test_answers_in_any_pass_count_and_an_errored_answer_does_not() -> None:
    unanswered = {"rate": RunRecord("rate", answer=None), "salary": RunRecord("salary")}
    errored = {"rate": RunRecord("rate", answer="partial", error="timeout")}
    assert with_default_abstention(BOTH, RETRIEVAL, [unanswered, errored]) == RETRIEVAL
    assert _names(with_default_abstention(BOTH, RETRIEVAL, [unanswered, _records()]))[-1] == (
        "abstention"
    )


def test_auto_false_turns_the_default_off() -> None:
    assert with_default_abstention(BOTH, RETRIEVAL, [_records()], auto=False) == RETRIEVAL


def test_a_list_that_names_abstention_is_kept_as_it_is() -> None:
    listed = parse_metric_list("abstention,hit_rate@3")
    assert with_default_abstention(BOTH, listed, [_records()]) == listed


def test_the_config_key_auto_reads_true_by_default_and_false_when_set() -> None:
    assert generation_settings(None, "ragguard.yml").abstention_auto is True
    assert generation_settings({"abstention": "judge", "judge": _judge()}, "r.yml").abstention_auto
    off = generation_settings({"abstention": {"auto": False}}, "ragguard.yml")
    assert off.abstention_auto is False
    assert off.abstention_method == "lexical"


def _judge() -> dict[str, str]:
    return {"base_url": "http://127.0.0.1:9/v1", "model": "m"}


def test_prepared_passes_score_abstention_with_its_fingerprint_without_settings() -> None:
    """Retrieval metrics only and no generation settings (``ragguard score --metrics
    hit_rate@3``): abstention is set up with the defaults, scored, and recorded in the
    results' settings as a listed abstention is."""
    prepared = prepare_passes(BOTH, [RunPass(_records())], RETRIEVAL, None)
    results = prepared.score(suite="s")
    assert results.metrics == ("hit_rate@3", "mrr", "abstention")
    assert results.by_id["salary"].metrics == {"abstention": 0.0}
    assert "abstention" not in results.by_id["rate"].metrics
    assert results.config == {"abstention": {"method": "lexical"}}


def test_prepared_passes_leave_abstention_out_with_auto_false() -> None:
    settings = GenerationSettings(abstention_auto=False)
    prepared = prepare_passes(BOTH, [RunPass(_records())], RETRIEVAL, settings)
    results = prepared.score(suite="s")
    assert results.metrics == ("hit_rate@3", "mrr")
    assert results.by_id["salary"].metrics == {}


def test_a_refusal_scores_abstention_one() -> None:
    records = _records(salary_answer="I don't know; the documentation does not say.")
    results = prepare_passes(BOTH, [RunPass(records)], RETRIEVAL, None).score(suite="s")
    assert results.by_id["salary"].metrics == {"abstention": 1.0}
