"""Failing questions in a report: who fails, why in one line, and repeated whys grouped.

A reviewer reads the first few failing questions; when a change breaks many answers the same
way (the same unsupported sentence appended to each, the same error), one line naming the
why and the questions it hit says more than the same sentence quoted again and again.
Critical questions always come first and are never folded into a group.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ragguard.compare import (
    ADDED,
    FAILED_STATUSES,
    HALLUCINATION_METRIC,
    NEWLY_FAILING,
    Comparison,
    QuestionDiff,
    RankChange,
    RuleMiss,
    Unlabelled,
)
from ragguard.compare.pairing import retrieval_spec
from ragguard.compare.questions import id_order
from ragguard.metrics.names import ABSTENTION, is_hop_metric
from ragguard.metrics.tools import TOOL_METRICS
from ragguard.render.agents import hop_text, tool_text
from ragguard.render.text import and_more, code_name, escape_markdown, fmt, printable
from ragguard.results.model import SentenceVerdict
from ragguard.testset.conversations import turn_number

GROUP_IDS_SHOWN = 12
# Why an ``answerable: false`` question fails the per-question rule's ``abstention: 1``.
ANSWERED_UNANSWERABLE = (
    "answered a question the test set marks unanswerable ({flag}); expected a refusal"
)


@dataclass(frozen=True, slots=True)
class FailingEntry:
    """One bullet of the failing list: one question, or several that fail for the same why.

    ``text`` is markdown with every untrusted part escaped.
    """

    text: str
    questions: int
    critical: bool


def failing_questions(comparison: Comparison) -> tuple[QuestionDiff, ...]:
    """Newly failing questions (without a baseline: those failing the rule), critical first,
    then by id with numbers in order (q3 before q12)."""
    if comparison.baseline_missing:
        chosen: Iterable[QuestionDiff] = (q for q in comparison.of_kind(ADDED) if fails(q))
    else:
        chosen = comparison.of_kind(NEWLY_FAILING)
    return tuple(sorted(chosen, key=lambda q: (not q.critical, id_order(q.id))))


def fails(question: QuestionDiff) -> bool:
    return bool(question.misses) or question.head_status in FAILED_STATUSES


def question_title(question: QuestionDiff) -> str:
    """**id** _(critical)_ · tags: the question."""
    flags = " _(critical)_" if question.critical else ""
    runs = question.decided_by
    if runs is not None and (question.recheck is not None or not question.head_runs.passes):
        state = "flaky: " if question.flaky_failure else "rechecked: " if question.recheck else ""
        flags += f" _({state}{runs.line()})_"
    tags = ", ".join(escape_markdown(tag, 40) for tag in question.tags)
    title = f"**{escape_markdown(question.id, 120)}**{flags}" + (f" · {tags}" if tags else "")
    if question.conversation is not None:
        turn = turn_number(question.id)
        title = f"{title} (turn {turn} of *{escape_markdown(question.conversation, 80)}*)"
    return f"{title}: {escape_markdown(question.question, 200)}"


def one_line_why(question: QuestionDiff) -> str:
    """Why the question fails, in one line: the error, the relevant chunk's fall, the first
    unsupported sentence, and any rule miss those do not already explain."""
    if question.head_status in FAILED_STATUSES:
        return f"{question.head_status}: {escape_markdown(question.error or 'no detail', 200)}"
    parts = []
    errored = errored_runs_text(question)
    if errored:
        parts.append(escape_markdown(errored, 240))
    if question.rank_change is not None:
        parts.append(rank_change_text(question.rank_change))
    if question.unlabelled:
        parts.append(unlabelled_text(question.unlabelled, shown=1, advice=False))
    had_baseline = question.baseline_status is not None
    parts.extend(hop_text(change, had_baseline) for change in question.hops)
    if question.tools is not None:
        parts.append(tool_text(question.tools, had_baseline))
    if question.hallucinated:
        first = escape_markdown(question.hallucinated[0].text, 160)
        more = len(question.hallucinated) - 1
        parts.append(
            f"unsupported: “{first}”"
            + (f" and {more} more sentence{'s' if more > 1 else ''}" if more else "")
        )
    for miss in _unexplained_misses(question):
        parts.append(miss_text(miss.metric, miss.baseline, miss.head, miss.threshold))
    return "; ".join(parts) or "fails the per-question rule"


def _unexplained_misses(question: QuestionDiff) -> list[RuleMiss]:
    """The rule misses the one-line why names: those its other parts do not explain."""
    return [
        miss
        for miss in question.misses
        if not (
            (question.rank_change is not None and retrieval_spec(miss.metric))
            or (question.hallucinated and miss.metric == HALLUCINATION_METRIC)
            or (question.hops and is_hop_metric(miss.metric))
            or (question.tools is not None and miss.metric in TOOL_METRICS)
        )
    ]


def why_key(question: QuestionDiff) -> tuple[object, ...]:
    """What the one-line why says, uncut: questions share a why only when this is equal
    (their shortened texts may match while the sentences, errors or chunk ids differ)."""
    if question.head_status in FAILED_STATUSES:
        return (question.head_status, question.error)
    unlabelled = question.unlabelled
    hallucinated = question.hallucinated
    return (
        errored_runs_text(question),
        question.rank_change,
        None
        if unlabelled is None
        else (unlabelled.k, unlabelled.chunks[:1], len(unlabelled.chunks)),
        question.hops,
        # the calls as said (arguments only where they are what changed)
        None if question.tools is None else tool_text(question.tools, True, markdown=False),
        (hallucinated[0].text, len(hallucinated)) if hallucinated else None,
        tuple(_unexplained_misses(question)),
    )


def errored_runs_text(question: QuestionDiff) -> str:
    """``errored in 2 of 3 runs: <first error>`` for a question asked several times whose shown
    run was evaluated but some runs were not (plain text: escape it where it is shown)."""
    runs = question.head_runs
    if runs is None or not runs.errored or question.head_status in FAILED_STATUSES:
        return ""
    return f"errored in {runs.errored} of {runs.runs} runs: {question.error or 'no detail'}"


def answered_unanswerable(question: QuestionDiff) -> bool:
    """Whether the question fails for answering what the test set marks unanswerable (one
    that could not be evaluated, an empty answer included, fails for its error)."""
    if question.head_status in FAILED_STATUSES:
        return False
    return any(miss.metric == ABSTENTION for miss in question.misses)


def answered_unanswerable_text(markdown: bool = True) -> str:
    """The why of a question that fails ``abstention`` (markdown, or plain for a terminal)."""
    flag = "answerable: false"
    return ANSWERED_UNANSWERABLE.format(flag=f"`{flag}`" if markdown else flag)


def miss_text(metric: str, baseline: float | None, head: float | None, threshold: float) -> str:
    """A rule the question misses, in markdown: the metric, its values and the threshold
    (``abstention``: that it answered an unanswerable question)."""
    if metric == ABSTENTION:
        return answered_unanswerable_text()
    before = "" if baseline is None else f"{fmt(baseline)} → "
    return f"{code_name(metric)} {before}{fmt(head)} (needs ≥ {threshold:g})"


def failing_entries(questions: Sequence[QuestionDiff]) -> list[FailingEntry]:
    """Critical questions one by one, then the rest with questions sharing a why grouped
    into one entry (placed where its first question would be)."""
    by_why: dict[tuple[object, ...], list[QuestionDiff]] = {}
    for question in questions:
        if not question.critical:
            by_why.setdefault(why_key(question), []).append(question)
    entries = []
    placed: set[tuple[object, ...]] = set()
    for question in questions:
        why = one_line_why(question)
        key = why_key(question)
        group = [] if question.critical else by_why[key]
        if len(group) > 1:
            if key not in placed:
                placed.add(key)
                entries.append(_group_entry(why, group))
            continue
        entries.append(FailingEntry(f"{question_title(question)} — {why}", 1, question.critical))
    return entries


def _group_entry(why: str, group: Sequence[QuestionDiff]) -> FailingEntry:
    listed = and_more(
        [f"**{escape_markdown(q.id, 80)}**" for q in group[:GROUP_IDS_SHOWN]], len(group)
    )
    return FailingEntry(f"{why} — {len(group)} questions: {listed}", len(group), False)


def failing_item(question: QuestionDiff, max_quotes: int | None) -> dict[str, Any]:
    """The full report's item: the title, every why, the unsupported sentences quoted."""
    lines = []
    if question.head_status in FAILED_STATUSES:
        lines.append(
            f"{question.head_status}: {escape_markdown(question.error or 'no detail', 300)}"
        )
    errored = errored_runs_text(question)
    if errored:
        lines.append(escape_markdown(errored, 300))
    if question.rank_change is not None:
        lines.append("retrieval: " + rank_change_text(question.rank_change))
    if question.unlabelled:
        lines.append(unlabelled_text(question.unlabelled))
    for miss in question.misses:
        if miss.metric != ABSTENTION or answered_unanswerable(question):
            lines.append(miss_text(miss.metric, miss.baseline, miss.head, miss.threshold))
    sentences = question.hallucinated
    shown = sentences if max_quotes is None else sentences[:max_quotes]
    quotes = [quote(s) for s in shown]
    if len(sentences) > len(shown):
        quotes.append(f"… and {len(sentences) - len(shown)} more unsupported sentences")
    return {"title": question_title(question), "lines": lines, "quotes": quotes}


def rank_change_text(change: RankChange) -> str:
    """Where the relevant chunk went, e.g. "the relevant chunk tokens fell from rank 1 to
    rank 4, out of the top 3"; with evidence labels, where the evidence went."""
    return _where_text(change, lambda chunk: f"*{escape_markdown(chunk, 80)}*")


def plain_rank_change(change: RankChange) -> str:
    """The same for a terminal."""
    return _where_text(change, lambda chunk: printable(chunk, 60))


def _where_text(change: RankChange, name: Callable[[str], str]) -> str:
    if change.evidence and (change.head_chunk is not None or change.head_rank is None):
        return "the evidence " + _evidence_phrase(change, name)
    return f"the relevant chunk {name(change.chunk)} {_rank_phrase(change, str(change.k))}"


def _evidence_phrase(change: RankChange, name: Callable[[str], str]) -> str:
    """Where the evidence went when no one chunk id tells it (a rechunk renames every chunk):
    the chunk holding it now and its rank, or that no retrieved chunk holds it."""
    if change.head_chunk is not None:
        now = f"{name(change.head_chunk)} at {_rank_in(change.head_rank, change.k)}"
        if change.baseline_rank is None:
            return f"is in {now}"
        return f"moved from {name(change.chunk)} at rank {change.baseline_rank} to {now}"
    if change.baseline_rank is None:
        return "is in no retrieved chunk"
    return (
        f"was in {name(change.chunk)} at rank {change.baseline_rank}; "
        "no retrieved chunk holds it now"
    )


def _rank_in(rank: int | None, k: int) -> str:
    return f"rank {rank}" + (f", out of the top {k}" if rank is not None and rank > k else "")


def _rank_phrase(change: RankChange, k: str) -> str:
    before, after = change.baseline_rank, change.head_rank
    if after is None:
        now = "is no longer retrieved" if before is not None else "is not retrieved"
    elif after > change.k:
        now = f"rank {after}, out of the top {k}"
    else:
        now = f"rank {after}"
    if before is None:
        return now if after is None else f"is at {now}"
    if after is None:
        return f"was at rank {before} and {now}"
    return f"{'fell' if after > before else 'moved'} from rank {before} to {now}"


def unlabelled_text(unlabelled: Unlabelled, shown: int = 3, advice: bool = True) -> str:
    """The chunks newly in the top k that no label judges (maybe relevant, not labelled);
    the advice is left out of the comment's one-line why (the job summary has it)."""
    chunks = unlabelled.chunks
    names = ", ".join(escape_markdown(chunk, 80) for chunk in chunks[:shown])
    more = f" and {len(chunks) - shown} more" if len(chunks) > shown else ""
    text = f"unlabelled, new in the top {unlabelled.k}: {names}{more}"
    return text + (
        " (if relevant, label them: the drop may be a better retriever)" if advice else ""
    )


def quote(sentence: SentenceVerdict) -> str:
    parts = []
    if sentence.score is not None:
        parts.append(f"support {sentence.score:.2f}")
    parts.append(
        f"closest chunk: {escape_markdown(sentence.evidence, 80)}"
        if sentence.evidence
        else "no supporting chunk found"
    )
    note = getattr(sentence, "note", None)
    if note:
        parts.append(escape_markdown(note, 160))
    return f"unsupported: “{escape_markdown(sentence.text, 300)}” ({'; '.join(parts)})"
