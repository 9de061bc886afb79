"""A small RAG pipeline for the Orders API docs: BM25 retrieval and an extractive answerer.

Pure Python, deterministic, offline. Its knobs are the ones a team turns in a pull request:

- ``chunking``: ``section`` (one chunk per page), ``paragraph`` (each paragraph with the page
  title), or ``window`` (fixed windows of words, no title — a naive splitter).
- ``k``: how many chunks to return.
- ``rerank``: re-score the top chunks by how much of the question they cover.
- ``hallucinate``: append an unsupported sentence to some answers (to show faithfulness).

Retrieval returns chunks with real chunk ids (``rate-limits.md#2``: the page's second chunk
under this chunking), their page as ``doc`` and their text; the test set's labels are
evidence (a page and a quote), so they hold whatever the chunking.
"""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ragguard.results.chunks import Chunk
from ragguard.system.base import Answer
from ragguard.testset.model import Question

DATA_DIR = Path(__file__).parent / "orders_api"
DOCS_DIR = DATA_DIR / "docs"
TESTSET_PATH = DATA_DIR / "testset.yaml"
CHUNKINGS = ("section", "paragraph", "window")
ABSTAIN_ANSWER = "The documentation does not cover this."
ABSTAIN_BELOW = 0.3
HALLUCINATIONS = (
    "Limits reset every hour.",
    "This is only available on the Enterprise plan.",
    "The change takes effect after 48 hours.",
    "Requests made over plain HTTP are retried automatically.",
)
_STOPWORD_TEXT = """
a an and are as at be by can do does for from how i if in is it its me my of on or our
should so that the their then there this to up was what when where which who why will
with you your after before many much than into out we has have had may must not no any
all also
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_WORD = re.compile(r"[a-z0-9]+(?:[._-][a-z0-9]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")


@dataclass(frozen=True)
class PipelineSettings:
    chunking: str = "paragraph"
    window: int = 30
    k: int = 5
    rerank: bool = True
    hallucinate: bool = False

    def __post_init__(self) -> None:
        if self.chunking not in CHUNKINGS:
            raise ValueError(f"chunking must be one of {', '.join(CHUNKINGS)}")
        if self.k < 1 or self.window < 5:
            raise ValueError("k must be >= 1 and window >= 5")

    def describe(self) -> str:
        knobs = asdict(self)
        if self.chunking != "window":
            del knobs["window"]
        return ", ".join(f"{key}={value}" for key, value in knobs.items())


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    paragraphs: tuple[str, ...]


@dataclass(frozen=True)
class DocChunk:
    id: str
    section: str
    text: str
    terms: tuple[str, ...]

    @property
    def doc(self) -> str:
        return f"{self.section}.md"


def tokens(text: str) -> list[str]:
    """Lower-case words without stopwords, with a light plural strip (orders -> order)."""
    words = _WORD.findall(text.lower())
    return [_stem(word) for word in words if word not in STOPWORDS]


def _stem(word: str) -> str:
    """A crude stemmer: plural s dropped, long words cut to six letters (authenticate,
    authentication -> authen); numbers and dotted names stay whole."""
    if not word.isalpha():
        return word
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us")):
        word = word[:-1]
    return word[:6]


@cache
def load_sections() -> tuple[Section, ...]:
    """The docs pages shipped with the package: ``# Title`` then paragraphs."""
    sections = []
    for path in sorted(DOCS_DIR.glob("*.md")):
        blocks = [b.strip() for b in path.read_text(encoding="utf-8").split("\n\n") if b.strip()]
        title = blocks[0].lstrip("# ").strip()
        sections.append(Section(path.stem, title, tuple(" ".join(b.split()) for b in blocks[1:])))
    return tuple(sections)


def chunk_sections(sections: Sequence[Section], settings: PipelineSettings) -> list[DocChunk]:
    chunks: list[DocChunk] = []
    for section in sections:
        for number, text in enumerate(_split(section, settings), start=1):
            chunk_id = f"{section.id}.md#{number}"
            chunks.append(DocChunk(chunk_id, section.id, text, tuple(tokens(text))))
    return chunks


def _split(section: Section, settings: PipelineSettings) -> list[str]:
    if settings.chunking == "section":
        return [f"{section.title}. " + " ".join(section.paragraphs)]
    if settings.chunking == "paragraph":
        return [f"{section.title}. {paragraph}" for paragraph in section.paragraphs]
    words = " ".join(section.paragraphs).split()
    size = settings.window
    return [" ".join(words[start : start + size]) for start in range(0, len(words), size)]


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over the chunks' terms."""

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.counts = [Counter(doc) for doc in documents]
        self.lengths = [len(doc) for doc in documents]
        self.average = sum(self.lengths) / len(documents)
        frequency = Counter(term for doc in documents for term in set(doc))
        n = len(documents)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}
        self.missing_idf = math.log(1 + (n + 0.5) / 0.5)

    def scores(self, query: Sequence[str]) -> list[float]:
        results = []
        for counts, length in zip(self.counts, self.lengths, strict=True):
            norm = self.k1 * (1 - self.b + self.b * length / self.average)
            score = 0.0
            for term in set(query):
                tf = counts.get(term, 0)
                if tf:
                    score += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
            results.append(score)
        return results

    def weight(self, term: str) -> float:
        return self.idf.get(term, self.missing_idf)


class OrdersDocsPipeline:
    """The demo's RAG system, usable directly as a runner adapter."""

    def __init__(self, settings: PipelineSettings | None = None) -> None:
        self.settings = settings or PipelineSettings()
        self.chunks = chunk_sections(load_sections(), self.settings)
        self.index = BM25([chunk.terms for chunk in self.chunks])
        self.titles = {f"{section.title}." for section in load_sections()}

    def identity(self) -> dict[str, Any]:
        return {"kind": "demo", "target": "ragguard.demo.pipeline:OrdersDocsPipeline"}

    def ask(self, question: Question, timeout: float = 0.0) -> Answer:
        retrieved = self.retrieve(question.question)
        answer = self.answer(question.question, retrieved)
        if self.settings.hallucinate and answer != ABSTAIN_ANSWER:
            extra = _hallucination(question.id)
            if extra:
                answer = f"{answer} {extra}"
        return Answer(retrieved=tuple(retrieved), answer=answer)

    def retrieve(self, text: str) -> list[Chunk]:
        query = tokens(text)
        scores = self.index.scores(query)
        order = sorted(range(len(self.chunks)), key=lambda i: (-scores[i], i))
        if self.settings.rerank:
            order = self._rerank(query, order[:20], scores) + order[20:]
        ranked: list[Chunk] = []
        for i in order:
            chunk = self.chunks[i]
            if scores[i] <= 0:
                continue
            ranked.append(Chunk(chunk.id, chunk.text, round(scores[i], 4), doc=chunk.doc))
            if len(ranked) == self.settings.k:
                break
        return ranked

    def _rerank(self, query: list[str], top: list[int], scores: list[float]) -> list[int]:
        """Order the top chunks by the share of the question's weight they cover."""
        wanted = set(query)
        total = sum(self.index.weight(t) for t in wanted) or 1.0
        best = max((scores[i] for i in top), default=1.0) or 1.0

        def coverage(i: int) -> float:
            present = wanted & set(self.chunks[i].terms)
            return sum(self.index.weight(t) for t in present) / total + 0.5 * scores[i] / best

        return sorted(top, key=lambda i: (-coverage(i), i))

    def answer(self, text: str, retrieved: Sequence[Chunk]) -> str:
        """Quote the sentences of the top two chunks that cover the question best."""
        wanted = set(tokens(text))
        total = sum(self.index.weight(t) for t in wanted) or 1.0
        candidates: list[tuple[float, int, str]] = []
        for chunk in retrieved[:2]:
            for sentence in _SENTENCE_END.split(chunk.text or ""):
                if sentence.strip() in self.titles:
                    continue
                present = wanted & set(tokens(sentence))
                share = sum(self.index.weight(t) for t in present) / total
                candidates.append((share, len(candidates), sentence.strip()))
        if not candidates:
            return ABSTAIN_ANSWER
        best = max(share for share, _, _ in candidates)
        if best < ABSTAIN_BELOW:
            return ABSTAIN_ANSWER
        chosen = sorted(
            (c for c in candidates if c[0] >= 0.75 * best), key=lambda c: (-c[0], c[1])
        )[:2]
        quotes = [_as_sentence(sentence) for _, _, sentence in sorted(chosen, key=lambda c: c[1])]
        return " ".join(quotes)


def _as_sentence(text: str) -> str:
    """A quoted piece as a sentence of its own: a window of words may cut one mid-way."""
    text = text.strip()
    if text[:1].islower():
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _hallucination(question_id: str) -> str | None:
    """An unsupported sentence for about one question in three (stable across runs)."""
    digest = zlib.crc32(question_id.encode())
    if digest % 3:
        return None
    return HALLUCINATIONS[(digest // 3) % len(HALLUCINATIONS)]


@cache
def _default_pipeline() -> OrdersDocsPipeline:
    return OrdersDocsPipeline()


def answer(question: str, id: str = "") -> Answer:
    """The default pipeline as a ``python:`` target: ``ragguard.demo.pipeline:answer``.

    This is how ``examples/orders-api/ragguard.yml`` (this repository's own ragguard suite)
    runs the demo through ``ragguard run``, like any team's pipeline.
    """
    return _default_pipeline().ask(Question(id=id, question=question))
