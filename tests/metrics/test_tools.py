"""Tool calls made against the calls expected: matching, order, and the three metrics."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragguard.metrics.tools import Call, arguments_match, match_calls


def test_expected_arguments_are_a_subset_and_nested_mappings_match_the_same_way():
    assert arguments_match({"id": 7}, {"id": 7, "verbose": True})
    assert arguments_match({"filter": {"plan": "pro"}}, {"filter": {"plan": "pro", "n": 2}})
    assert not arguments_match({"id": 7}, {"id": "7"})
    assert not arguments_match({"flag": True}, {"flag": 1})
    assert not arguments_match({"id": 7}, None)
    assert arguments_match(None, None)


def test_any_order_finds_the_maximum_matching_not_the_greedy_one():
    # The first expected call matches both made calls; greedy pairing would take the first
    # made call and leave the second expected call unmatched.
    expected = [Call("search"), Call("search", {"q": "b"})]
    made = [Call("search", {"q": "b"}), Call("search", {"q": "a"})]
    match = match_calls(expected, made)
    assert len(match.pairs) == 2
    assert match.values() == {"tool_recall": 1.0, "tool_precision": 1.0, "trajectory_match": 1.0}


def test_strict_order_counts_the_calls_made_in_the_expected_order():
    expected = [Call("lookup_order"), Call("refund")]
    made = [Call("refund"), Call("lookup_order")]
    assert match_calls(expected, made, "any").values()["trajectory_match"] == 1.0
    strict = match_calls(expected, made, "strict")
    assert strict.values() == {"tool_recall": 0.5, "tool_precision": 0.5, "trajectory_match": 0.0}


def test_a_changed_call_is_named_missing_and_unexpected():
    match = match_calls([Call("lookup_order", {"id": 9})], [Call("refund", {"id": 9})])
    assert match.missing == [Call("lookup_order", {"id": 9})]
    assert match.unexpected == [Call("refund", {"id": 9})]
    assert match.values() == {"tool_recall": 0.0, "tool_precision": 0.0, "trajectory_match": 0.0}


def test_an_extra_call_costs_precision_and_the_trajectory_not_recall():
    match = match_calls([Call("a")], [Call("a"), Call("b")])
    assert match.values() == {"tool_recall": 1.0, "tool_precision": 0.5, "trajectory_match": 0.0}


NAMES = st.sampled_from(["a", "b", "c"])
CALLS = st.lists(
    st.builds(Call, NAMES, st.none() | st.fixed_dictionaries({"x": st.integers(0, 2)})), max_size=6
)


def _brute_force(expected, made, order):
    """The largest set of pairs by trying every assignment (small lists only)."""
    from itertools import combinations, permutations

    from ragguard.metrics.tools import calls_match

    best = 0
    for size in range(min(len(expected), len(made)), 0, -1):
        for chosen in combinations(range(len(expected)), size):
            for targets in permutations(range(len(made)), size):
                if order == "strict" and list(targets) != sorted(targets):
                    continue
                if all(
                    calls_match(expected[e], made[m]) for e, m in zip(chosen, targets, strict=True)
                ):
                    return size
    return best


@settings(max_examples=150, deadline=None, derandomize=True)
@given(expected=CALLS, made=CALLS, order=st.sampled_from(["any", "strict"]))
def test_the_matching_is_as_large_as_any_assignment(expected, made, order):
    match = match_calls(expected, made, order)
    assert len(match.pairs) == _brute_force(expected, made, order)
    assert len({e for e, _ in match.pairs}) == len({m for _, m in match.pairs}) == len(match.pairs)
    if order == "strict":
        assert [m for _, m in match.pairs] == sorted(m for _, m in match.pairs)
