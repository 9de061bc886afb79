"""Tool calls: the calls an agent made against the calls the test set expects.

A made call matches an expected one when the names are equal and every argument the test
set gives is equal in the call (a subset: arguments it does not name are not checked; a
nested mapping is matched the same way). With ``tool_order: any`` the calls are paired as
a maximum matching; with ``strict`` in order (the longest common subsequence).

- ``tool_recall``: expected calls matched / expected calls.
- ``tool_precision``: made calls matched / made calls (0 when none was made).
- ``trajectory_match``: 1 when every expected call is matched and no other call was made
  (``strict``: in the same order), else 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TOOL_METRICS = ("tool_recall", "tool_precision", "trajectory_match")


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call, made or expected: its name and arguments (None: not given)."""

    name: str
    arguments: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ToolMatch:
    """Which expected calls were made (``pairs``: expected index, made index)."""

    expected: tuple[Call, ...]
    made: tuple[Call, ...]
    pairs: tuple[tuple[int, int], ...]

    @property
    def missing(self) -> list[Call]:
        """Expected calls no made call matched."""
        matched = {e for e, _ in self.pairs}
        return [call for i, call in enumerate(self.expected) if i not in matched]

    @property
    def unexpected(self) -> list[Call]:
        """Made calls that matched no expected call."""
        matched = {m for _, m in self.pairs}
        return [call for i, call in enumerate(self.made) if i not in matched]

    def values(self) -> dict[str, float]:
        matched = len(self.pairs)
        recall = matched / len(self.expected) if self.expected else 1.0
        precision = matched / len(self.made) if self.made else 0.0
        exact = matched == len(self.expected) == len(self.made)
        return {
            "tool_recall": recall,
            "tool_precision": precision,
            "trajectory_match": 1.0 if exact else 0.0,
        }


def arguments_match(expected: Mapping[str, Any] | None, made: Mapping[str, Any] | None) -> bool:
    """Every expected argument is in the call with an equal value (mappings: recursively)."""
    if not expected:
        return True
    if made is None:
        return False
    return all(key in made and _same(value, made[key]) for key, value in expected.items())


def _same(expected: Any, made: Any) -> bool:
    if isinstance(expected, Mapping) and isinstance(made, Mapping):
        return arguments_match(expected, made)
    if isinstance(expected, bool) or isinstance(made, bool):
        return expected is made
    return bool(expected == made)


def calls_match(expected: Call, made: Call) -> bool:
    return expected.name == made.name and arguments_match(expected.arguments, made.arguments)


def match_calls(expected: Sequence[Call], made: Sequence[Call], order: str = "any") -> ToolMatch:
    """Pair made calls with expected ones: a maximum matching, or in order for ``strict``."""
    pairs = _in_order(expected, made) if order == "strict" else _any_order(expected, made)
    return ToolMatch(tuple(expected), tuple(made), tuple(sorted(pairs)))


def _any_order(expected: Sequence[Call], made: Sequence[Call]) -> list[tuple[int, int]]:
    """A maximum bipartite matching (Kuhn's augmenting paths; a question has few calls)."""
    edges = [[m for m, call in enumerate(made) if calls_match(e, call)] for e in expected]
    owner: dict[int, int] = {}

    def augment(e: int, seen: set[int]) -> bool:
        for m in edges[e]:
            if m in seen:
                continue
            seen.add(m)
            if m not in owner or augment(owner[m], seen):
                owner[m] = e
                return True
        return False

    for e in range(len(expected)):
        augment(e, set())
    return [(e, m) for m, e in owner.items()]


def _in_order(expected: Sequence[Call], made: Sequence[Call]) -> list[tuple[int, int]]:
    """The longest common subsequence under :func:`calls_match`, earliest calls first."""
    rows, cols = len(expected), len(made)
    best = [[0] * (cols + 1) for _ in range(rows + 1)]
    for e in range(rows - 1, -1, -1):
        for m in range(cols - 1, -1, -1):
            if calls_match(expected[e], made[m]):
                best[e][m] = best[e + 1][m + 1] + 1
            else:
                best[e][m] = max(best[e + 1][m], best[e][m + 1])
    pairs: list[tuple[int, int]] = []
    e = m = 0
    while e < rows and m < cols:
        if calls_match(expected[e], made[m]) and best[e][m] == best[e + 1][m + 1] + 1:
            pairs.append((e, m))
            e, m = e + 1, m + 1
        elif best[e + 1][m] >= best[e][m + 1]:
            e += 1
        else:
            m += 1
    return pairs
