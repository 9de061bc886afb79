"""A cache bounded by the weight of its values (core/weighed_cache.py): the analysed contexts
of a test set of long contexts are not all kept."""

from __future__ import annotations

from ragguard.core.weighed_cache import WeighedCache
from ragguard.metrics import faithfulness
from ragguard.metrics.faithfulness import analyse_context


def test_the_oldest_values_go_once_the_weights_pass_the_budget() -> None:
    cache: WeighedCache[str, str] = WeighedCache(budget=10)
    made: list[str] = []

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    assert cache.get("a", lambda: make("a"), 4) == "A"
    assert cache.get("b", lambda: make("b"), 4) == "B"
    assert cache.get("a", lambda: make("a"), 4) == "A"  # kept: made once, now the newest
    assert cache.get("c", lambda: make("c"), 4) == "C"  # 12 > 10: "b", the oldest, goes
    assert made == ["a", "b", "c"]
    assert ("a" in cache, "b" in cache, "c" in cache) == (True, False, True)
    assert cache.get("huge", lambda: make("huge"), 100) == "HUGE"  # the newest stays alone
    assert ("huge" in cache, len(cache)) == (True, 1)
    cache.clear()
    assert len(cache) == 0


def test_analysed_contexts_are_kept_within_their_characters(monkeypatch) -> None:
    monkeypatch.setattr(faithfulness, "_ANALYSED", WeighedCache(budget=100))
    text = "Keys expire after two hours. " * 2  # 58 characters: two pass the budget of 100
    first = analyse_context((("c1", text),), "")
    assert analyse_context((("c1", text),), "") is first  # asked again: the same analysis
    analyse_context((("c2", text),), "")  # the two pass the budget: the first goes
    assert analyse_context((("c1", text),), "") is not first
