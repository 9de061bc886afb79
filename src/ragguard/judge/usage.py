"""What judging costs: the counters of a client's calls and tokens, the plan a dry run
prints before any call, and the token estimate used where a server reports no ``usage``.

The estimate (:func:`estimate_tokens`) is deterministic and needs nothing downloaded: it
counts the pieces a BPE tokenizer mostly keeps whole — a run of Latin letters (a longer word
one piece per :data:`LETTERS_PER_TOKEN` letters, rounded up), up to 3 digits, up to 2
other characters (punctuation, JSON's ``":``) — and a chat request adds
:data:`MESSAGE_TOKENS` a message and :data:`REPLY_TOKENS`, as OpenAI counts them. Measured on
the judge's requests and replies for 474 RAGTruth answers against ``o200k_base`` (gpt-4o,
gpt-4o-mini): prompts 1.008 of the true total (90 % of answers within 0.96-1.06), replies 1.018
(1.00-1.04), where 4 characters a token gave 1.10 and 0.69 (benchmarks/judge_tokens.py,
docs/generation.md "Judge cost"). A dry run estimates a reply's tokens from how many
sentences it judges (:data:`COMPLETION_TOKENS_BASE` plus :data:`COMPLETION_TOKENS_PER_SENTENCE`
each).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ragguard.metrics.settings import JudgePrice
from ragguard.results.judging import FROM_ESTIMATE, FROM_USAGE, JudgeCharge

LETTERS_PER_TOKEN = 8
MESSAGE_TOKENS = 3
REPLY_TOKENS = 3
COMPLETION_TOKENS_PER_SENTENCE = 20
COMPLETION_TOKENS_BASE = 15
_PIECE = re.compile(r"[A-Za-z]+|\d{1,3}|[^\sA-Za-z\d]{1,2}")


def estimate_tokens(text: str) -> int:
    """About how many tokens ``text`` is (see the module's docstring)."""
    return sum(-(-len(piece) // LETTERS_PER_TOKEN) for piece in _PIECE.findall(text))


def estimate_prompt_tokens(messages: list[dict[str, Any]]) -> int:
    """About how many prompt tokens a chat request's messages are."""
    texts = (str(message.get("content", "")) for message in messages)
    return sum(estimate_tokens(text) + MESSAGE_TOKENS for text in texts) + REPLY_TOKENS


@dataclass
class Usage:
    """Counters over a client's life (thread-safe through the client's lock)."""

    requests: int = 0
    answers: int = 0
    cached: int = 0
    retries: int = 0
    reasks: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: int = 0  # replies without ``usage``, whose tokens were estimated

    def line(self) -> str:
        about = f" ({self.estimated} replies estimated)" if self.estimated else ""
        return (
            f"judge: {self.answers} answers, {self.requests} requests ({self.cached} cached, "
            f"{self.retries} retries, {self.reasks} re-asks), {self.errors} judge errors, "
            f"{self.prompt_tokens} prompt + {self.completion_tokens} completion tokens{about}"
        )


@dataclass(frozen=True)
class Plan:
    """What judging would cost, computed before any call (``--dry-run``, ``--estimate``)."""

    answers: int
    calls: int
    cached: int
    prompt_tokens: int
    completion_tokens: int
    price: JudgePrice | None = None

    @property
    def cost(self) -> float | None:
        if self.price is None:
            return None
        return self.price.cost(self.prompt_tokens, self.completion_tokens)

    def line(self) -> str:
        cost = f", about ${self.cost:,.2f} at judge.price" if self.cost is not None else ""
        return (
            f"judge dry run: {self.answers} answers to judge, {self.cached} in the cache, "
            f"{self.calls} calls to make, about {self.prompt_tokens} prompt + "
            f"{self.completion_tokens} completion tokens{cost} "
            "(estimated; re-asks and retries not counted)"
        )


@dataclass
class Tally:
    """One answer's calls and tokens while it is judged (one thread: no lock)."""

    calls: int = 0
    replies: int = 0  # chat completions read (a failed request has none)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

    def count_reply(self, tokens: tuple[int, int], estimated: bool) -> None:
        self.replies += 1
        self.prompt_tokens += tokens[0]
        self.completion_tokens += tokens[1]
        self.estimated = self.estimated or estimated

    def charge(self, key: str) -> JudgeCharge:
        """What judging the answer ``key`` cost; a reply without ``usage`` makes it an
        estimate, and no reply at all leaves nothing to count (``tokens_from`` None)."""
        tokens_from = None
        if self.replies:
            tokens_from = FROM_ESTIMATE if self.estimated else FROM_USAGE
        return JudgeCharge(key, self.calls, self.prompt_tokens, self.completion_tokens, tokens_from)


def reported_tokens(usage: Any) -> tuple[int, int] | None:
    """The reply's ``usage`` prompt and completion tokens; None when it reports none."""
    if not isinstance(usage, dict):
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not _is_count(prompt) or not _is_count(completion):
        return None
    return prompt, completion


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
