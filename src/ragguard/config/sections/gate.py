"""Gate rules: the ``gate:`` section of ragguard.yml as a typed :class:`GateRules`.

Every quality metric is higher-is-better. A metric's verdict comes from its rule (docs/compare.md):

* ``min``: the head value below it fails, whatever the baseline (``warn_min`` warns);
* ``max_drop``: a paired drop larger than this fails when it is significant (``p < alpha``),
  or on the drop alone when ``alpha: off``; a drop that is not significant never fails;
* ``warn_drop``: a significant drop larger than this (but within ``max_drop``) warns.

Top-level ``alpha``, ``max_drop`` and ``warn_drop`` are the defaults for metrics without
their own rule. The defaults were chosen with the noise test in tests/test_compare.py.

The cost metrics (``latency_p50``, ``latency_p95``, ``tokens``, ``cost``; metrics/names.py)
are lower-is-better and take budgets instead, only under ``gate.metrics``:

* ``max``: the head value above it fails (seconds for latency: ``2.5``, ``2.5s``, ``800ms``);
* ``max_increase``: a significant rise of more than this share of the baseline fails
  (``20%``); ``alpha`` as above. A cost metric without a budget is reported, never gated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragguard.config.reader import Reader, parse_duration
from ragguard.core.errors import InputError
from ragguard.core.sources import is_finite_number, shown, type_name
from ragguard.metrics.names import (
    COST_METRICS,
    JUDGE_COST,
    LATENCY_METRICS,
    MetricNameError,
    parse_metric,
)
from ragguard.metrics.names import GENERATION as GENERATION_METRICS

if TYPE_CHECKING:
    from ragguard.config.model import Config
    from ragguard.core.yaml_lines import LineDict

DEFAULT_ALPHA = 0.05
DEFAULT_MAX_DROP = 0.05
DEFAULT_WARN_DROP = 0.0
DEFAULT_MAX_ERROR_RATE = 0.05
# Built-in max_drop per metric, over the top-level one: any significant rise in the share of
# hallucinating answers fails (docs/compare.md "Generation defaults" has the measurements).
METRIC_MAX_DROP = {"hallucination_free": 0.0}
INCOMPARABLE_CHOICES = ("fail", "warn")
REMOVED_CHOICES = ("fail", "warn")
# where a pull request run takes its gate from; read only from the target branch's ragguard.yml
RULES_FROM_CHOICES = ("target", "pull-request")


GATE_KEYS = (
    "alpha",
    "max_drop",
    "warn_drop",
    "max_error_rate",
    "on_incomparable",
    "on_removed",
    "rules_from",
    "critical",
    "per_question",
    "metrics",
    "multiple_testing",
    "recheck",
    "recheck_all",
)
DEFAULT_RECHECK = 3
MAX_RECHECK = 20
MULTIPLE_TESTING_CHOICES = ("max_t", "off")
RULE_KEYS = ("min", "warn_min", "max_drop", "warn_drop", "alpha")
BUDGET_KEYS = ("max", "max_increase", "alpha")
JUDGE_COST_KEYS = ("max",)  # a run's total has no paired test for max_increase


@dataclass(frozen=True, slots=True)
class MetricRule:
    """The rule one metric is gated by; ``alpha`` None means significance is not required."""

    min: float | None = None
    warn_min: float | None = None
    max_drop: float = DEFAULT_MAX_DROP
    warn_drop: float | None = DEFAULT_WARN_DROP
    alpha: float | None = DEFAULT_ALPHA
    max: float | None = None  # cost metrics: the budget on the head value
    max_increase: float | None = None  # cost metrics: the budget on the rise, a share


@dataclass(frozen=True)
class GateRules:
    """Everything the gate decides with. ``per_question`` None means the default rule."""

    default: MetricRule = field(default_factory=MetricRule)
    metrics: Mapping[str, MetricRule] = field(default_factory=dict)
    per_question: Mapping[str, float] | None = None
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE
    on_incomparable: str = "fail"
    on_removed: str = "fail"
    rules_from: str = "target"
    critical_blocks: bool = True
    source: str = ""
    multiple_testing: str = "max_t"  # family-wise control across gated metrics, or "off"
    recheck: int = DEFAULT_RECHECK  # extra runs of a newly failing critical question; 0: off
    recheck_all: bool = False  # recheck every newly failing question, not only critical ones

    def rule_for(self, metric: str) -> MetricRule:
        """The metric's own rule, else the default; an informational metric (``judged@k``)
        without a rule of its own is never gated (a share cannot drop by more than 1)."""
        if metric in self.metrics:
            return self.metrics[metric]
        if metric in COST_METRICS:
            return UNBUDGETED_RULE
        if _is_informational(metric):
            return INFORMATIONAL_RULE
        if metric in METRIC_MAX_DROP:
            return replace(self.default, max_drop=METRIC_MAX_DROP[metric])
        return self.default


INFORMATIONAL_RULE = MetricRule(max_drop=1.0, warn_drop=None)
UNBUDGETED_RULE = MetricRule(max_drop=1.0, warn_drop=None)  # a cost metric without budgets


def _is_informational(metric: str) -> bool:
    try:
        return parse_metric(metric).is_informational
    except MetricNameError:
        return False


def default_gate_rules() -> GateRules:
    return GateRules()


def gate_rules_from_mapping(data: Any, source: str | Path, line: int | None = None) -> GateRules:
    """Validate the raw ``gate:`` mapping (a LineDict from parse_yaml, or None for defaults).

    ``line`` is the line of the ``gate:`` key, for the error when the value is no mapping.
    """
    if data is None:
        return GateRules(source=str(source))
    reader = Reader(source)
    if not isinstance(data, Mapping):
        raise InputError(
            source, f"expected a mapping, found {type_name(data)}", line=line, key="gate"
        )
    section = data
    reader.known_keys(section, GATE_KEYS, "gate")
    alpha = reader.alpha(section, "alpha", "gate", DEFAULT_ALPHA)
    default = MetricRule(
        max_drop=reader.fraction(section, "max_drop", "gate", DEFAULT_MAX_DROP),
        warn_drop=reader.fraction(section, "warn_drop", "gate", DEFAULT_WARN_DROP),
        alpha=alpha,
    )
    return GateRules(
        default=default,
        metrics=_metric_rules(reader, section, default),
        per_question=_per_question(reader, section),
        max_error_rate=reader.fraction(section, "max_error_rate", "gate", DEFAULT_MAX_ERROR_RATE),
        on_incomparable=reader.choice(section, "on_incomparable", "gate", INCOMPARABLE_CHOICES),
        on_removed=reader.choice(section, "on_removed", "gate", REMOVED_CHOICES),
        rules_from=reader.choice(section, "rules_from", "gate", RULES_FROM_CHOICES),
        critical_blocks=reader.boolean(section, "critical", "gate", True),
        source=str(source),
        multiple_testing="off"
        if section.get("multiple_testing") is False  # YAML reads a bare off as false
        else reader.choice(section, "multiple_testing", "gate", MULTIPLE_TESTING_CHOICES),
        recheck=reader.count(section, "recheck", "gate", DEFAULT_RECHECK, MAX_RECHECK),
        recheck_all=reader.boolean(section, "recheck_all", "gate", False),
    )


def _metric_rules(
    reader: Reader, section: Mapping[str, Any], default: MetricRule
) -> dict[str, MetricRule]:
    if section.get("metrics") is None:
        return {}
    rules_map = reader.mapping(section["metrics"], "gate.metrics", section)
    rules: dict[str, MetricRule] = {}
    seen: dict[str, str] = {}
    for name, raw in rules_map.items():
        path = f"gate.metrics.{name}"
        metric = _metric_name(reader, name, path, rules_map)
        _refuse_twice(reader, metric, name, seen, path, rules_map)
        rule = reader.mapping(raw, path, rules_map, key=str(name))
        if metric in COST_METRICS:
            rules[metric] = _budget_rule(reader, rule, path, metric, default)
            continue
        reader.known_keys(rule, RULE_KEYS, path)
        rules[metric] = MetricRule(
            min=reader.fraction(rule, "min", path, None),
            warn_min=reader.fraction(rule, "warn_min", path, None),
            max_drop=reader.fraction(
                rule, "max_drop", path, METRIC_MAX_DROP.get(metric, default.max_drop)
            ),
            warn_drop=reader.fraction(rule, "warn_drop", path, default.warn_drop),
            alpha=reader.alpha(rule, "alpha", path, default.alpha),
        )
    return rules


def _budget_rule(
    reader: Reader, rule: Mapping[str, Any], path: str, metric: str, default: MetricRule
) -> MetricRule:
    """A cost metric's budgets (lower is better: no ``min`` or ``max_drop`` here)."""
    reader.known_keys(rule, JUDGE_COST_KEYS if metric == JUDGE_COST else BUDGET_KEYS, path)
    return MetricRule(
        max_drop=1.0,
        warn_drop=None,
        alpha=reader.alpha(rule, "alpha", path, default.alpha),
        max=_budget(reader, rule, path, metric),
        max_increase=reader.percentage(rule, "max_increase", path),
    )


def _per_question(reader: Reader, section: Mapping[str, Any]) -> dict[str, float] | None:
    if section.get("per_question") is None:
        return None
    rule = reader.mapping(section["per_question"], "gate.per_question", section)
    thresholds: dict[str, float] = {}
    seen: dict[str, str] = {}
    for name in rule:
        metric = _metric_name(reader, name, f"gate.per_question.{name}", rule)
        _refuse_twice(reader, metric, name, seen, f"gate.per_question.{name}", rule)
        if metric in COST_METRICS:
            raise reader.error(
                "a cost metric has no per-question threshold; give it budgets under "
                f"gate.metrics.{metric} (max, max_increase)",
                f"gate.per_question.{name}",
                rule,
                str(name),
            )
        value = reader.fraction(rule, name, "gate.per_question", None)
        thresholds[metric] = value  # type: ignore[assignment]
    return thresholds


def _budget(reader: Reader, section: Mapping[str, Any], path: str, metric: str) -> float | None:
    """``max``: seconds for latency (``2.5``, ``2.5s``, ``800ms``), else a number >= 0."""
    value = section.get("max")
    if value is None:
        return None
    if metric in LATENCY_METRICS:
        seconds = parse_duration(value)
        if seconds is None:
            raise reader.error(
                f"expected a duration such as 2.5s or 800ms (or seconds as a number), "
                f"found {shown(value)}",
                f"{path}.max",
                section,
                "max",
            )
        return seconds
    if not is_finite_number(value) or value < 0:
        units = {
            "tokens": "tokens per answer",
            "steps": "steps per answer",
            JUDGE_COST: "the judge's cost over the run at judge.price",
        }
        unit = units.get(metric, "cost per answer")
        raise reader.error(
            f"expected a non-negative number ({unit}), found {shown(value)}",
            f"{path}.max",
            section,
            "max",
        )
    return float(value)


def _refuse_twice(
    reader: Reader, metric: str, name: Any, seen: dict[str, str], path: str, container: Any
) -> None:
    """Two spellings of one metric (``ndcg@3`` and ``ndcg@03``): the later would silently win."""
    if metric in seen:
        raise reader.error(
            f"the same metric as {seen[metric]!r} ({metric}); give each metric one rule",
            path,
            container,
            str(name),
        )
    seen[metric] = str(name)


def _metric_name(reader: Reader, name: Any, path: str, container: Any) -> str:
    text = str(name)
    if text in GENERATION_METRICS or text in COST_METRICS:
        return text
    try:
        return parse_metric(text).name
    except MetricNameError as exc:
        raise reader.error(
            f"{exc}; generation metrics: {', '.join(GENERATION_METRICS)}; "
            f"cost metrics: {', '.join(COST_METRICS)}",
            path,
            container,
            text,
        ) from None


def gate_rules_of(config: Config) -> GateRules:
    """The gate rules of a loaded ragguard.yml (:attr:`Config.gate <ragguard.config.model.Config.gate>`),
    typed from its parsed ``gate:`` section (:func:`~ragguard.config.load.load_config` already
    checked that it is a mapping)."""
    rules = gate_rules_from_mapping(config.sections.get("gate"), config.path)
    if JUDGE_COST in rules.metrics:
        _check_judge_priced(config)
    return rules


def _check_judge_priced(config: Config) -> None:
    """A ``judge_cost`` budget needs ``judge.price``: without it there is no cost to gate."""
    judge = config.generation.judge
    if judge is not None and judge.price is not None:
        return
    metrics = config.sections["gate"]["metrics"]
    raise Reader(config.path).error(
        "a judge_cost budget needs the judge's price: set judge.price "
        "(e.g. {input: 0.15, output: 0.60}, per million tokens) or remove the budget",
        f"gate.metrics.{JUDGE_COST}",
        metrics,
        JUDGE_COST,
    )


@dataclass(frozen=True)
class GateSource:
    """The rules a run is judged by, and where they came from (for the comment)."""

    rules: GateRules
    origin: str  # "target", "pull-request" (rules_from), "no-target" (not on the target yet)
    branch: str | None = None
    commit: str | None = None
    proposed: GateRules | None = None  # the pull request's own rules, when they differ in origin
    sections: LineDict | None = None  # the target's ragguard.yml, when its rules apply
    where: str = ""  # how errors name the target's copy
