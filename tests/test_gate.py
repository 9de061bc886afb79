"""Gate rules from the gate: section of ragguard.yml: types, defaults, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragguard.config.load import load_gate_rules
from ragguard.config.sections.gate import (
    DEFAULT_ALPHA,
    DEFAULT_MAX_DROP,
    GateRules,
    MetricRule,
    gate_rules_from_mapping,
)
from ragguard.core.errors import InputError
from ragguard.core.yaml_lines import parse_yaml

CONFIG = """\
suite: orders-api
testset: testset.yaml
system: {recorded: run.jsonl}
gate:
  alpha: 0.1
  max_drop: 0.03
  max_error_rate: 0.1
  on_incomparable: warn
  per_question: {hit_rate@3: 1, faithfulness: 1.0}
  metrics:
    mrr: {max_drop: 0.02}
    faithfulness: {min: 0.9, warn_min: 0.95, max_drop: 0.0, alpha: off}
"""


def _gate(text: str) -> GateRules:
    document = parse_yaml(text, "ragguard.yml")
    line = document.key_lines["gate"]
    return gate_rules_from_mapping(document["gate"], "ragguard.yml", line)


def _error(text: str) -> InputError:
    with pytest.raises(InputError) as caught:
        _gate(text)
    return caught.value


def test_full_section_is_typed() -> None:
    rules = _gate(CONFIG.split("system: {recorded: run.jsonl}\n")[1])
    assert rules.default == MetricRule(max_drop=0.03, warn_drop=0.0, alpha=0.1)
    assert rules.rule_for("mrr") == MetricRule(max_drop=0.02, warn_drop=0.0, alpha=0.1)
    assert rules.rule_for("faithfulness") == MetricRule(
        min=0.9, warn_min=0.95, max_drop=0.0, warn_drop=0.0, alpha=None
    )
    assert rules.rule_for("ndcg@3") is rules.default
    assert rules.per_question == {"hit_rate@3": 1.0, "faithfulness": 1.0}
    assert rules.max_error_rate == 0.1
    assert rules.on_incomparable == "warn"


def test_no_section_gives_the_documented_defaults() -> None:
    rules = gate_rules_from_mapping(None, "ragguard.yml")
    assert rules.default == MetricRule(max_drop=DEFAULT_MAX_DROP, alpha=DEFAULT_ALPHA)
    assert (rules.per_question, rules.on_incomparable, rules.critical_blocks) == (
        None,
        "fail",
        True,
    )


def test_load_gate_rules_reads_ragguard_yml(tmp_path: Path) -> None:
    (tmp_path / "testset.yaml").write_text("- {id: q1, question: Q?, relevant: [c1]}\n")
    (tmp_path / "run.jsonl").write_text('{"id": "q1", "retrieved": ["c1"]}\n')
    path = tmp_path / "ragguard.yml"
    path.write_text(CONFIG)
    rules = load_gate_rules(path)
    assert rules.rule_for("mrr").max_drop == 0.02
    assert rules.source == str(path)
    assert load_gate_rules(None) == GateRules()


@pytest.mark.parametrize(
    ("text", "line", "key", "fragment"),
    [
        ("gate:\n  alpah: 0.05\n", 2, "gate.alpah", "did you mean 'alpha'"),
        ("gate:\n  alpha: 2\n", 2, "gate.alpha", "between 0 and 1"),
        ("gate:\n  alpha: on\n", 2, "gate.alpha", "or off"),
        ("gate:\n  max_drop: lots\n", 2, "gate.max_drop", "found a string"),
        ("gate:\n  max_error_rate: -1\n", 2, "gate.max_error_rate", "from 0 to 1"),
        ("gate:\n  on_incomparable: ignore\n", 2, "gate.on_incomparable", "fail, warn"),
        ("gate:\n  critical: maybe\n", 2, "gate.critical", "true or false"),
        ("gate:\n  metrics:\n    mrr: 0.02\n", 3, "gate.metrics.mrr", "expected a mapping"),
        ("gate:\n  metrics:\n    mrr: {maxdrop: 0.1}\n", 3, "gate.metrics.mrr.maxdrop", "max_drop"),
        ("gate:\n  metrics:\n    hitrate@3: {min: 0.5}\n", 3, "gate.metrics.hitrate@3", "hit_rate"),
        ("gate:\n  metrics:\n\n    mrr:\n      min: 1.5\n", 5, "gate.metrics.mrr.min", "0 to 1"),
        ("gate:\n  per_question: [hit_rate@3]\n", 2, "gate.per_question", "a mapping"),
        ("gate:\n  per_question:\n    recall: 1\n", 3, "gate.per_question.recall", "cut-off"),
        ("gate: 3\n", 1, "gate", "expected a mapping"),
        ("gate:\n  multiple_testing: bonferroni\n", 2, "gate.multiple_testing", "max_t, off"),
    ],
)
def test_bad_input_names_file_line_and_key(text: str, line: int, key: str, fragment: str) -> None:
    error = _error(text)
    assert (error.source, error.line, error.key) == ("ragguard.yml", line, key)
    assert fragment in error.message
    assert "\n" not in str(error)


def test_multiple_testing_defaults_to_max_t_and_can_be_off() -> None:
    assert GateRules().multiple_testing == "max_t"
    assert _gate("gate:\n  alpha: 0.05\n").multiple_testing == "max_t"
    assert _gate("gate:\n  multiple_testing: off\n").multiple_testing == "off"


def test_hallucination_free_takes_a_gate_rule() -> None:
    rules = _gate("gate:\n  metrics:\n    hallucination_free: {max_drop: 0.1}\n")
    assert rules.rule_for("hallucination_free").max_drop == 0.1


def test_hallucination_free_fails_on_any_significant_drop_by_default() -> None:
    """Its built-in max_drop is 0 (docs/compare.md "Generation defaults"); alpha and the
    other keys follow the top level, and its own rule can set max_drop back."""
    assert GateRules().rule_for("hallucination_free") == MetricRule(max_drop=0.0)
    loose = _gate("gate:\n  alpha: 0.1\n  max_drop: 0.2\n")
    assert loose.rule_for("hallucination_free") == MetricRule(max_drop=0.0, alpha=0.1)
    assert loose.rule_for("faithfulness").max_drop == 0.2
    own = _gate("gate:\n  metrics:\n    hallucination_free: {warn_drop: 0.01}\n")
    assert own.rule_for("hallucination_free") == MetricRule(max_drop=0.0, warn_drop=0.01)


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        (
            "gate:\n  metrics:\n    ndcg@3: {max_drop: 0.1}\n    ndcg@03: {max_drop: 0.5}\n",
            4,
            "gate.metrics.ndcg@03",
        ),
        (
            "gate:\n  per_question:\n    hit_rate@3: 1\n    hit_rate@003: 0\n",
            4,
            "gate.per_question.hit_rate@003",
        ),
    ],
)
def test_one_metric_spelled_twice_is_refused_not_silently_overridden(
    text: str, line: int, key: str
) -> None:
    error = _error(text)
    assert (error.source, error.line, error.key) == ("ragguard.yml", line, key)
    assert "the same metric as" in error.message and "one rule" in error.message
