"""Drafting questions from a corpus (``ragguard testset draft``, docs/testset-drafting.md).

:func:`plan_drafting` reads the chosen documents, places the test set's labels on them
(:mod:`ragguard.testset.coverage`) and lays out one job per draft: a kind and the passages
it is drafted from, spread across documents and weighted toward uncovered ones. Then either
:func:`estimate` says what the judge would be asked (no call), :func:`draft_with_judge` asks
it, or :func:`draft_offline` makes extractive drafts. Every draft is checked (quotes verbatim
in their documents, not a near-duplicate) and what was dropped is tallied. Prints nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ragguard.core.errors import InputError
from ragguard.core.files import write_report
from ragguard.core.yaml_lines import parse_yaml
from ragguard.judge.cache import cache_key
from ragguard.results.chunks import Chunk
from ragguard.testset.coverage import corpus_coverage
from ragguard.testset.documents import Document
from ragguard.testset.drafting.checks import SeenQuestions, quotes_found, squeezed
from ragguard.testset.drafting.model import (
    COMPARISON,
    MULTI_HOP,
    OFFLINE_KINDS,
    TWO_PASSAGE_KINDS,
    Draft,
    Tally,
)
from ragguard.testset.drafting.offline import offline_candidates
from ragguard.testset.drafting.passages import Passage, covered_spans, passages_of, spread
from ragguard.testset.drafting.prompts import drafting_messages
from ragguard.testset.drafting.replies import MalformedReply, draft_from_reply
from ragguard.testset.drafting.sources import read_for_drafting
from ragguard.testset.drafting.writing import appended, drafts_yaml
from ragguard.testset.model import Question

if TYPE_CHECKING:
    from ragguard.judge.client import ChatReply, JudgeClient

# Completion tokens a reply of each kind is estimated to take (--estimate).
COMPLETION_TOKENS = {
    "single-fact": 120,
    "multi-hop": 170,
    "comparison": 170,
    "unanswerable": 70,
    "follow-up": 250,
}
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class DraftRequest:
    """What to draft: from which documents, how many of which kinds, against which test set."""

    corpus: Path
    count: int
    kinds: tuple[str, ...]
    seed: int = 0
    docs: str | None = None
    questions: tuple[Question, ...] = ()
    offline: bool = False
    chunks: Mapping[str, Chunk] = field(default_factory=dict)  # places chunk-id labels


@dataclass(frozen=True)
class DraftJob:
    """One draft to ask for: its kind, its passages and the messages asking for it."""

    kind: str
    passages: tuple[Passage, ...]

    @property
    def docs(self) -> frozenset[str]:
        return frozenset(passage.doc for passage in self.passages)

    @property
    def messages(self) -> list[dict[str, str]]:
        return drafting_messages(self.kind, self.passages)


@dataclass(frozen=True)
class DraftPlan:
    """The documents read, the passages in the order they are taken, and the jobs."""

    documents: tuple[Document, ...]
    passages: tuple[Passage, ...]
    jobs: tuple[DraftJob, ...]
    unavailable: tuple[str, ...]  # requested kinds this corpus or mode cannot draft

    def texts(self) -> dict[str, str]:
        """Each document's text with runs of white space squeezed, for the quote check."""
        return {document.id: squeezed(document.text) for document in self.documents}


@dataclass(frozen=True)
class Estimate:
    """What drafting with the judge would cost: calls, cached replies and tokens."""

    drafts: int
    calls: int
    cached: int
    prompt_tokens: int
    completion_tokens: int

    def line(self) -> str:
        return (
            f"estimate: {self.drafts} drafts, {self.calls} judge calls to make "
            f"({self.cached} replies cached), about {self.prompt_tokens} prompt + "
            f"{self.completion_tokens} completion tokens ({CHARS_PER_TOKEN} characters a "
            "token; drafts dropped by the checks are not replaced); no call made"
        )


@dataclass(frozen=True)
class DraftOutcome:
    drafts: tuple[Draft, ...]
    tally: Tally


def plan_drafting(request: DraftRequest) -> DraftPlan:
    """Read the corpus, sample its passages and lay out the jobs (no network)."""
    documents = read_for_drafting(request.corpus, request.docs)
    coverage = corpus_coverage(documents, request.questions, request.chunks)
    by_doc = [
        passages_of(document, covered_spans(document, seen))
        for document, seen in zip(documents, coverage.documents, strict=True)
    ]
    order = tuple(spread(by_doc, request.seed))
    if not order:
        raise InputError(
            "--corpus",
            f"the {len(documents)} documents under {str(request.corpus)!r} hold no passage to "
            "draft from (none has a paragraph of a few words); check the folder or --docs",
        )
    if request.offline:
        unavailable = tuple(kind for kind in request.kinds if kind not in OFFLINE_KINDS)
        return DraftPlan(documents, order, (), unavailable)
    single_doc = len({passage.doc for passage in order}) < 2
    unavailable = (MULTI_HOP,) if single_doc and MULTI_HOP in request.kinds else ()
    kinds = tuple(kind for kind in request.kinds if kind not in unavailable)
    jobs = tuple(_jobs(order, kinds, request.count)) if kinds else ()
    return DraftPlan(documents, order, jobs, unavailable)


def _jobs(order: Sequence[Passage], kinds: Sequence[str], count: int) -> Iterator[DraftJob]:
    """Up to ``count`` jobs, kinds in turn, each taking the next passage in order that its
    kind has not drafted from yet (from the start again when they run out); a kind that has
    drafted from every passage drops out."""
    used: dict[str, set[int]] = {kind: set() for kind in kinds}
    turn = [kind for kind in kinds]
    position = made = 0
    while made < count and turn:
        kind = turn[made % len(turn)]
        step = next(
            (s for s in range(len(order)) if (position + s) % len(order) not in used[kind]), None
        )
        if step is None:
            turn.remove(kind)
            continue
        index = (position + step) % len(order)
        used[kind].add(index)
        position = index + 1
        job = _job(order, kind, index)
        if job is not None:
            made += 1
            yield job


def _job(order: Sequence[Passage], kind: str, index: int) -> DraftJob | None:
    """The job of ``kind`` from the passage at ``index`` (and, for a two-passage kind, the
    next one of another document), or None when it has no partner."""
    first = order[index]
    if kind not in TWO_PASSAGE_KINDS:
        return DraftJob(kind, (first,))
    second = _partner(order, index + 1, first, same_doc=kind == COMPARISON)
    return DraftJob(kind, (first, second)) if second is not None else None


def _partner(
    order: Sequence[Passage], position: int, first: Passage, *, same_doc: bool
) -> Passage | None:
    """The next passage after ``position`` from another document; of the same document
    (another passage) when none is and ``same_doc`` allows it."""

    def following() -> Iterator[Passage]:
        return (order[(position + step) % len(order)] for step in range(len(order)))

    other = next((p for p in following() if p.doc != first.doc), None)
    if other is None and same_doc:
        other = next((p for p in following() if p != first), None)
    return other


def estimate(plan: DraftPlan, client: JudgeClient) -> Estimate:
    """Calls and tokens the plan would take: prompt tokens from the messages' characters."""
    calls = cached = prompt = completion = 0
    for job in plan.jobs:
        if _is_cached(client, job):
            cached += 1
            continue
        calls += 1
        prompt += len(json.dumps(job.messages, ensure_ascii=False)) // CHARS_PER_TOKEN
        completion += COMPLETION_TOKENS[job.kind]
    return Estimate(len(plan.jobs), calls, cached, prompt, completion)


def check_budget(plan: DraftPlan, client: JudgeClient) -> None:
    """Refuse, before any call, a plan needing more calls than ``judge.max_calls``."""
    budget = client.settings.max_calls
    needed = estimate(plan, client).calls
    if budget is not None and needed > budget:
        raise InputError(
            client.settings.source,
            f"drafting needs {needed} judge calls, more than max_calls = {budget}; raise "
            "judge.max_calls or lower --count",
            key="judge.max_calls",
        )


def _is_cached(client: JudgeClient, job: DraftJob) -> bool:
    entry = client.cache.get(cache_key(client.request_body(job.messages)))
    return entry is not None and isinstance(entry.get("content"), str)


def draft_with_judge(
    plan: DraftPlan, client: JudgeClient, existing: Iterable[str] = ()
) -> DraftOutcome:
    """Ask the judge for every job (``judge.concurrency`` at a time) and keep the drafts
    that pass the checks, in the jobs' order; ``existing``: the test set's questions."""
    source = f"judge:{client.settings.model}"

    def ask(job: DraftJob) -> ChatReply:
        return client.chat(job.messages, lambda content: _readable(content, job, source))

    workers = max(1, min(client.settings.concurrency, len(plan.jobs)))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="draft") as pool:
        replies = list(pool.map(ask, plan.jobs))
    tally = Tally()
    candidates: list[Draft] = []
    for job, reply in zip(plan.jobs, replies, strict=True):
        if reply.content is None:
            tally.failures.append(reply.error)
            continue
        try:
            candidates.append(draft_from_reply(reply.content, job.kind, job.docs, source))
        except MalformedReply:
            tally.malformed += 1
    kept = _checked(candidates, plan.texts(), SeenQuestions(existing), tally, len(plan.jobs))
    return DraftOutcome(kept, tally)


def _readable(content: str, job: DraftJob, source: str) -> bool:
    try:
        draft_from_reply(content, job.kind, job.docs, source)
    except MalformedReply:
        return False
    return True


def draft_offline(plan: DraftPlan, count: int, existing: Iterable[str] = ()) -> DraftOutcome:
    """Extractive single-fact drafts from the passages in order, until ``count`` are kept."""
    tally = Tally()
    kept = _checked(
        offline_candidates(plan.passages), plan.texts(), SeenQuestions(existing), tally, count
    )
    return DraftOutcome(kept, tally)


def _checked(
    candidates: Iterable[Draft], texts: dict[str, str], seen: SeenQuestions, tally: Tally, most: int
) -> tuple[Draft, ...]:
    """The candidates whose quotes are found and that repeat no question, up to ``most``."""
    kept: list[Draft] = []
    for draft in candidates:
        if len(kept) >= most:
            break
        if not quotes_found(draft, texts):
            tally.not_found += 1
        elif not seen.keep(draft):
            tally.duplicates += 1
        else:
            kept.append(draft)
            tally.drafted[draft.kind] += 1
    return tuple(kept)


NOT_A_LIST = (
    "is not a YAML list of questions in block style (a 'questions:' mapping, a [...] list?); "
    "drafts are appended to such a list: give --out drafts.yaml"
)


def check_appendable(path: Path) -> None:
    """Refuse, before any drafting, a test set the drafts cannot be appended to."""
    if path.exists() and not _block_list(path, path.read_bytes().decode("utf-8")):
        raise InputError(path, NOT_A_LIST)


def _block_list(path: Path, text: str) -> bool:
    if not text.strip():
        return True
    try:
        return isinstance(parse_yaml(text, path), list) and text.lstrip().startswith(("-", "#"))
    except InputError:
        return False


def write_drafts(target: Path, drafts: Sequence[Draft], *, append: bool, header: str) -> None:
    """Append the drafts to the test set ``target`` (its bytes kept) or write a file of them,
    atomically; refused when the result would not be a YAML list of questions."""
    existing = target.read_bytes().decode("utf-8") if append and target.exists() else ""
    text = appended(existing, drafts_yaml(drafts, f"{header}; review before use"))
    if not _block_list(target, text):
        raise InputError(target, NOT_A_LIST)
    write_report(target, text)
