"""The context's analysis (ragguard.metrics.passage_analysis) computes, faster, exactly what
the plain definitions compute: each sentence's stems and clauses, the windows, which sentences
hold each stem and each quantity, how many windows hold each stem (issue #29, item 3: a 2 MB context). The plain definitions
are written out here as they stood, and compared on random text with apostrophes, hyphens,
negations, numbers, versions, citations and unicode."""

from __future__ import annotations

import gc
import math
import os
import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ragguard.core.bulk import collector_paused
from ragguard.metrics.claims import without_citations
from ragguard.metrics.faithfulness import analyse_context
from ragguard.metrics.passage_analysis import (
    _CLAUSE_BREAK,
    _NOT_A_DENIAL,
    _PARENTHESIS,
    EVIDENCE_SENTENCES,
    GAP,
    Clause,
    Evidence,
    analyse_passage,
    clauses,
    clauses_of_normalized,
    is_negated,
    window_count,
)
from ragguard.metrics.support_search import merged_postings, postings
from ragguard.metrics.text import (
    _APOSTROPHES,
    _QUANTITY,
    NEGATION,
    NUMBER_WORDS,
    normalize,
    quantities,
    split_sentences,
    stem_set,
    stems,
)

PIECES = (
    "don't", "isn't", "won't", "can't", "mayn't", "xn't", "not", "no", "never", "none",
    "nothing", "cannot", "without", "not only", "or not", "no more than", "(not)", "(no x)",
    "while", "but", "which", "so that", "however", " - ", ",", ";", ":", "(", ")", "\u2014",
    "\u2013", "\u2019", "\u2018", "\u2010", "\u2011", "'", "-", "--", ".", "?", "!", "2.3.1",
    "v1.2.3", "1,000", "10ms", "3.5", "42", "two", "twenty", "dozen", "1.2.3.", "Passage 2",
    "[1]", "steps 1 and 2", "api", "keys", "requests", "Located", "location", "\u0130stanbul",
    "\u03a3\u039f\u03a3", "stra\u00dfe", "\ufb01le", "caf\u00e9", "na\u00efve", "e.g.", "U.S.",
    "_", "not_x", "a", "b1", "x-ray", "-dash-", "  ", "\n",
)  # fmt: skip
texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=6)), max_size=30).map(
    lambda chosen: " ".join(chosen)
)
PROPERTY = settings(
    max_examples=int(os.environ.get("RAGGUARD_PROPERTY_EXAMPLES", "300")),
    deadline=None,
    derandomize="RAGGUARD_PROPERTY_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow],
)


def plain_normalize(text: str) -> str:
    return text.translate(_APOSTROPHES).lower()


def plain_is_negated(text: str) -> bool:
    plain = _NOT_A_DENIAL.sub(" ", _PARENTHESIS.sub(" ", plain_normalize(text)))
    return NEGATION.search(plain) is not None


def plain_clauses(sentence: str) -> tuple[Clause, ...]:
    found = []
    for part in _CLAUSE_BREAK.split(plain_normalize(sentence)):
        part_stems = frozenset(stems(NEGATION.sub(" ", part)))
        if len(part_stems) >= 2:
            found.append(Clause(part_stems, plain_is_negated(part)))
    return tuple(found)


def plain_quantities(text: str) -> frozenset[float]:
    found: set[float] = set()
    lowered = plain_normalize(text)
    for match in _QUANTITY.finditer(lowered):
        value = match.group(0).replace(",", "")
        if value.count(".") <= 1 and math.isfinite(number := float(value)):
            found.add(number)
    for word in re.findall(r"[a-z]+", lowered):
        if word in NUMBER_WORDS:
            found.add(NUMBER_WORDS[word])
    return frozenset(found)


def plain_windows(text: str) -> list[frozenset[str]]:
    sentences = split_sentences(text)
    sentence_stems = [frozenset(stems(sentence)) for sentence in sentences]
    windows = []
    for start in range(len(sentences)):
        joined: frozenset[str] = frozenset()
        for offset in range(min(EVIDENCE_SENTENCES, len(sentences) - start)):
            joined |= sentence_stems[start + offset]
            windows.append(joined)
    return windows


@PROPERTY
@given(texts)
@example("Don't stop \u0130stanbul 2.3.1 the x-ray isn't (not) ready, which never ends.")
def test_the_tokenisation_of_the_context_equals_the_plain_definitions(text: str) -> None:
    assert normalize(text) == plain_normalize(text)
    assert stem_set(normalize(text)) == frozenset(stems(text))
    assert is_negated(text) is plain_is_negated(text)
    assert clauses(text) == plain_clauses(text)
    normalized = normalize(text)
    assert clauses_of_normalized(normalized, stem_set(normalized)) == plain_clauses(text)
    assert quantities(text) == plain_quantities(text)


def plain_sentence_stems(text: str) -> list[frozenset[str]]:
    return [frozenset(stems(sentence)) for sentence in split_sentences(text)]


@PROPERTY
@given(st.lists(texts, max_size=8))
def test_the_windows_and_their_index_equal_the_plain_definitions(sentences: list[str]) -> None:
    text = ". ".join(sentences)
    passage = analyse_passage(text, frozenset({7.0}))
    windows = plain_windows(text)
    assert list(passage.windows) == windows
    assert window_count(len(passage.sentences)) == len(windows)
    assert list(passage.sentences) == plain_sentence_stems(text)
    assert passage.holding == dict(postings(plain_sentence_stems(text)))
    assert passage.amounts == frozenset({7.0}) | quantities(without_citations(text))
    assert passage.texts == tuple(plain_normalize(s) for s in split_sentences(text))
    every = [c for s in split_sentences(text) for c in plain_clauses(s)]
    assert passage.negated == tuple(c for c in every if c.negated)


@PROPERTY
@given(texts)
@example("We can't (or won't) say - which isn't never, not only x-ray.")
def test_a_negated_clause_needs_a_negation_word_and_a_plain_one_holds_its_sentences_stems(
    text: str,
) -> None:
    found = plain_clauses(text)
    if NEGATION.search(plain_normalize(text)) is None:
        assert not any(clause.negated for clause in found)
    whole = frozenset(stems(text))
    assert all(clause.stems <= whole for clause in found if not clause.negated)


# Chunks of few words, so that several clauses hold the stems sought.
FEW_WORDS = ("keys", "expire", "tokens", "renew", "daily", "not", "never", "isn't", ",", "which")
few_word_chunks = st.lists(
    st.lists(st.sampled_from(FEW_WORDS), min_size=1, max_size=7).map(" ".join), max_size=6
).map(". ".join)


@PROPERTY
@given(st.lists(st.tuples(st.sampled_from("abc"), texts | few_word_chunks), max_size=5))
@example([("a", "Keys expire, tokens renew. Keys expire daily, tokens never renew.")])
def test_the_first_clause_holding_the_stems_sought_is_the_plain_definitions(
    chunks: list[tuple[str, str]],
) -> None:
    analysed = analyse_context(tuple(chunks), "")
    every = [c for _, text in chunks for s in split_sentences(text) for c in plain_clauses(s)]
    negated_words = frozenset().union(*(c.stems for c in every if c.negated))
    assert analysed.clauses.negated_words == negated_words
    sought = {frozenset()} | {c.stems for c in every}
    sought |= {frozenset(sorted(c.stems)[:2]) for c in every}
    sought |= {frozenset(sorted(c.stems)[-1:]) | {"absent"} for c in every}
    for wanted in sought:
        for negated in (False, True):
            expected = next(
                (c for c in every if c.negated is negated and wanted and wanted <= c.stems), None
            )
            assert analysed.clauses.first_holding(wanted, negated) == expected


def numbered_sentences(chunks: list[tuple[str, str]]) -> list[tuple[int, int, frozenset[str]]]:
    """(number, chunk's position, stems) of the context's sentences, numbered as the plain definition
    says: in order, each chunk's sentences followed by GAP numbers holding nothing."""
    found, number = [], 0
    for chunk, (_, text) in enumerate(chunks):
        sentence_stems = plain_sentence_stems(text)
        for stemmed in sentence_stems:
            found.append((number, chunk, stemmed))
            number += 1
        number += GAP if sentence_stems else 0
    return found


@PROPERTY
@given(st.lists(st.tuples(st.sampled_from("abc"), texts), max_size=5), texts)
def test_the_analysed_context_equals_the_window_by_window_definition(
    chunks: list[tuple[str, str]], question: str
) -> None:
    analysed = analyse_context(tuple(chunks), question)
    asked = quantities(question)
    amounts = [asked | quantities(without_citations(text)) for _, text in chunks]
    evidence = [
        Evidence(chunk_id, window, asked | quantities(without_citations(text)))
        for chunk_id, text in chunks
        for window in plain_windows(text)
    ]
    assert list(analysed.evidence) == evidence
    assert len(analysed.evidence) == len(evidence)
    numbered = numbered_sentences(chunks)
    expected: dict[str, tuple[int, ...]] = {}
    for number, _, stemmed in numbered:
        for one in stemmed:
            expected[one] = (*expected.get(one, ()), number)
    assert dict(analysed.sentences_with) == expected
    for stemmed in {one for e in evidence for one in e.stems} | {"absent"}:
        holding = sum(1 for e in evidence if stemmed in e.stems)
        assert analysed.weight(stemmed) == math.log(1 + (len(evidence) + 1) / (1 + holding))
    assert set(analysed.evidence_holding) == {a for _, c, _ in numbered for a in amounts[c]}
    for amount in analysed.evidence_holding:
        in_chunks = {n for n, chunk, _ in numbered if amount in amounts[chunk]}
        bits = analysed.evidence_holding[amount]
        assert {n for n in range(bits.bit_length()) if bits >> n & 1} == in_chunks
    for number, chunk, stemmed in numbered:
        assert analysed.evidence.at(number, 1) == Evidence(
            chunks[chunk][0], stemmed, amounts[chunk]
        )


def test_merged_postings_equal_the_postings_of_all_the_sets() -> None:
    first = [frozenset("ab"), frozenset("b")]
    second = [frozenset("ca"), frozenset(), frozenset("a")]
    merged = merged_postings([(0, postings(first)), (2, postings(second))], 5)
    assert (
        dict(merged)
        == dict(postings(first + second))
        == {
            "a": (0, 2, 4),
            "b": (0, 1),
            "c": (2,),
        }
    )
    assert merged.size == 5


def test_the_evidence_of_a_long_context_is_made_on_demand_with_its_chunk() -> None:
    analysed = analyse_context((("c1", "Keys expire. Tokens renew."), ("c2", "")), "")
    assert len(analysed.evidence) == 3
    assert analysed.evidence[-1] == analysed.evidence[2]
    assert analysed.evidence[2].chunk_id == "c1"
    assert [e.stems for e in analysed.evidence[0:2]] == [
        frozenset({"key", "expir"}),
        frozenset({"key", "expir", "token", "renew"}),
    ]


def test_the_collector_is_paused_during_the_analysis_only() -> None:
    states = []
    with collector_paused():
        states.append(gc.isenabled())
    states.append(gc.isenabled())
    gc.disable()
    try:
        with collector_paused():
            pass
        states.append(gc.isenabled())
    finally:
        gc.enable()
    assert states == [False, True, False]
