"""What judging a run cost: each judged answer's calls and tokens, and the totals
(``judge`` in results.json, docs/formats.md "Judge cost").

::

    "judge": {"calls": 3, "answers": 4, "cached": 1, "prompt_tokens": 2310,
              "completion_tokens": 164, "estimated": false, "price": {"input": 0.15,
              "output": 0.6}, "cost": 0.0004449,
              "judged": [{"id": "q1", "calls": 1, "prompt_tokens": 770,
                          "completion_tokens": 55, "tokens_from": "usage", "cached": false},
                         ...]}

``judged`` has one entry per judged answer, in the order judged (a repeated run's passes one
after the other, each in test-set order). A verdict from the reply cache made no call and
costs nothing this run: 0 calls, 0 tokens, ``tokens_from`` null (as do calls that all failed,
which got no reply to count). ``tokens_from`` is
``usage`` when the server reported the tokens in its reply, ``estimate`` when it did not (or
did for only some of the answer's calls) and ragguard estimated them (judge/usage.py). The
totals are the sums; ``cost`` is there when ``judge.price`` is set. Reading a file, the totals
are computed again from ``judged``; an older file without ``judge`` reads as ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragguard.core.errors import InputError
from ragguard.core.sources import is_finite_number

FROM_USAGE = "usage"
FROM_ESTIMATE = "estimate"
TOKENS_FROM = (FROM_USAGE, FROM_ESTIMATE)


@dataclass(frozen=True, slots=True)
class JudgeCharge:
    """One judged answer: the calls made for it (re-asks and retries included) and their
    tokens; ``tokens_from`` is None when no reply was read (a verdict from the cache)."""

    id: str
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_from: str | None = None
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tokens_from": self.tokens_from,
            "cached": self.cached,
        }


@dataclass(frozen=True)
class JudgeCosts:
    """Every judged answer of a run and, with ``price`` (input, output per million tokens),
    what they cost."""

    judged: tuple[JudgeCharge, ...]
    price: tuple[float, float] | None = None

    @property
    def calls(self) -> int:
        return sum(charge.calls for charge in self.judged)

    @property
    def cached(self) -> int:
        return sum(1 for charge in self.judged if charge.cached)

    @property
    def prompt_tokens(self) -> int:
        return sum(charge.prompt_tokens for charge in self.judged)

    @property
    def completion_tokens(self) -> int:
        return sum(charge.completion_tokens for charge in self.judged)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def estimated(self) -> bool:
        """Whether any answer's tokens were estimated (the totals are then estimates)."""
        return any(charge.tokens_from == FROM_ESTIMATE for charge in self.judged)

    @property
    def cost(self) -> float | None:
        """The run's judge cost at ``price``; None without a price."""
        if self.price is None:
            return None
        per_input, per_output = self.price
        return (self.prompt_tokens * per_input + self.completion_tokens * per_output) / 1e6

    def to_dict(self) -> dict[str, Any]:
        return {**self.totals(), "judged": [charge.to_dict() for charge in self.judged]}

    def totals(self) -> dict[str, Any]:
        """The totals alone (comparison.json's ``judge``)."""
        data: dict[str, Any] = {
            "calls": self.calls,
            "answers": len(self.judged),
            "cached": self.cached,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "estimated": self.estimated,
        }
        if self.price is not None:
            data["price"] = {"input": self.price[0], "output": self.price[1]}
            data["cost"] = self.cost
        return data


def combined_costs(runs: Iterable[JudgeCosts | None]) -> JudgeCosts | None:
    """Several runs' judge costs as one: every judged answer, run after run, at the first
    run's price (the runs of one suite share its ``judge.price``); None when none was judged."""
    judged = [costs for costs in runs if costs is not None]
    if not judged:
        return None
    return JudgeCosts(tuple(charge for costs in judged for charge in costs.judged), judged[0].price)


def judge_costs_from(value: Any, source: str) -> JudgeCosts | None:
    """The ``judge`` object of a results file (None stays None); InputError names the key."""
    if value is None:
        return None
    if not isinstance(value, Mapping) or not isinstance(value.get("judged"), list):
        raise InputError(source, "expected an object with a list 'judged'", key="judge")
    judged = tuple(
        _charge(entry, source, f"judge.judged[{index}]")
        for index, entry in enumerate(value["judged"])
    )
    return JudgeCosts(judged, _price(value.get("price"), source))


def _charge(entry: Any, source: str, path: str) -> JudgeCharge:
    if not isinstance(entry, Mapping) or not isinstance(entry.get("id"), str):
        raise InputError(source, "expected an object with a string 'id'", key=path)
    counts = [_count(entry, name, source, path) for name in _COUNTS]
    tokens_from = entry.get("tokens_from")
    if tokens_from is not None and tokens_from not in TOKENS_FROM:
        raise InputError(
            source, f"expected one of {', '.join(TOKENS_FROM)} or null", key=f"{path}.tokens_from"
        )
    cached = entry.get("cached", False)
    if not isinstance(cached, bool):
        raise InputError(source, "expected true or false", key=f"{path}.cached")
    return JudgeCharge(entry["id"], *counts, tokens_from=tokens_from, cached=cached)


_COUNTS = ("calls", "prompt_tokens", "completion_tokens")


def _count(entry: Mapping[str, Any], name: str, source: str, path: str) -> int:
    value = entry.get(name, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InputError(source, "expected a non-negative integer", key=f"{path}.{name}")
    return value


def _price(value: Any, source: str) -> tuple[float, float] | None:
    if value is None:
        return None
    numbers: Sequence[Any] = (
        [value.get("input"), value.get("output")] if isinstance(value, Mapping) else []
    )
    if len(numbers) != 2 or not all(is_finite_number(n) and n >= 0 for n in numbers):
        raise InputError(
            source, "expected {input: N, output: N}, non-negative numbers", key="judge.price"
        )
    return float(numbers[0]), float(numbers[1])
