"""The search behind lexical faithfulness (metrics/support_search.py): the same answers as
comparing a statement with every piece one by one, in time that does not grow with the
copies of a passage a long context repeats (issue #29, item 3)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragguard.metrics.faithfulness import analyse_context, judge_sentence, lexical_verdicts
from ragguard.metrics.support_search import (
    bits_of,
    bits_of_ranges,
    heaviest,
    heaviest_run,
    postings,
    spread,
)
from ragguard.metrics.text import segment

PROPERTY = settings(
    max_examples=int(os.environ.get("RAGGUARD_PROPERTY_EXAMPLES", "300")),
    deadline=None,
    derandomize="RAGGUARD_PROPERTY_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow],
)
STEMS = tuple("abcdefgh")
# Weights whose sums depend on the order they are added in (0.1 + 0.2 + 0.3 differs from
# 0.3 + 0.2 + 0.1 in the last bit), and equal weights, so that ties are common.
WEIGHTS = (0.1, 0.2, 0.3, 0.7, 1.0, 1.0, 2.5)

pieces = st.lists(st.frozensets(st.sampled_from(STEMS), max_size=5), max_size=40)
wanted_stems = st.lists(st.sampled_from(STEMS), unique=True, max_size=8)


def one_by_one(
    wanted: Sequence[str],
    weights: dict[str, float],
    sets: Sequence[frozenset[str]],
    allowed: frozenset[int] | None,
) -> tuple[int, float]:
    """Every piece's total, added in the order of ``wanted``; the heaviest, ties to the first."""
    best, top = -1, 0.0
    for index, stems in enumerate(sets):
        if allowed is not None and index not in allowed:
            continue
        total = sum(weights[stemmed] for stemmed in wanted if stemmed in stems)
        if total > top or (total == top and index < best):
            best, top = index, total
    return best, top


@PROPERTY
@given(pieces, wanted_stems, st.data())
def test_the_heaviest_single_piece_is_comparing_every_piece_bit_for_bit(sets, wanted, data) -> None:
    weights = {stemmed: data.draw(st.sampled_from(WEIGHTS)) for stemmed in STEMS}
    allowed = data.draw(
        st.none() | st.frozensets(st.integers(0, max(len(sets) - 1, 0)), max_size=len(sets))
    )
    among = bits_of(range(len(sets)) if allowed is None else allowed, len(sets))
    found = heaviest_run(wanted, weights, postings(sets), among, 1)
    best, top = one_by_one(wanted, weights, sets, allowed)
    assert found == ((-1, 0, 0.0) if best < 0 else (best, 1, top))
    assert repr(found[2]) == repr(top)


@PROPERTY
@given(st.lists(pieces, max_size=6), wanted_stems, st.integers(1, 4), st.data())
def test_heaviest_run_is_comparing_every_window_bit_for_bit(
    passages, wanted, longest, data
) -> None:
    weights = {stemmed: data.draw(st.sampled_from(WEIGHTS)) for stemmed in STEMS}
    numbered: list[frozenset[str]] = []  # each passage's sets, then longest - 1 empty ones
    windows: list[tuple[int, int, frozenset[str]]] = []  # (first number, length, stems)
    for sets in passages:
        first = len(numbered)
        for start in range(len(sets)):
            for length in range(1, min(longest, len(sets) - start) + 1):
                joined = frozenset().union(*sets[start : start + length])
                windows.append((first + start, length, joined))
        numbered += [*sets, *[frozenset()] * (longest - 1 if sets else 0)]
    starts = sorted({number for number, _, _ in windows})
    allowed = data.draw(st.frozensets(st.sampled_from(starts)) if starts else st.just(frozenset()))
    allowed = allowed or frozenset(starts)
    in_windows = frozenset(i for i, (number, _, _) in enumerate(windows) if number in allowed)
    found = heaviest_run(
        wanted, weights, postings(numbered), bits_of(allowed, len(numbered)), longest
    )
    best, top = one_by_one(wanted, weights, [w for _, _, w in windows], in_windows)
    expected = (-1, 0, 0.0) if best < 0 else (windows[best][0], windows[best][1], top)
    assert found == expected
    assert repr(found[2]) == repr(expected[2])


def test_copies_of_a_piece_stay_one_group_however_many() -> None:
    sets = [frozenset("ab"), frozenset("c")] * 5_000
    masks = [bits_of(postings(sets)[stem], len(sets)) for stem in "abc"]
    groups = heaviest(masks, [1.0, 1.0, 1.0], bits_of(range(len(sets)), len(sets)))
    assert groups == [(0b011, bits_of(range(0, 10_000, 2), 10_000))]


@PROPERTY
@given(
    st.lists(
        st.sampled_from(("Keys expire after two hours.", "Send 100 requests.", "No.")), max_size=8
    )
)
def test_a_repeated_statement_gets_the_verdict_it_gets_alone(sentences) -> None:
    context = [("c1", "Each API key may send 100 requests per minute. Keys never expire.")]
    segments = segment(" ".join(sentences))
    analysed = analyse_context(tuple(context), "")
    alone = tuple(judge_sentence(one, analysed) for one in segments)
    assert lexical_verdicts(segments, context) == alone


@PROPERTY
@given(st.integers(0, 300).flatmap(lambda size: st.tuples(st.just(size), st.data())))
def test_bits_of_sets_the_bit_of_every_position_dense_or_sparse(sized) -> None:
    size, data = sized
    positions = data.draw(st.frozensets(st.integers(0, size - 1)) if size else st.just(frozenset()))
    assert bits_of(positions, size) == sum(1 << position for position in positions)
    assert bits_of(sorted(positions), size) == bits_of(tuple(positions), size)


@PROPERTY
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 10)), max_size=6), st.integers(1, 4))
def test_ranges_and_runs_as_bits_are_their_plain_definitions(ranges, length) -> None:
    spans = [(start, start + extent) for start, extent in ranges]
    size = max((stop for _, stop in spans), default=0)
    positions = {p for start, stop in spans for p in range(start, stop)}
    assert bits_of_ranges(spans, size) == bits_of(positions, size)
    runs = {p for p in range(size) if any(p + k in positions for k in range(length))}
    assert spread(bits_of(positions, size), length) == bits_of(runs, size)
