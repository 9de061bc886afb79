"""What judging costs: the counters of a client's calls and tokens, and the plan a dry run
prints before any call (tokens estimated from characters)."""

from __future__ import annotations

from dataclasses import dataclass

CHARS_PER_TOKEN = 4
COMPLETION_TOKENS_PER_SENTENCE = 20
COMPLETION_TOKENS_BASE = 15


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

    def line(self) -> str:
        return (
            f"judge: {self.answers} answers, {self.requests} requests ({self.cached} cached, "
            f"{self.retries} retries, {self.reasks} re-asks), {self.errors} judge errors, "
            f"{self.prompt_tokens} prompt + {self.completion_tokens} completion tokens"
        )


@dataclass(frozen=True)
class Plan:
    """What judging would cost, computed before any call (``--dry-run``)."""

    answers: int
    calls: int
    cached: int
    prompt_tokens: int
    completion_tokens: int

    def line(self) -> str:
        return (
            f"judge dry run: {self.answers} answers to judge, {self.cached} in the cache, "
            f"{self.calls} calls to make, about {self.prompt_tokens} prompt + "
            f"{self.completion_tokens} completion tokens "
            f"(estimate: {CHARS_PER_TOKEN} characters a token; re-asks and retries not counted)"
        )
