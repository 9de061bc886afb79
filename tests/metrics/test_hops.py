"""Which retrieval step answers which expected hop."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragguard.metrics.hops import align_hops, hops_reached


def test_one_retrieval_per_hop_matches_in_order():
    assert align_hops([[1.0, 0.0], [0.0, 1.0]]) == [0, 1]


def test_a_retry_before_the_hop_is_skipped():
    # Step 1 found nothing of hop 2; the retry (step 2) did.
    assert align_hops([[1.0, 0.0, 0.0], [0.0, 0.0, 0.5]]) == [0, 2]


def test_a_skipped_hop_does_not_take_the_next_hops_step():
    # The agent never retrieved for hop 2; its step for hop 3 stays hop 3's.
    assert align_hops([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]]) == [0, None, 1]


def test_hops_keep_their_order_and_equal_alignments_take_the_earliest_steps():
    assert align_hops([[0.0, 1.0], [1.0, 0.0]]) in ([None, 0], [1, None])
    assert align_hops([[1.0, 1.0]]) == [0]


def test_no_step_means_no_hop_matched_and_none_reached():
    assert align_hops([[], []]) == [None, None]
    assert hops_reached([[], []]) == 0.0
    assert hops_reached([[0.0, 0.2], [1.0, 0.0]]) == 1.0


SHARES = st.sampled_from([0.0, 0.0, 0.5, 1.0])


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.integers(1, 4).flatmap(
        lambda steps: st.lists(
            st.lists(SHARES, min_size=steps, max_size=steps), min_size=1, max_size=4
        )
    )
)
def test_the_alignment_is_in_order_and_finds_the_most(found):
    from itertools import product

    matched = align_hops(found)
    taken = [s for s in matched if s is not None]
    assert taken == sorted(set(taken))
    assert all(found[h][s] > 0 for h, s in enumerate(matched) if s is not None)
    steps = len(found[0])
    best = 0.0
    for choice in product([None, *range(steps)], repeat=len(found)):
        picked = [s for s in choice if s is not None]
        if picked == sorted(set(picked)):
            best = max(best, sum(found[h][s] for h, s in enumerate(choice) if s is not None))
    assert sum(found[h][s] for h, s in enumerate(matched) if s is not None) == best
