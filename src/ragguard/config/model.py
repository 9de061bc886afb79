"""The typed, immutable model of ragguard.yml: one :class:`Config` with every section.

:func:`~ragguard.config.load.load_config` builds it. The suite's own keys (``suite``,
``testset``, ``corpus``, ``system`` with its run settings and ``repeat``, ``metrics``,
``evidence``) are typed when the file is loaded. The other sections are typed on first read,
each once: :attr:`Config.gate` (the gate rules and the cost budgets), :attr:`Config.generation`
(faithfulness, answer_relevance, abstention and the judge) and :attr:`Config.ci` (the
``baseline:`` and ``comment:`` sections). A mistake in a section is reported where the
command first uses it, as it always was: ``ragguard run`` never gates, so a broken ``gate:``
does not stop it, and a broken ``judge:`` is reported after the test set has been read.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from ragguard.config.sections.ci import CiSections, ci_sections_of
from ragguard.config.sections.gate import GateRules, gate_rules_of
from ragguard.config.sections.generation import generation_settings_of
from ragguard.core.errors import InputError, Where
from ragguard.core.yaml_lines import LineDict
from ragguard.metrics.names import MetricSpec
from ragguard.metrics.settings import DEFAULT_MIN_COVERAGE, GenerationSettings

DEFAULT_CONCURRENCY = 4
DEFAULT_TIMEOUT = 30.0
DEFAULT_RETRIES = 2
DEFAULT_MAX_ERROR_RATE = 0.05
DEFAULT_REPEAT = 1


@dataclass(frozen=True, slots=True)
class RunSettings:
    """How the runner drives the system: parallel questions, time limit, retries, and how
    many times the whole test set is asked (``repeat``, repeats.py)."""

    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE
    repeat: int = DEFAULT_REPEAT


@dataclass(frozen=True)
class SystemConfig:
    """The ``system:`` section: which adapter, its target, its options and run settings.

    ``target`` is the value of the adapter's key (``python: app.rag:answer`` gives
    ``"app.rag:answer"``); ``options`` holds the adapter-specific keys as parsed.
    """

    kind: str
    target: Any
    options: dict[str, Any]
    run: RunSettings
    where: Where

    def error(self, message: str, key: str) -> InputError:
        """An error about ``system.KEY`` (``key`` may go deeper: ``response.answer``), at
        the line of its first part in the section."""
        top = key.split(".")[0]
        line = self.where.key_lines.get(top, self.where.line)
        return InputError(self.where.source, message, line=line, key=f"system.{key}")


@dataclass(frozen=True)
class Config:
    """One suite's ragguard.yml, typed (see the module's docstring for when each part is)."""

    path: Path
    root: Path
    suite: str
    testset: Path
    corpus: Path | None
    system: SystemConfig
    metrics: tuple[MetricSpec, ...]
    # The top-level mapping cut down to the sections, as parsed: their errors need the line
    # of a section's key, and of the mapping itself for a section that is missing.
    sections: LineDict
    min_coverage: float = DEFAULT_MIN_COVERAGE  # evidence labels: share a chunk must hold
    documents: Path | None = None  # ``corpus:`` naming a folder of documents (coverage)

    @cached_property
    def gate(self) -> GateRules:
        """The ``gate:`` section: the rules per metric, the budgets of the cost metrics, the
        error rate, rechecks (typed on first read)."""
        return gate_rules_of(self)

    @cached_property
    def generation(self) -> GenerationSettings:
        """The ``faithfulness:``, ``answer_relevance:``, ``abstention:`` and ``judge:``
        sections (typed on first read)."""
        return generation_settings_of(self)

    @cached_property
    def ci(self) -> CiSections:
        """The ``baseline:`` and ``comment:`` sections, the file's part of the CI options
        (typed on first read)."""
        return ci_sections_of(self)


RECORDED_REPEAT = (
    "a recorded run gives the same answers every time, so asking it again measures nothing; "
    "set repeat to 1, or score several recorded runs as repeats with "
    "`ragguard score --run a.jsonl --run b.jsonl`"
)


def check_repeatable(config: Config) -> Config:
    """``config`` unless it asks a recorded system more than once (checked when the file is
    read and when ``--repeat`` sets it, so before anything is run or requested)."""
    if config.system.kind == "recorded" and config.system.run.repeat > 1:
        raise config.system.error(RECORDED_REPEAT, "repeat")
    return config


def with_repeat(config: Config, repeat: int | None) -> Config:
    """The config with ``system.repeat`` set to ``repeat`` (``--repeat``, the action's
    ``repeat`` input); unchanged when ``repeat`` is None."""
    if repeat is None:
        return config
    run = replace(config.system.run, repeat=repeat)
    return check_repeatable(replace(config, system=replace(config.system, run=run)))
