"""An agent's question scored by its steps: each expected hop against the retrieval step
that answers it (metrics/hops.py), and its tool calls against the expected ones
(metrics/tools.py).

A hop's values are the retrieval metrics of its own labels on its step's ranking, exactly
as trec_eval scores that ranking as a query with those labels; ``hop_recall@k`` and
``hop_ndcg@k`` are their mean over the question's hops (an unmatched hop counts 0).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ragguard.metrics.hops import HOPS_REACHED, align_hops, hops_reached
from ragguard.metrics.names import HOP_NEEDS_K, MetricSpec
from ragguard.metrics.tools import TOOL_METRICS, Call, ToolMatch, match_calls
from ragguard.results.agent import AgentDetail, CallDetail, HopDetail
from ragguard.results.chunks import Chunk
from ragguard.results.records import RunRecord
from ragguard.results.steps import Step, retrieval_steps, tool_steps
from ragguard.scoring.ranking import retrieval_values
from ragguard.testset.model import Hop, Question


@dataclass(frozen=True, slots=True)
class HopScores:
    """Every hop's detail, and whether each hop's evidence was retrieved by some step."""

    hops: tuple[HopDetail, ...]
    reached: bool

    def values(self, specs: Sequence[MetricSpec]) -> dict[str, float]:
        """The question's hop metrics: each per-hop value's mean, and ``hops_reached``."""
        values = {
            spec.name: sum(hop.values[spec.name] for hop in self.hops) / len(self.hops)
            for spec in specs
            if spec.base in HOP_NEEDS_K
        }
        values[HOPS_REACHED] = 1.0 if self.reached else 0.0
        return values


def agent_specs(specs: Sequence[MetricSpec]) -> tuple[MetricSpec, ...]:
    return tuple(spec for spec in specs if spec.is_agent)


def applies(spec: MetricSpec, question: Question) -> bool:
    """Hop metrics apply to questions with hops, tool metrics to ones with expected tools."""
    return bool(question.expected_tools) if spec.base in TOOL_METRICS else bool(question.hops)


def zero_values(question: Question, specs: Sequence[MetricSpec]) -> dict[str, float]:
    """A failed or missing answer scores 0 on every agent metric that applies."""
    return {spec.name: 0.0 for spec in specs if applies(spec, question)}


def agent_values(
    question: Question,
    record: RunRecord,
    specs: Sequence[MetricSpec],
    origins: Mapping[str, Chunk] | None = None,
    min_coverage: float | None = None,
) -> tuple[dict[str, float], AgentDetail | None]:
    """The agent metrics of ``specs`` that apply to the question, from the record's steps,
    and what the results file keeps of its hops and tool calls (None: neither applies)."""
    wanted = [spec for spec in specs if applies(spec, question)]
    if not wanted:
        return {}, None
    values: dict[str, float] = {}
    hops: tuple[HopDetail, ...] = ()
    if question.hops:
        scores = score_hops(question, record.steps, wanted, origins, min_coverage)
        values.update(scores.values(wanted))
        hops = scores.hops
    detail = AgentDetail(hops)
    if question.expected_tools:
        match = tool_match(question, record.steps)
        values.update(match.values())
        detail = _with_tools(detail, match)
    return {spec.name: values[spec.name] for spec in wanted if spec.name in values}, detail


def _with_tools(detail: AgentDetail, match: ToolMatch) -> AgentDetail:
    def kept(calls: Sequence[Call]) -> tuple[CallDetail, ...]:
        return tuple(CallDetail(call.name, call.arguments) for call in calls)

    return dataclasses.replace(
        detail,
        called=kept(match.made),
        missing_tools=kept(match.missing),
        unexpected_tools=kept(match.unexpected),
        has_tools=True,
    )


def tool_match(question: Question, steps: Sequence[Step]) -> ToolMatch:
    """The record's tool calls paired with the question's expected ones."""
    expected = [Call(call.name, call.arguments) for call in question.expected_tools]
    made = [Call(step.name or "", step.arguments) for step in tool_steps(steps)]
    return match_calls(expected, made, question.tool_order)


def score_hops(
    question: Question,
    steps: Sequence[Step],
    specs: Sequence[MetricSpec],
    origins: Mapping[str, Chunk] | None = None,
    min_coverage: float | None = None,
) -> HopScores:
    """Each hop matched to a retrieval step and scored there (per-hop values are keyed by
    the question metric's name: ``hop_recall@5`` of a hop is its ``recall@5``)."""
    rankings = retrieval_steps(steps)
    singles = [_hop_question(question, hop) for hop in question.hops]
    found = [
        [_found(single, step.retrieved, origins, min_coverage) for step in rankings]
        for single in singles
    ]
    per_hop = [spec for spec in specs if spec.base in HOP_NEEDS_K]
    matches = align_hops(found)
    outcomes = []
    for number, (single, matched) in enumerate(zip(singles, matches, strict=True)):
        step = rankings[matched] if matched is not None else None
        chunks = step.retrieved if step is not None else ()
        values = _ranking_values(single, chunks, per_hop, origins, min_coverage)
        missing = _missed(single, chunks, origins, min_coverage)
        place = matched + 1 if matched is not None else None
        query = step.query if step is not None else _query_in_its_place(number, matches, rankings)
        outcomes.append(HopDetail(place, query, values, missing))
    return HopScores(tuple(outcomes), hops_reached(found) == 1.0)


def _query_in_its_place(
    number: int, matches: Sequence[int | None], rankings: Sequence[Step]
) -> str | None:
    """An unmatched hop's query for the report: that of the one retrieval step between the
    hops matched before and after it that no hop took, else none."""
    before = max((m for m in matches[:number] if m is not None), default=-1)
    after = min((m for m in matches[number + 1 :] if m is not None), default=len(rankings))
    free = [index for index in range(before + 1, after) if index not in matches]
    return rankings[free[0]].query if len(free) == 1 else None


def _hop_question(question: Question, hop: Hop) -> Question:
    """The question as trec_eval would see one hop: the hop's labels alone."""
    return dataclasses.replace(
        question, relevant=hop.relevant, evidence=hop.evidence, hops=(), expected_tools=()
    )


def _ranking_values(
    single: Question,
    chunks: tuple[Chunk, ...],
    specs: Sequence[MetricSpec],
    origins: Mapping[str, Chunk] | None,
    min_coverage: float | None,
) -> dict[str, float]:
    """``hop_recall@k`` and the like: the chunk-level metric of the hop on ``chunks``."""
    if not specs:
        return {}
    chunk_specs = tuple(MetricSpec(spec.base.removeprefix("hop_"), spec.k) for spec in specs)
    values = retrieval_values(single, chunks, chunk_specs, origins, min_coverage)[0]
    return {spec.name: values[level.name] for spec, level in zip(specs, chunk_specs, strict=True)}


def _found(
    single: Question,
    chunks: tuple[Chunk, ...],
    origins: Mapping[str, Chunk] | None,
    min_coverage: float | None,
) -> float:
    """The share of the question's relevant labels the ranking retrieved, at any depth."""
    if not chunks:
        return 0.0
    spec = MetricSpec("recall", len(chunks))
    return retrieval_values(single, chunks, (spec,), origins, min_coverage)[0][spec.name]


def _missed(
    single: Question,
    chunks: tuple[Chunk, ...],
    origins: Mapping[str, Chunk] | None,
    min_coverage: float | None,
) -> tuple[str, ...]:
    """The hop's relevant labels (chunk ids, evidence keys) the ranking did not retrieve."""
    ids = {chunk.id for chunk in chunks}
    missed = [c for c, grade in single.relevant.items() if grade >= 1 and c not in ids]
    for evidence in single.evidence:
        alone = dataclasses.replace(single, relevant={}, evidence=(evidence,))
        if evidence.grade >= 1 and _found(alone, chunks, origins, min_coverage) == 0:
            missed.append(evidence.key)
    return tuple(missed)
