"""Lexical faithfulness: the share of an answer's claims that the retrieved context supports.

The seed's rule, made to hold on real LLM prose (docs/generation.md, "Measured on real
answers"). Per statement of the answer:

1. Is it a claim? Lead-ins, questions, refusals, courtesy, remarks about the context and
   statements without a content word are not (:mod:`ragguard.metrics.claims`): verdict
   ``None``, counted on neither side of the ratio.
2. Its **support share** is the share of its content stems (Snowball stems, stopwords and
   framing words dropped), each weighted by its rarity in the context
   (:meth:`Context.weight`), found in the best piece of evidence: up to
   :data:`EVIDENCE_SENTENCES` adjacent sentences of one retrieved chunk. Words of the question
   count as found: restating the question claims nothing new. Words scattered over several
   chunks do not support a statement.
3. Two checks fail the claim whatever the share: a **quantity** the statement states that
   no chunk holding the evidence (nor the question) contains (``1,000`` = ``1000``, ``two`` =
   ``2``; citations such as "(Passage 1)" and step references are not quantities), and a
   **contradiction**: a clause of the statement that matches a clause of the context word
   for word while exactly one of the two is negated.
4. What the checks found (:func:`findings_of`) is scored by the model learned from
   human-labelled answers (:mod:`ragguard.metrics.faithfulness_model`): the score is
   the support share less the penalties of the other findings (a name no chunk holds, words
   no chunk uses, ...), 0 when a check of step 3 fails. The statement is supported when the
   score reaches the threshold (the strictness level's, default :data:`DEFAULT_THRESHOLD`).
   The verdict keeps the score, the evidence chunk and, as its reason, what lowered it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain

from ragguard.core.bulk import collector_paused
from ragguard.core.weighed_cache import WeighedCache
from ragguard.metrics.claims import NO_CONTENT, Claim, claim_of, not_a_claim
from ragguard.metrics.context_clauses import ContextClauses
from ragguard.metrics.faithfulness_model import (
    MISSING_WORDS,
    Findings,
    Model,
    missing_names,
    reasons,
    shipped_model,
)
from ragguard.metrics.passage_analysis import (
    EVIDENCE_SENTENCES,
    GAP,
    Evidence,
    EvidenceWindows,
    Passage,
    analyse_passage,
    clauses,
    is_negated,
)
from ragguard.metrics.support_search import (
    Postings,
    heaviest_run,
    lowest,
    merged_postings,
)
from ragguard.metrics.text import Segment, quantities, stems
from ragguard.results.model import SentenceVerdict

# The score a claim needs at the default strictness, and the levels (docs/generation.md,
# "Strictness"): thresholds the fitting script chose by the share of clean answers flagged.
DEFAULT_THRESHOLD = shipped_model().threshold()
STRICTNESS_LEVELS = tuple(shipped_model().levels)
EMPTY_CONTEXT = "empty context"
_SHOWN_WORDS = 6

# A contradiction: a clause of the context holds every stem of the statement's clause, and
# those are at least CONTRADICTION_EVIDENCE of the context clause's own stems.
CONTRADICTION_EVIDENCE = 0.6


@dataclass(frozen=True)
class Context:
    """The retrieved chunks and the question, analysed once for every statement. The
    context's sentences are numbered as :class:`EvidenceWindows` numbers them."""

    evidence: EvidenceWindows
    clauses: ContextClauses
    question_stems: frozenset[str]
    empty: bool
    sentences_with: Postings[str]  # stem -> numbers of the sentences holding it
    asked: frozenset[float] = frozenset()  # the question's quantities: any evidence has them
    evidence_holding: Mapping[float, int] = field(default_factory=dict)  # as bits of numbers
    _weights: dict[str, float] = field(default_factory=dict, compare=False, repr=False)

    def knows(self, stemmed: str) -> bool:
        """True when a chunk or the question has the stem."""
        return stemmed in self.question_stems or stemmed in self.sentences_with

    def weight(self, stemmed: str) -> float:
        """How much a word counts in a claim: log(1 + (N + 1) / (n + 1)) for N pieces of
        evidence, n of them holding the word (an inverse document frequency over the
        context). A word the context repeats everywhere says little about where a claim comes
        from; one it never uses weighs most. Never 0, so every claim has a weight."""
        found = self._weights.get(stemmed)
        if found is None:
            holding = self.evidence.count_holding(self.sentences_with.bits(stemmed))
            found = self._weights[stemmed] = math.log(1 + (len(self.evidence) + 1) / (1 + holding))
        return found


# The analysed contexts kept, by the characters of their text: an analysed context takes
# about 16 bytes per character (32 MiB for 2 MB), so about 64 MiB at most.
CACHED_CHARACTERS = 4_000_000
_ANALYSED: WeighedCache[tuple[tuple[tuple[str, str], ...], str], Context] = WeighedCache(
    CACHED_CHARACTERS
)


def analyse_context(context: tuple[tuple[str, str], ...], question: str = "") -> Context:
    """Analyse (chunk id, text) pairs in rank order, and the question. The latest contexts
    are kept (up to CACHED_CHARACTERS of text): calibration checks each sentence of an
    answer against the same context. A context that repeats a passage analyses it once."""
    size = sum(len(text) for _, text in context) + len(question)
    return _ANALYSED.get((context, question), lambda: _analysed_paused(context, question), size)


def forget_analysed_contexts() -> None:
    """Drop the kept analysed contexts (a benchmark times a first analysis)."""
    _ANALYSED.clear()


def _analysed_paused(context: tuple[tuple[str, str], ...], question: str) -> Context:
    with collector_paused():
        return _analysed(context, question)


def _analysed(context: tuple[tuple[str, str], ...], question: str) -> Context:
    """:func:`analyse_context`, uncached."""
    asked = quantities(question)
    seen: dict[str, Passage] = {}
    chunks: list[tuple[int, str, Passage]] = []
    size = 0
    for chunk_id, text in context:
        passage = seen.get(text) or seen.setdefault(text, analyse_passage(text, asked))
        chunks.append((size, chunk_id, passage))
        size += len(passage.sentences) + GAP if passage.sentences else 0
    evidence = EvidenceWindows(chunks)
    sentences = merged_postings([(start, p.holding) for start, _, p in chunks], size)
    return Context(
        evidence=evidence,
        clauses=ContextClauses(
            chain.from_iterable(passage.negated for _, _, passage in chunks),
            sentences,
            evidence.sentence,
        ),
        question_stems=frozenset(stems(question)),
        empty=not context,
        sentences_with=sentences,
        asked=asked,
        evidence_holding=evidence.holding_amounts(),
    )


def judge_sentence(
    segment: Segment,
    context: Context,
    threshold: float | None = None,
    model: Model | None = None,
) -> SentenceVerdict:
    """The verdict on one statement against the analysed context: what the checks found,
    scored by the model (:mod:`ragguard.metrics.faithfulness_model`); supported when the
    score reaches ``threshold`` (the default strictness's: None)."""
    reason = not_a_claim(segment.text)
    claim = None if reason else claim_of(segment.text)
    if claim is None:
        return SentenceVerdict(segment.id, segment.text, None, None, None, reason or NO_CONTENT)
    if context.empty:
        return SentenceVerdict(segment.id, segment.text, False, 0.0, None, EMPTY_CONTEXT)
    model = model or shipped_model()
    found, evidence = findings_of(segment.text, claim, context)
    score = model.score(found)
    supported = score >= (model.threshold() if threshold is None else threshold)
    note = None if supported else "; ".join(reasons(found, model))
    chunk_id = evidence.chunk_id if evidence is not None and found.share > 0 else None
    return SentenceVerdict(segment.id, segment.text, supported, score, chunk_id, note)


def findings_of(text: str, claim: Claim, context: Context) -> tuple[Findings, Evidence | None]:
    """What the lexical checks find on one claim, and the best evidence for it."""
    allowed = _holding_quantities(claim, context)
    share, evidence = _best_evidence(claim, allowed, context)
    number = _missing_number(claim, evidence) if allowed is not None and not allowed else None
    content = [s for s in claim.stems if s not in context.question_stems]
    unseen = [s for s in content if s not in context.sentences_with]
    findings = Findings(
        share=share,
        unseen=len(unseen) / len(content) if content else 0.0,
        number=number,
        contradiction=None if number else _contradiction(text, claim, context),
        names=missing_names(claim.text, context.knows),
        missing_words=tuple(_missing_words(claim, evidence, context)),
        unseen_words=tuple(_shown([claim.stems[s] for s in unseen])),
    )
    return findings, evidence


def _holding_quantities(claim: Claim, context: Context) -> int | None:
    """Numbers of the sentences, as the set bits of an int, whose chunk (or the question)
    holds every quantity of the claim; None when every sentence qualifies (no quantity, or
    only the question's). Intersecting them is an AND of ints."""
    allowed: int | None = None
    for amount in claim.quantities - context.asked:
        holding = context.evidence_holding.get(amount, 0)
        allowed = holding if allowed is None else allowed & holding
        if not allowed:
            return 0
    return allowed


def _best_evidence(
    claim: Claim, allowed: int | None, context: Context
) -> tuple[float, Evidence | None]:
    """The share of the claim's stems found in the best evidence among ``allowed`` (all, or
    when none is allowed all of it, for the note); question stems count as found; ties go
    to the higher-ranked chunk."""
    weights = {stemmed: context.weight(stemmed) for stemmed in claim.stems}
    wanted = [s for s in claim.stems if s not in context.question_stems]
    given = sum(weights[s] for s in claim.stems if s in context.question_stems)
    among = allowed or context.evidence.starts[0]
    first, length, found = heaviest_run(
        wanted, weights, context.sentences_with, among, EVIDENCE_SENTENCES
    )
    if first < 0:
        first, length = lowest(among) if among else -1, 1
    best = context.evidence.at(first, length) if first >= 0 else None
    if not weights or (best is not None and best.stems.issuperset(wanted)):
        return 1.0, best  # every word found (or none to find: numbers are judged apart)
    return (given + found) / sum(weights.values()), best


def _missing_number(claim: Claim, evidence: Evidence | None) -> str:
    """No chunk holds every quantity of the claim: name those the best evidence lacks."""
    missing = sorted(claim.quantities - (evidence.quantities if evidence else frozenset()))
    return f"number {', '.join(_number(value) for value in missing)} not in the evidence"


def _contradiction(text: str, claim: Claim, context: Context) -> str | None:
    """A clause of the statement that matches a clause of the context word for word while
    exactly one of the two is negated (and no clause of the statement's polarity matches as
    well); None when there is none."""
    if not is_negated(text) and context.clauses.negated_words.isdisjoint(claim.stems):
        return None  # nothing negated on either side: the clauses need not be compared
    for clause in clauses(text):
        opposite = context.clauses.first_holding(clause.stems, not clause.negated)
        if opposite is None or context.clauses.first_holding(clause.stems, clause.negated):
            continue
        if len(clause.stems) >= CONTRADICTION_EVIDENCE * len(opposite.stems):
            side = "statement" if clause.negated else "evidence"
            return f"contradicts the context: only the {side} is negated"
    return None


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:g}"


def _missing_words(claim: Claim, evidence: Evidence | None, context: Context) -> list[str]:
    found = evidence.stems if evidence is not None else frozenset()
    return _shown(
        [
            word
            for stemmed, word in claim.stems.items()
            if stemmed not in found and stemmed not in context.question_stems
        ]
    )


def _shown(words: list[str]) -> list[str]:
    """The first words of a list for a reason, ``...`` when there are more."""
    return [*words[:_SHOWN_WORDS], "..."] if len(words) > _SHOWN_WORDS else words


def lexical_verdicts(
    segments: Sequence[Segment],
    context: Sequence[tuple[str, str]],
    threshold: float | None = None,
    question: str = "",
) -> tuple[SentenceVerdict, ...]:
    """Lexical verdicts for every segment of an answer against its context and question."""
    analysed = analyse_context(tuple(context), question)
    judged: dict[tuple[str, str], SentenceVerdict] = {}
    return tuple(_judged_once(segment, analysed, threshold, judged) for segment in segments)


def _judged_once(
    segment: Segment,
    context: Context,
    threshold: float | None,
    judged: dict[tuple[str, str], SentenceVerdict],
) -> SentenceVerdict:
    """The verdict on ``segment``, judged once per distinct statement (text and kind) of an
    answer: a long answer repeats sentences, and the verdict depends on nothing else."""
    key = (segment.text, segment.kind)
    verdict = judged.get(key)
    if verdict is None:
        verdict = judged[key] = judge_sentence(segment, context, threshold)
    return verdict if verdict.id == segment.id else replace(verdict, id=segment.id)


def faithfulness_score(verdicts: Sequence[SentenceVerdict]) -> float:
    """Supported claims / claims. No claim at all scores 0 (nothing verifiable)."""
    checked = [verdict for verdict in verdicts if verdict.supported is not None]
    if not checked:
        return 0.0
    return sum(1 for verdict in checked if verdict.supported) / len(checked)


def hallucination_free_score(verdicts: Sequence[SentenceVerdict]) -> float:
    """1.0 when at least one claim was checked and none is unsupported, else 0.0.

    The per-answer 0/1 behind ``hallucination_free``, the share of answers without an
    unsupported statement: one bad sentence makes the whole answer count, however long.
    """
    checked = [verdict.supported for verdict in verdicts if verdict.supported is not None]
    return 1.0 if checked and all(checked) else 0.0


def verdict_lines(
    verdicts: Sequence[SentenceVerdict], clean: Callable[[str], str] = str
) -> list[str]:
    """The seed's report: ``SUPPORTED (1.00): sentence`` per statement, then the total.

    A statement that fails a check beyond the share (a number, a contradiction, a judge
    error) gets its note on the next line; ``clean`` makes untrusted text safe for the output.
    """
    lines = []
    for verdict in verdicts:
        label = {True: "SUPPORTED", False: "NOT FOUND", None: "NOT CHECKED"}[verdict.supported]
        score = "" if verdict.score is None else f" ({verdict.score:.2f})"
        lines.append(f"{label}{score}: {clean(verdict.text)}")
        if verdict.note and not verdict.note.startswith(MISSING_WORDS):
            lines.append(f"    {clean(verdict.note)}")
    checked = [verdict for verdict in verdicts if verdict.supported is not None]
    supported = sum(1 for verdict in checked if verdict.supported)
    lines.append(f"Faithfulness: {supported}/{len(checked)} sentences supported")
    return lines
