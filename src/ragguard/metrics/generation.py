"""Generation metrics for one question: faithfulness, hallucination_free, answer_relevance,
answer_f1, abstention.

Pure: the judge's outcomes are computed beforehand (``judge_items`` lists what to ask) and
passed in, through the interface of :mod:`ragguard.metrics.judging`. Defined cases
(docs/generation.md):

- An empty answer: status ``error`` ("empty answer"), every generation metric 0.
- A refusal on an ``answerable: false`` question: abstention 1; faithfulness does not apply.
- A refusal on an answerable question: status ``abstained``, faithfulness, answer_relevance
  and answer_f1 0 (declining a question the docs answer counts against the system).
- An empty context: every statement is unsupported, faithfulness 0.
- hallucination_free is 1 when faithfulness was checked and is 1.0 (at least one statement
  checked, none unsupported), else 0: a refusal of an answerable question, an answer with no
  checkable statement and a judge error count as not free, as they score faithfulness 0.
- A judge that failed for this answer: status ``judge_error``, the metrics it was to decide 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ragguard.metrics.answers import answer_f1, declined
from ragguard.metrics.claims import non_claims
from ragguard.metrics.faithfulness import (
    faithfulness_score,
    hallucination_free_score,
    lexical_verdicts,
)
from ragguard.metrics.judging import Judge, JudgeItem, JudgeOutcome, JudgeVerdict
from ragguard.metrics.names import GENERATION as GENERATION_METRICS
from ragguard.metrics.relevance import judge_relevance, lexical_relevance
from ragguard.metrics.settings import GenerationSettings
from ragguard.metrics.text import Segment, segment
from ragguard.results.model import (
    STATUS_ABSTAINED,
    STATUS_ERROR,
    STATUS_JUDGE_ERROR,
    STATUS_OK,
    QuestionResult,
    SentenceVerdict,
)
from ragguard.results.records import RunRecord
from ragguard.testset.model import Question

STATEMENT_METRICS = ("faithfulness", "hallucination_free")  # both from the sentence verdicts
EMPTY_ANSWER = "empty answer (generation metrics need the system's answer)"


@dataclass(frozen=True)
class GenerationScore:
    """Generation metric values for one question, its sentence verdicts and any status."""

    metrics: dict[str, float]
    sentences: tuple[SentenceVerdict, ...] = ()
    status: str | None = None  # None keeps the status retrieval scoring gave
    error: str | None = None


def context_of(record: RunRecord, corpus: Mapping[str, str] | None) -> tuple[tuple[str, str], ...]:
    """(chunk id, text) of the retrieved chunks in rank order; text from the run or the corpus."""
    chunks = []
    for chunk in record.retrieved:
        text = chunk.text if chunk.text is not None else (corpus or {}).get(chunk.id)
        if text and text.strip():
            chunks.append((chunk.id, text))
    return tuple(chunks)


def missing_text(
    records: Mapping[str, RunRecord], corpus: Mapping[str, str] | None
) -> tuple[str, str] | None:
    """The first (question id, chunk id) whose text is in neither the run nor the corpus."""
    for record in records.values():
        for chunk in record.retrieved:
            if chunk.text is None and chunk.id not in (corpus or {}):
                return record.id, chunk.id
    return None


def applicable(question: Question, names: Sequence[str]) -> list[str]:
    """The requested generation metrics that apply to this question."""
    chosen = []
    for name in names:
        if name == "abstention" and question.answerable:
            continue
        if name == "answer_relevance" and not question.answerable:
            continue
        if name == "answer_f1" and question.reference_answer is None:
            continue
        if name in GENERATION_METRICS:
            chosen.append(name)
    return chosen


def judge_item(
    question: Question,
    record: RunRecord | None,
    names: Sequence[str],
    settings: GenerationSettings,
    corpus: Mapping[str, str] | None,
) -> JudgeItem | None:
    """What to ask the judge for this question, or ``None`` when no judge call is needed:
    no answer, no metric the judge scores, or a refusal the lexical method finds (with
    ``abstention`` not judged, a declined answer's metrics never read the judge's reply)."""
    if record is None or record.error:
        return None
    methods = settings.methods()
    if not any(methods.get(name) == "judge" for name in applicable(question, names)):
        return None  # decided before the answer is segmented: most runs judge nothing
    segments = segment(record.answer)
    if not segments:
        return None
    if methods["abstention"] != "judge" and declined(segments):
        return None
    return answer_item(question.id, question.question, segments, context_of(record, corpus))


def answer_item(
    key: str, question: str, segments: Sequence[Segment], context: Sequence[tuple[str, str]]
) -> JudgeItem:
    """One judge call for an answer: every statement shown, the non-claims marked unjudged."""
    not_claims = frozenset(non_claims(segments))
    return JudgeItem(key, question, tuple(segments), tuple(context), not_claims)


def score_generation(
    question: Question,
    record: RunRecord | None,
    names: Sequence[str],
    settings: GenerationSettings,
    corpus: Mapping[str, str] | None = None,
    outcome: JudgeOutcome | None = None,
) -> GenerationScore:
    """Score the requested generation metrics of one question."""
    wanted = applicable(question, names)
    if not wanted:
        return GenerationScore({})
    if record is None or record.error:
        return GenerationScore(dict.fromkeys(wanted, 0.0))
    segments = segment(record.answer)
    if not segments:
        return GenerationScore(dict.fromkeys(wanted, 0.0), status=STATUS_ERROR, error=EMPTY_ANSWER)
    context = context_of(record, corpus)
    verdict = outcome.verdict if outcome else None
    judge_failed = outcome is not None and verdict is None
    methods = settings.methods()
    uses_judge = {name for name in wanted if methods.get(name) == "judge"}
    if methods["abstention"] == "judge" and verdict is not None:
        did_decline = verdict.declined
    else:
        did_decline = declined(segments)
    values: dict[str, float] = {}
    sentences: tuple[SentenceVerdict, ...] = ()
    statements = [name for name in STATEMENT_METRICS if name in wanted]
    if statements and not (did_decline and not question.answerable):
        sentences = _faithfulness_verdicts(
            segments, context, question.question, settings, verdict, did_decline
        )
        checked = did_decline is False and (
            verdict is not None or methods["faithfulness"] == "lexical"
        )
        scores = {
            "faithfulness": faithfulness_score,
            "hallucination_free": hallucination_free_score,
        }
        values.update({name: scores[name](sentences) if checked else 0.0 for name in statements})
    if "answer_relevance" in wanted:
        values["answer_relevance"] = _relevance(question, record, methods, verdict, did_decline)
    if "answer_f1" in wanted and question.reference_answer is not None:
        values["answer_f1"] = (
            0.0 if did_decline else answer_f1(record.answer, question.reference_answer)
        )
    if "abstention" in wanted:
        values["abstention"] = 1.0 if did_decline else 0.0
    if judge_failed and outcome is not None:  # asked and failed: a judge error, counted once
        values.update(dict.fromkeys(uses_judge & values.keys(), 0.0))
        return GenerationScore(values, sentences, STATUS_JUDGE_ERROR, outcome.error)
    if did_decline and question.answerable:
        return GenerationScore(
            values, sentences, STATUS_ABSTAINED, "declined a question the docs answer"
        )
    return GenerationScore(values, sentences)


def _faithfulness_verdicts(
    segments: Sequence[Segment],
    context: Sequence[tuple[str, str]],
    question: str,
    settings: GenerationSettings,
    verdict: JudgeVerdict | None,
    did_decline: bool,
) -> tuple[SentenceVerdict, ...]:
    """Per-statement verdicts: "declined", the judge's, or the lexical method's."""
    if did_decline:
        return _declined_sentences(segments)
    if settings.faithfulness_method == "judge":
        return _judged_sentences(segments, verdict, context)
    return lexical_verdicts(segments, context, settings.threshold, question)


def _relevance(
    question: Question,
    record: RunRecord,
    methods: Mapping[str, str],
    verdict: JudgeVerdict | None,
    did_decline: bool,
) -> float:
    if did_decline:
        return 0.0
    if methods["answer_relevance"] == "judge":
        return judge_relevance(verdict.relevance) if verdict else 0.0
    return lexical_relevance(question.question, record.answer)


def _declined_sentences(segments: Sequence[Segment]) -> tuple[SentenceVerdict, ...]:
    return tuple(SentenceVerdict(s.id, s.text, None, None, None, "declined") for s in segments)


def _judged_sentences(
    segments: Sequence[Segment],
    verdict: JudgeVerdict | None,
    context: Sequence[tuple[str, str]],
) -> tuple[SentenceVerdict, ...]:
    """The judge's verdicts as sentence verdicts; no context means nothing is supported.
    Statements that are not claims are left out, as by the lexical method."""
    if verdict is None:
        return tuple(
            SentenceVerdict(s.id, s.text, None, None, None, "judge error") for s in segments
        )
    judged = verdict.by_id
    skipped = non_claims(segments)
    sentences = []
    for s in segments:
        if s.id in skipped:
            sentences.append(SentenceVerdict(s.id, s.text, None, None, None, skipped[s.id]))
            continue
        if not context:
            sentences.append(SentenceVerdict(s.id, s.text, False, 0.0, None, "empty context"))
            continue
        one = judged[s.id]
        score = 1.0 if one.supported else 0.0
        sentences.append(SentenceVerdict(s.id, s.text, one.supported, score, one.evidence))
    return tuple(sentences)


def judge_items(
    questions: Sequence[Question],
    records: Mapping[str, RunRecord],
    names: Sequence[str],
    settings: GenerationSettings,
    corpus: Mapping[str, str] | None = None,
) -> list[JudgeItem]:
    """Every judge call a scoring pass needs, one per answer (for the run and ``--dry-run``)."""
    items = []
    for question in questions:
        item = judge_item(question, records.get(question.id), names, settings, corpus)
        if item is not None:
            items.append(item)
    return items


NO_JUDGE = "judge: method judge is configured but no judge client was given"


def judge_outcomes(items: Sequence[JudgeItem], judge: Judge | None) -> dict[str, JudgeOutcome]:
    """Ask the judge for every item; without a judge each item fails (never a pass)."""
    if not items:
        return {}
    if judge is None:
        return {item.key: JudgeOutcome(None, NO_JUDGE) for item in items}
    return judge.judge_many(items)


def with_generation(
    result: QuestionResult,
    question: Question,
    record: RunRecord | None,
    names: Sequence[str],
    settings: GenerationSettings,
    corpus: Mapping[str, str] | None = None,
    outcome: JudgeOutcome | None = None,
) -> QuestionResult:
    """The question's result with its generation metrics, verdicts and status added.

    A status other than ``ok`` (the run failed or is missing) is kept.
    """
    scored = score_generation(question, record, names, settings, corpus, outcome)
    if not scored.metrics and not scored.sentences and scored.status is None:
        return result
    keep = result.status != STATUS_OK or scored.status is None
    return replace(
        result,
        metrics={**result.metrics, **scored.metrics},
        sentences=scored.sentences,
        status=result.status if keep else scored.status,
        error=result.error if keep else scored.error,
    )
