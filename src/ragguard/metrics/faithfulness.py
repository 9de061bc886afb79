"""Lexical faithfulness: the share of answer statements that one retrieved chunk supports.

The seed's rule, per sentence: the share of its content terms found in the context; the
sentence is supported when the share reaches the threshold (0.75). Beyond the seed:

- Evidence is one chunk: the share is measured against each chunk on its own and the best
  chunk is the evidence, so words scattered across five chunks do not support a sentence.
- A number in the sentence that the evidence chunk does not contain makes it unsupported.
- A negation mismatch makes it unsupported: the sentence and the evidence chunk's sentence
  that shares most terms with it must agree on carrying a negation (not, no, never, n't...).

A segment without content terms ("Yes.", "See below:") is not a statement: its verdict is
``None`` and it counts in neither side of the ratio.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragguard.metrics.text import Segment, content_terms, is_negated, numbers, split_sentences
from ragguard.results import SentenceVerdict

DEFAULT_THRESHOLD = 0.75


@dataclass(frozen=True, slots=True)
class ChunkText:
    """A retrieved chunk's text, analysed once for every sentence of the answer."""

    id: str
    terms: frozenset[str]
    numbers: frozenset[str]
    sentences: tuple[tuple[frozenset[str], bool], ...]

    @classmethod
    def of(cls, chunk_id: str, text: str) -> ChunkText:
        sentences = tuple(
            (content_terms(sentence), is_negated(sentence)) for sentence in split_sentences(text)
        )
        return cls(chunk_id, content_terms(text), numbers(text), sentences)

    def negated_near(self, terms: frozenset[str]) -> bool:
        """Whether the chunk's sentence sharing most terms with ``terms`` is negated."""
        best_overlap, negated = -1, False
        for sentence_terms, sentence_negated in self.sentences:
            overlap = len(terms & sentence_terms)
            if overlap > best_overlap:
                best_overlap, negated = overlap, sentence_negated
        return negated


def analyse_context(context: Sequence[tuple[str, str]]) -> tuple[ChunkText, ...]:
    """Analyse (chunk id, text) pairs in rank order."""
    return tuple(ChunkText.of(chunk_id, text) for chunk_id, text in context)


@dataclass(frozen=True, slots=True)
class _Candidate:
    chunk: ChunkText
    share: float
    problem: str | None


def _candidate(
    chunk: ChunkText, terms: frozenset[str], sentence_numbers: frozenset[str], negated: bool
) -> _Candidate:
    share = len(terms & chunk.terms) / len(terms)
    missing = sorted(sentence_numbers - chunk.numbers)
    if missing:
        return _Candidate(chunk, share, f"number {', '.join(missing)} not in the evidence")
    if negated != chunk.negated_near(terms):
        side = "sentence" if negated else "evidence"
        return _Candidate(chunk, share, f"negation mismatch: only the {side} is negated")
    return _Candidate(chunk, share, None)


def judge_sentence(
    segment: Segment, chunks: Sequence[ChunkText], threshold: float = DEFAULT_THRESHOLD
) -> SentenceVerdict:
    """The lexical verdict on one segment against the analysed chunks."""
    terms = content_terms(segment.text)
    if not terms:
        return SentenceVerdict(segment.id, segment.text, None, None, None, "no content terms")
    if not chunks:
        return SentenceVerdict(segment.id, segment.text, False, 0.0, None, "empty context")
    sentence_numbers = numbers(segment.text)
    negated = is_negated(segment.text)
    candidates = [_candidate(chunk, terms, sentence_numbers, negated) for chunk in chunks]
    passing = [c for c in candidates if c.problem is None and c.share >= threshold]
    if passing:
        best = max(passing, key=lambda c: c.share)
        return SentenceVerdict(segment.id, segment.text, True, best.share, best.chunk.id)
    best = max(candidates, key=lambda c: c.share)
    note = best.problem if best.share >= threshold else f"share below {threshold:g}"
    evidence = best.chunk.id if best.share > 0 else None
    return SentenceVerdict(segment.id, segment.text, False, best.share, evidence, note)


def lexical_verdicts(
    segments: Sequence[Segment],
    context: Sequence[tuple[str, str]],
    threshold: float = DEFAULT_THRESHOLD,
) -> tuple[SentenceVerdict, ...]:
    """Lexical verdicts for every segment of an answer against its context."""
    chunks = analyse_context(context)
    return tuple(judge_sentence(segment, chunks, threshold) for segment in segments)


def faithfulness_score(verdicts: Sequence[SentenceVerdict]) -> float:
    """Supported statements / statements. No statement at all scores 0 (nothing verifiable)."""
    checked = [verdict for verdict in verdicts if verdict.supported is not None]
    if not checked:
        return 0.0
    return sum(1 for verdict in checked if verdict.supported) / len(checked)


def verdict_lines(
    verdicts: Sequence[SentenceVerdict], clean: Callable[[str], str] = str
) -> list[str]:
    """The seed's report: ``SUPPORTED (1.00): sentence`` per statement, then the total.

    A statement that fails a check beyond the share (a number, a negation, a judge error)
    gets its note on the next line; ``clean`` makes untrusted text safe for the output.
    """
    lines = []
    for verdict in verdicts:
        label = {True: "SUPPORTED", False: "NOT FOUND", None: "NOT CHECKED"}[verdict.supported]
        score = "" if verdict.score is None else f" ({verdict.score:.2f})"
        lines.append(f"{label}{score}: {clean(verdict.text)}")
        if verdict.note and not verdict.note.startswith("share below"):
            lines.append(f"    {clean(verdict.note)}")
    checked = [verdict for verdict in verdicts if verdict.supported is not None]
    supported = sum(1 for verdict in checked if verdict.supported)
    lines.append(f"Faithfulness: {supported}/{len(checked)} sentences supported")
    return lines
