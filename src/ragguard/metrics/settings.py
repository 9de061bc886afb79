"""The typed generation settings scoring works with: a method per metric and the judge's.

Plain data, read from ragguard.yml's ``faithfulness:``, ``answer_relevance:``,
``abstention:`` and ``judge:`` sections by ``config/sections/generation.py``. They live here,
beside the metrics, so that scoring and the judge take them without importing the config.
:class:`JudgeSettings` is here too because :class:`GenerationSettings` carries it and its
fingerprint makes two judged runs comparable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragguard.metrics.faithfulness import DEFAULT_THRESHOLD

DEFAULT_CACHE = ".ragguard/cache"
# Part of every judged run's fingerprint: change it whenever the judge's prompt or the
# parsing of its reply changes, so that runs judged differently are not compared.
PROMPT_VERSION = "ragguard-judge/2"

# Evidence labels: the share of a label a chunk must hold to be judged relevant to it
# (measured: docs/metrics.md, "Evidence labels"; ragguard.yml `evidence.min_coverage`).
DEFAULT_MIN_COVERAGE = 0.5


@dataclass(frozen=True)
class JudgePrice:
    """What the judge's tokens cost, per million (``judge.price``: ``{input: 0.15, output:
    0.60}``), in whatever currency the table is written in."""

    input: float
    output: float

    def cost(self, prompt_tokens: float, completion_tokens: float) -> float:
        """The cost of ``prompt_tokens`` in and ``completion_tokens`` out."""
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1_000_000


@dataclass(frozen=True)
class JudgeSettings:
    """How to reach the judge. ``api_key_env`` names the variable; the key is never stored."""

    base_url: str
    model: str
    api_key_env: str | None = None
    api_version: str | None = None  # set for Azure OpenAI: api-version query, api-key header
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = 1024
    json_mode: bool = True
    concurrency: int = 4
    timeout: float = 60.0
    max_retries: int = 5
    max_calls: int | None = None
    cache_dir: Path | None = Path(DEFAULT_CACHE)
    price: JudgePrice | None = None  # not in the fingerprint: a price changes no verdict
    source: str = "judge"  # the config file, for error messages
    api_key_line: int | None = None  # the line of api_key_env in it (not in the fingerprint)

    @property
    def chat_url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def fingerprint(self) -> dict[str, Any]:
        """What makes two judged runs comparable (no key, no URL, no cache folder)."""
        return {
            "model": self.model,
            "temperature": self.temperature,
            "seed": self.seed,
            "prompt": PROMPT_VERSION,
        }


@dataclass(frozen=True)
class GenerationSettings:
    """Methods for the generation metrics and, when any uses it, the judge."""

    faithfulness_method: str = "lexical"
    threshold: float = DEFAULT_THRESHOLD
    relevance_method: str = "lexical"
    abstention_method: str = "lexical"
    judge: JudgeSettings | None = field(default=None)
    # ``abstention: {auto: false}``: abstention scored only when the metric list names it,
    # not by default on a test set with ``answerable: false`` questions (docs/generation.md).
    # It decides which metrics are scored, not how, so it is no part of the fingerprint.
    abstention_auto: bool = True

    @property
    def uses_judge(self) -> bool:
        return "judge" in (self.faithfulness_method, self.relevance_method, self.abstention_method)

    def methods(self) -> dict[str, str]:
        return {
            "faithfulness": self.faithfulness_method,
            "hallucination_free": self.faithfulness_method,
            "answer_relevance": self.relevance_method,
            "abstention": self.abstention_method,
        }

    def fingerprint(self, metric_names: tuple[str, ...] | list[str]) -> dict[str, Any]:
        """Settings of the requested generation metrics, for the results' config fingerprint.

        ``hallucination_free`` comes from faithfulness's verdicts, so beside ``faithfulness``
        it adds no key: results from before it was scored stay comparable with new ones.
        """
        chosen = {name: method for name, method in self.methods().items() if name in metric_names}
        if "faithfulness" in chosen:
            chosen.pop("hallucination_free", None)
        settings: dict[str, Any] = {}
        for name, method in chosen.items():
            settings[name] = {"method": method}
            if name in ("faithfulness", "hallucination_free") and method == "lexical":
                settings[name]["threshold"] = self.threshold
        if self.judge and "judge" in chosen.values():
            settings["judge"] = self.judge.fingerprint()
        return settings
