"""Hand-made comparison inputs, built through scoring.score_run as real results files are.

Used by test_compare.py, test_render.py and the golden files (tests/golden/, regenerated
with ``RAGGUARD_UPDATE_GOLDEN=1 python -m pytest tests/test_render.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ragguard.config.sections.gate import GateRules
from ragguard.metrics.faithfulness import hallucination_free_score
from ragguard.metrics.names import parse_metric_list
from ragguard.results.chunks import Chunk
from ragguard.results.model import QuestionResult, Results, SentenceVerdict
from ragguard.results.records import RunRecord
from ragguard.scoring.repeats import combine_repeats
from ragguard.scoring.score import score_run, summarize
from ragguard.testset.model import Question, TestSet

METRICS = "hit_rate@1,hit_rate@3,mrr,ndcg@3"
CONFIG = {"metrics": METRICS, "faithfulness": {"method": "lexical", "threshold": 0.75}}
BASELINE_GIT = {"sha": "1f2e3d4c5b6a79881726354433221100ffeeddcc", "ref": "refs/heads/main"}
HEAD_GIT = {"sha": "aa11bb22cc33dd44ee55ff6600778899aabbccdd", "ref": "refs/pull/42/merge"}
BASELINE_TIME = "2026-11-28T09:00:00+00:00"
HEAD_TIME = "2026-11-30T12:30:00+00:00"

QUESTIONS = (
    Question("auth-token", "How do I get an API token?", {"auth": 2}, tags=("authentication",)),
    Question(
        "auth-expiry",
        "How long does a token stay valid?",
        {"auth": 1, "tokens": 2},
        tags=("authentication",),
        critical=True,
    ),
    Question(
        "retry-429",
        "How should a client retry after a 429?",
        {"rate-limits": 2},
        tags=("rate-limits",),
    ),
    Question(
        "limit-per-minute",
        "How many requests per minute are allowed?",
        {"rate-limits": 2, "quotas": 1},
        tags=("rate-limits",),
    ),
    Question(
        "page-size", "What is the maximum page size?", {"pagination": 2}, tags=("pagination",)
    ),
    Question("next-page", "How do I fetch the next page?", {"pagination": 2}, tags=("pagination",)),
    Question(
        "webhook-retry", "Are webhooks retried?", {"webhooks": 2}, tags=("webhooks", "rate-limits")
    ),
    Question("order-cancel", "Can a shipped order be cancelled?", {"orders": 2}, tags=("orders",)),
)

FILLER = ("changelog", "faq", "glossary", "sdk", "status")


def ranking(relevant_first: str, rank: int, length: int = 5) -> list[str]:
    """A ranking with ``relevant_first`` at ``rank`` (0: left out) among filler chunks."""
    others = [c for c in FILLER][: length - (1 if rank else 0)]
    if rank:
        others.insert(rank - 1, relevant_first)
    return others


def records(
    ranks: Mapping[str, int],
    *,
    questions: Sequence[Question] = QUESTIONS,
    latency: float = 100.0,
    errors: Mapping[str, str] | None = None,
    answers: Mapping[str, str] | None = None,
) -> dict[str, RunRecord]:
    """One record per question: its best-graded relevant chunk at ``ranks[id]`` (default 1)."""
    out = {}
    for index, q in enumerate(questions):
        best = max(q.relevant, key=lambda c: (q.relevant[c], c)) if q.relevant else "none"
        chunks = tuple(Chunk(c) for c in ranking(best, ranks.get(q.id, 1)))
        error = (errors or {}).get(q.id)
        out[q.id] = RunRecord(
            q.id,
            () if error else chunks,
            answer=(answers or {}).get(q.id, f"Answer to {q.id}."),
            latency_ms=latency + 10.0 * index,
            error=error,
        )
    return out


def results(
    ranks: Mapping[str, int] | None = None,
    *,
    questions: Sequence[Question] = QUESTIONS,
    metrics: str = METRICS,
    config: Mapping[str, object] = CONFIG,
    git: Mapping[str, str | None] = BASELINE_GIT,
    created_at: str = BASELINE_TIME,
    suite: str = "orders-api",
    run_questions: Sequence[Question] | None = None,
    **record_options: object,
) -> Results:
    """Score a run built by :func:`records` (from ``run_questions``, default the test set)."""
    run_for = run_questions or questions
    run = records(ranks or {}, questions=run_for, **record_options)  # type: ignore[arg-type]
    return score_run(
        TestSet(tuple(questions)),
        run,
        parse_metric_list(metrics),
        suite=suite,
        config=dict(config),
        git=dict(git),
        created_at=created_at,
    )


def head_results(ranks: Mapping[str, int] | None = None, **options: object) -> Results:
    options.setdefault("git", HEAD_GIT)
    options.setdefault("created_at", HEAD_TIME)
    return results(ranks, **options)  # type: ignore[arg-type]


def supported(text: str, evidence: str, score: float = 0.9, index: int = 0) -> SentenceVerdict:
    return SentenceVerdict(f"s{index}", text, True, score, evidence)


def unsupported(text: str, evidence: str | None, score: float, index: int = 0) -> SentenceVerdict:
    return SentenceVerdict(f"s{index}", text, False, score, evidence)


def with_sentences(
    base: Results, sentences: Mapping[str, Sequence[SentenceVerdict]], default_evidence: str = "faq"
) -> Results:
    """Add faithfulness (supported / sentences), hallucination_free (scored with it, as
    ``ragguard score`` does) and the verdicts; unnamed questions: 1 sentence."""

    def add(question: QuestionResult) -> QuestionResult:
        verdicts = tuple(
            sentences.get(question.id, [supported(f"{question.id} answer.", default_evidence)])
        )
        share = sum(1 for s in verdicts if s.supported) / len(verdicts)
        metrics = {
            **question.metrics,
            "faithfulness": share,
            "hallucination_free": hallucination_free_score(verdicts),
        }
        return replace(question, sentences=verdicts, metrics=metrics)

    questions = tuple(add(q) for q in base.questions)
    names = (*base.metrics, "faithfulness", "hallucination_free")
    return replace(base, questions=questions, metrics=names, summary=summarize(questions, names))


# The golden scenarios (tests/golden/<name>.md is render_comment of each).


def case_no_change() -> tuple[Results | None, Results, GateRules]:
    return with_sentences(results(), {}), with_sentences(head_results(), {}), GateRules()


def case_regression() -> tuple[Results | None, Results, GateRules]:
    baseline = with_sentences(results(latency=120.0), {})
    head = with_sentences(
        head_results({"auth-expiry": 0, "retry-429": 4}, latency=180.0),
        {
            "limit-per-minute": [
                supported("Clients get 100 requests per minute per API key.", "rate-limits", 0.92),
                unsupported("Enterprise keys get 5000 requests per minute.", "quotas", 0.31, 1),
                unsupported("Limits reset at midnight UTC.", None, 0.0, 2),
            ]
        },
    )
    return baseline, head, GateRules()


def case_fixed() -> tuple[Results | None, Results, GateRules]:
    baseline = results({"retry-429": 0, "next-page": 4, "webhook-retry": 5})
    return baseline, head_results({"webhook-retry": 2}), GateRules()


def case_drift() -> tuple[Results | None, Results, GateRules]:
    relabelled = replace(QUESTIONS[-1], relevant={"status": 2})
    added = Question(
        "webhook-sign", "How are webhooks signed?", {"webhooks": 2}, tags=("webhooks",)
    )
    head_questions = (*QUESTIONS[1:-1], relabelled, added)
    head = head_results(questions=head_questions, run_questions=(*QUESTIONS[1:], added))
    return results(), head, GateRules()


def case_no_baseline() -> tuple[Results | None, Results, GateRules]:
    return None, with_sentences(head_results({"retry-429": 4}), {}), GateRules()


def case_error() -> tuple[Results | None, Results, GateRules]:
    errors = {
        "auth-token": "timeout after 30s",
        "retry-429": "HTTP 500 from http://127.0.0.1:8000/answer",
    }
    return results(), head_results(errors=errors), GateRules()


def case_incomparable() -> tuple[Results | None, Results, GateRules]:
    config = {**CONFIG, "faithfulness": {"method": "judge", "threshold": 0.8}}
    return results(), head_results(config=config), GateRules()


def case_cut() -> tuple[Results | None, Results, GateRules]:
    """300 questions that all newly fail, with long answers: more than GitHub's limit."""
    questions = tuple(
        Question(
            f"topic-{i:03d}",
            f"Question {i} about the Orders API, asked at length: " + "why " * 40,
            {f"chunk-{i:03d}": 2},
            tags=(f"area-{i % 12:02d}",),
        )
        for i in range(300)
    )
    metrics = "hit_rate@3,mrr"
    baseline = results(questions=questions, metrics=metrics)
    head = head_results({q.id: 0 for q in questions}, questions=questions, metrics=metrics)
    sentences = {
        q.id: [
            unsupported(f"Sentence {j} of a long made-up answer " + "blah " * 80, "faq", 0.1, j)
            for j in range(4)
        ]
        for q in questions
    }
    return with_sentences(baseline, {}), with_sentences(head, sentences), GateRules()


MADE_UP = [
    supported("Clients get 100 requests per minute per API key.", "rate-limits", 0.92),
    unsupported("Enterprise keys get 5000 requests per minute.", "quotas", 0.31, 1),
]


def case_repeats() -> tuple[Results | None, Results, GateRules]:
    """Both sides asked each question 3 times (combine_repeats, as ``system.repeat: 3`` writes
    them): the critical auth-expiry fails 2 of 3 runs, limit-per-minute hallucinates in 2 of
    3, page-size became flaky (fails 1 of 3), retry-429 became stable (failed 1 of 3 before)."""
    baseline = combine_repeats(
        [
            with_sentences(results(latency=120.0), {}),
            with_sentences(results({"retry-429": 4}, latency=120.0), {}),
            with_sentences(results(latency=120.0), {}),
        ]
    )
    made_up = {"limit-per-minute": MADE_UP}
    head = combine_repeats(
        [
            with_sentences(head_results({"auth-expiry": 0}), made_up),
            with_sentences(head_results({"auth-expiry": 0, "page-size": 4}), {}),
            with_sentences(head_results(), made_up),
        ]
    )
    return baseline, head, GateRules()


GOLDEN_CASES = {
    "no-change": case_no_change,
    "regression-hallucination": case_regression,
    "fixed": case_fixed,
    "drift": case_drift,
    "no-baseline": case_no_baseline,
    "error": case_error,
    "incomparable": case_incomparable,
    "cut": case_cut,
    "repeats": case_repeats,
}
