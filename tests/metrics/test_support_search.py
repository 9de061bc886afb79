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
    heaviest,
    heaviest_shared,
    holding_all_by_side,
    postings,
    sided_index,
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
def test_heaviest_shared_is_comparing_every_piece_bit_for_bit(sets, wanted, data) -> None:
    weights = {stemmed: data.draw(st.sampled_from(WEIGHTS)) for stemmed in STEMS}
    allowed = data.draw(
        st.none() | st.frozensets(st.integers(0, max(len(sets) - 1, 0)), max_size=len(sets))
    )
    found = heaviest_shared(wanted, weights, postings(sets), allowed)
    expected = one_by_one(wanted, weights, sets, allowed)
    assert found == expected
    assert repr(found[1]) == repr(expected[1])  # the same float, not merely a close one


@PROPERTY
@given(st.lists(st.tuples(st.frozensets(st.sampled_from(STEMS), max_size=5), st.booleans())))
def test_clauses_holding_every_stem_are_comparing_every_clause(clauses) -> None:
    index = sided_index(clauses)
    for wanted in (
        frozenset(),
        frozenset("a"),
        frozenset("ab"),
        frozenset("cde"),
        frozenset(STEMS),
    ):
        for side in (False, True):
            holding = [
                position
                for position, (stems, negated) in enumerate(clauses)
                if wanted and wanted <= stems
            ]
            same = any(clauses[position][1] == side for position in holding)
            other = [position for position in holding if clauses[position][1] != side]
            expected = (same, other[0] if other else None)
            assert holding_all_by_side(wanted, index, side) == expected


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
