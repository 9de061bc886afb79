"""Text for generation metrics: sentence segmentation, content words and stems, quantities.

Segmentation is plain code, so the denominator of faithfulness never depends on a model:
the same answer always gives the same segments with the same ids (``s1``, ``s2``, ...).

Rules (see docs/generation.md):

- Fenced code blocks (````` ``` ````` or ``~~~``) are one segment each; inline code spans are
  never split.
- Markdown list items (``-``, ``*``, ``+``, ``1.``, ``1)``) and table rows start a new
  segment; headings (``#`` and underlined) and horizontal rules are not statements and are
  left out.
- Inside a paragraph or list item, a sentence ends at ``.``, ``!`` or ``?`` followed by
  whitespace, except after an abbreviation (e.g., i.e., U.S., etc. before a lowercase word)
  or a single initial. Decimals, versions (1.5, v2.3.1), URLs and e-mail addresses carry no
  whitespace after their dots, so they are never split.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Any


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of a literal word list."""
    return frozenset(text.split())


# NLTK's English stopword list (179 words), plus the seed's extra function words
# (per, every, may, can, each, with) and a few more that carry no checkable content.
STOPWORDS = word_set(
    """
    i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
    yourselves he him his himself she she's her hers herself it it's its itself they them
    their theirs themselves what which who whom this that that'll these those am is are was
    were be been being have has had having do does did doing a an the and but if or because
    as until while of at by for with about against between into through during before after
    above below to from up down in out on off over under again further then once here there
    when where why how all any both each few more most other some such no nor not only own
    same so than too very s t can will just don don't should should've now d ll m o re ve y
    ain aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven
    haven't isn isn't ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn
    shouldn't wasn wasn't weren weren't won won't wouldn wouldn't
    per every may might must could would shall also many much via yes please
    """
)

_TERM = re.compile(r"[a-z0-9-]+")
# A word that denies what its clause says (compared on normalized text).
# Every negation starts with "n", "c" or "w": the lookahead skips the other positions
# cheaply (the same matches in two thirds of the time).
NEGATION = re.compile(
    r"(?=[ncw])(?:\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without)\b|n't\b)"
)
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u2010": "-", "\u2011": "-"})
_PLAIN = (("\u2019", "'"), ("\u2018", "'"), ("\u2010", "-"), ("\u2011", "-"))


def normalize(text: str) -> str:
    """Lowercase, with typographic apostrophes and hyphens made plain."""
    if text.isascii():
        return text.lower()  # nothing to replace: the common case, and the fast one
    for typographic, plain in _PLAIN:
        text = text.replace(typographic, plain)  # in C, unlike a translate with a table
    return text.lower()


def tokens(text: str) -> list[str]:
    """The seed's tokens: lowercased runs of ``[a-z0-9-]``, stray hyphens dropped."""
    found = (token.strip("-") for token in _TERM.findall(normalize(text)))
    return [token for token in found if token]


def content_terms(text: str) -> frozenset[str]:
    """Distinct tokens that are not stopwords: what a statement claims."""
    return frozenset(token for token in tokens(text) if token not in STOPWORDS)


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The Snowball (Porter 2) English stem of a lowercased word: ``paid``/``pays`` stay apart
    but ``requests``/``request`` and ``located``/``location`` meet. Cached: prose repeats."""
    return _english_stemmer().stemWord(word)


@functools.cache
def _english_stemmer() -> Any:
    import snowballstemmer  # imported on first use: the CLI's start-up does not pay for it

    return snowballstemmer.stemmer("english")


# Written numbers read as quantities ("one" is left out: too often a pronoun).
_TWO_TO_TWENTY = (
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty"
)
_TENS = "thirty forty fifty sixty seventy eighty ninety"
NUMBER_WORDS = {word: float(n) for n, word in enumerate(_TWO_TO_TWENTY.split(), start=2)}
NUMBER_WORDS |= {word: float(n) for n, word in zip(range(30, 100, 10), _TENS.split(), strict=True)}
NUMBER_WORDS |= {"zero": 0.0, "hundred": 100.0, "thousand": 1000.0, "million": 1e6}
NUMBER_WORDS |= {"billion": 1e9, "dozen": 12.0, "twice": 2.0}


_WORD = re.compile(r"v?\d+(?:\.\d+){2,}(?![\w.])|[a-z0-9]+")


# Words that never carry content: stopwords, number words and single characters.
_NOT_CONTENT = (
    STOPWORDS | frozenset(NUMBER_WORDS) | frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
)
_HAS_DOT = re.compile(r"\.").search
_DIGIT = re.compile(r"\d")


def stem_set(normalized: str) -> frozenset[str]:
    """The distinct stems of the content words of already normalized text: the same as
    ``frozenset(stems(normalized))``, computed with set operations and stems looked up in C
    (no Python call per word): the context's every sentence goes through it."""
    words = set(_WORD.findall(normalized))
    words -= _NOT_CONTENT
    if _DIGIT.search(normalized) is None:
        return frozenset(map(stem, words))  # no number, no version: most sentences
    words.difference_update(list(filter(str.isdigit, words)))
    versions = set(filter(_HAS_DOT, words))
    if versions:
        return frozenset(map(stem, words - versions)) | versions
    return frozenset(map(stem, words))


def stems(text: str) -> list[str]:
    """Stems of the words of ``text`` that carry content, in order (see :func:`stemmed_words`)."""
    return [stemmed for _, stemmed in stemmed_words(text)]


def stemmed_words(text: str) -> list[tuple[str, str]]:
    """(word, stem) for the words of ``text`` that carry content, in order: stopwords and
    bare numbers dropped (numbers are compared as quantities), hyphenated words split, a
    version string (``2.3.1``) kept whole."""
    found = []
    for word in _WORD.findall(normalize(text)):
        if "." in word:
            found.append((word, word))
        elif (
            len(word) > 1
            and word not in STOPWORDS
            and word not in NUMBER_WORDS
            and not word.isdigit()
        ):
            found.append((word, stem(word)))
    return found


# Every quantity starts with a digit: the lookahead skips the other positions cheaply (the
# same matches in a third of the time).
_QUANTITY = re.compile(
    r"(?=\d)"
    r"(?:(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![.,]?\d)|(?<![\w.,])\d+(?:\.\d+)?(?![.,]?\d))"
)


_LETTERS = re.compile(r"[a-z]+")


def quantities(text: str) -> frozenset[float]:
    """The numbers ``text`` states, as values: ``1,000`` = ``1000`` = ``1000.0``; written
    numbers from two to ninety, hundred, thousand, million, dozen (``one`` is too often a
    pronoun). A unit may follow (``10ms``, ``1.5x``); digits after letters (``PS4``, ``mp3``,
    ``v2``) are names, not quantities, and so are versions (``2.3.1``: a word of its own)."""
    found: set[float] = set()
    lowered = normalize(text)
    for match in _QUANTITY.finditer(lowered):
        value = match.group(0).replace(",", "")
        if value.count(".") <= 1 and math.isfinite(number := float(value)):
            found.add(number)
    found.update(map(NUMBER_WORDS.__getitem__, NUMBER_WORDS.keys() & _LETTERS.findall(lowered)))
    return frozenset(found)


@dataclass(frozen=True, slots=True)
class Segment:
    """One statement of an answer: a stable id (``s1``...), its text and its kind."""

    id: str
    text: str
    kind: str = "sentence"  # sentence, item (list item), code (fenced block), row (table)


_FENCE = re.compile(r"^\s*(```|~~~)")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$")
_SETEXT = re.compile(r"^\s{0,3}(?:=+|-+)\s*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_CODE_SPAN = re.compile(r"(`+)(?:.+?)\1", re.DOTALL)
_BOUNDARY = re.compile(r"[.!?]+[\"')\]*_]*\s+")

# Never end a sentence: the next word continues it whatever its case.
ABBREVIATIONS = word_set(
    "e.g. i.e. cf. vs. approx. incl. esp. mr. mrs. ms. dr. prof. st. jr. sr. u.s. u.k. e.u. a.m. p.m."
)
# End a sentence unless the next word starts with a digit ("see No. 5", "p. 12").
NUMBERING_ABBREVIATIONS = word_set("no. nos. p. pp. vol. ch. sec. fig. figs.")
# End a sentence only when the next word starts with an upper-case letter.
SOFT_ABBREVIATIONS = word_set("etc. al.")


def split_sentences(text: str) -> list[str]:
    """Split one paragraph (no markdown structure left) into sentences."""
    masked = _mask_code_spans(text)
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(masked):
        if _continues(masked, match):
            continue
        sentence = text[start : match.end()].strip()
        if sentence:
            sentences.append(sentence)
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def _word_ending_at(text: str, end: int) -> str:
    """The run of non-space characters that ends at ``end``, found by a bounded backward scan.

    Looking back from the boundary (not re-searching the whole prefix) keeps segmentation
    linear in the answer's length.
    """
    start = end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return text[start:end]


def _mask_code_spans(text: str) -> str:
    """Replace code spans by same-length filler so their dots are never boundaries."""
    return _CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), text)


def _continues(text: str, match: re.Match[str]) -> bool:
    """True when the punctuation at ``match`` does not end the sentence."""
    if match.end() >= len(text):
        return False
    if text[match.start()] != ".":
        return False
    word = _word_ending_at(text, match.start() + 1).lower().lstrip("([\"'*_")
    next_char = text[match.end()]
    if word in ABBREVIATIONS:
        return True
    if word in NUMBERING_ABBREVIATIONS:
        return next_char.isdigit()
    if word in SOFT_ABBREVIATIONS:
        return not next_char.isupper()
    return False


def segment(answer: str | None) -> tuple[Segment, ...]:
    """Split a markdown answer into statements with stable ids ``s1``, ``s2``, ..."""
    pieces: list[tuple[str, str]] = []
    for kind, block in _blocks(answer or ""):
        if kind in ("code", "row"):
            pieces.append((kind, block))
        else:
            sentences = split_sentences(block)
            for index, sentence in enumerate(sentences):
                pieces.append((kind if index == 0 else "sentence", sentence))
    return tuple(
        Segment(f"s{number}", text, kind) for number, (kind, text) in enumerate(pieces, start=1)
    )


def _blocks(text: str) -> list[tuple[str, str]]:
    """Markdown into (kind, text) blocks: paragraphs, list items, table rows, code blocks."""
    blocks: list[tuple[str, str]] = []
    current: list[str] = []
    kind = "sentence"
    fence: str | None = None
    code: list[str] = []

    def flush() -> None:
        nonlocal current, kind
        joined = " ".join(line.strip() for line in current).strip()
        if joined:
            blocks.append((kind, joined))
        current, kind = [], "sentence"

    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1) == fence:
                body = "\n".join(code).strip("\n")
                if body.strip():
                    blocks.append(("code", body))
                fence, code = None, []
            else:
                code.append(line)
            continue
        if opened:
            flush()
            fence = opened.group(1)
            continue
        stripped = line.strip()
        if current and kind == "sentence" and _SETEXT.match(line):
            current.pop()  # the line above was a setext heading (Title / =====)
            flush()
            continue
        if not stripped or _HEADING.match(line) or _RULE.match(line):
            flush()
            continue
        if stripped.startswith("|"):
            flush()
            if not _TABLE_SEPARATOR.match(stripped):
                cells = [cell.strip() for cell in stripped.strip("|").split("|")]
                row = " | ".join(cell for cell in cells if cell)
                if row:
                    blocks.append(("row", row))
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush()
            kind = "item"
            current.append(line[bullet.end() :])
            continue
        if stripped.startswith(">"):
            stripped = stripped.lstrip("> ").strip()
        current.append(stripped)
    if fence is not None:
        body = "\n".join(code).strip("\n")
        if body.strip():
            blocks.append(("code", body))
    flush()
    return blocks
