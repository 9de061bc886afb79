"""The trusted gate's pure parts: the target's rules read from its ragguard.yml, and what a
pull request changes of them (tests/ci/test_ci_governance.py runs it end to end)."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from compare_cases import QUESTIONS, head_results, results
from ragguard.ci.options import CiOptions
from ragguard.ci.trusted import choose_gate, target_rules
from ragguard.compare import compare
from ragguard.config.load import target_document
from ragguard.config.sections.gate import GateRules, MetricRule
from ragguard.core.errors import InputError
from ragguard.core.git import git_repo_path
from ragguard.core.yaml_lines import LineDict
from ragguard.render.gate_note import baseline_changes, gate_changes, gate_note

WHERE = "ragguard.yml on main at 0123456789ab"


def rules_of(content: bytes) -> GateRules:
    return target_rules(target_document(content, WHERE), WHERE)


def test_the_target_rules_come_from_its_gate_section() -> None:
    rules = rules_of(b"suite: s\ngate:\n  max_drop: 0.02\n  on_removed: warn\n")
    assert (rules.default.max_drop, rules.on_removed, rules.source) == (0.02, "warn", WHERE)
    assert rules_of(b"suite: s\n") == GateRules(source=WHERE)
    assert rules_of(b"") == GateRules(source=WHERE)


def test_a_broken_target_config_is_one_line_naming_the_branch_copy() -> None:
    with pytest.raises(InputError) as caught:
        rules_of(b"gate:\n  max_drop: 2\n")
    assert str(caught.value).startswith(f"{WHERE}:2: gate.max_drop: expected a number")
    with pytest.raises(InputError, match="is not UTF-8"):
        rules_of(b"\xff\xfe")
    with pytest.raises(InputError, match="expected a mapping at the top"):
        rules_of(b"- a list\n")


def test_each_loosening_is_named_with_both_values() -> None:
    trusted = GateRules(metrics={"mrr": MetricRule(min=0.6)})
    proposed = GateRules(
        default=MetricRule(alpha=None),
        metrics={"faithfulness": MetricRule(max_drop=1.0)},
        per_question={"faithfulness": 0.5},
        max_error_rate=0.5,
        on_incomparable="warn",
        critical_blocks=False,
    )
    assert gate_changes(trusted, proposed) == (
        "alpha 0.05 → off",
        "max_error_rate 0.05 → 0.5",
        "on_incomparable fail → warn",
        "critical true → false",
        "faithfulness max_drop 0.05 → 1",
        "mrr min 0.6 → off",
        "mrr alpha 0.05 → off",  # without its own rule, mrr takes the new default
        "per_question default → {faithfulness: 0.5}",
    )
    assert gate_changes(trusted, trusted) == ()


def test_only_the_target_branch_can_hand_the_choice_to_the_pull_request() -> None:
    own = GateRules(rules_from="pull-request", max_error_rate=1.0)
    strict = target_document(b"suite: s\nbaseline: {store: branch}\n", WHERE)
    chosen = choose_gate(own, strict, "main", "abc", WHERE)
    assert (chosen.origin, chosen.rules, chosen.sections) == (
        "target",
        GateRules(source=WHERE),
        strict,
    )
    opted = target_document(b"gate: {rules_from: pull-request}\n", WHERE)
    chosen = choose_gate(own, opted, "main", "abc", WHERE)
    assert (chosen.origin, chosen.rules, chosen.sections) == ("pull-request", own, None)
    assert choose_gate(own, None, "main", "abc").origin == "no-target"


def test_a_pull_request_that_drops_its_baseline_is_shown_the_change() -> None:
    trusted = CiOptions(baseline_store="branch")
    assert baseline_changes(trusted, CiOptions(baseline_store="none")) == (
        "baseline.store branch → none",
    )
    assert baseline_changes(trusted, trusted) == ()


def test_the_config_is_found_on_the_target_by_its_path_in_the_repository(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "evals").mkdir()
    assert git_repo_path(tmp_path / "evals" / "ragguard.yml") == "evals/ragguard.yml"
    assert git_repo_path(tmp_path / "ragguard.yml") == "ragguard.yml"
    outside = tmp_path / "no-such-folder" / "ragguard.yml"  # git cannot run there
    assert git_repo_path(outside) == "ragguard.yml"


def test_the_note_escapes_branch_names_and_question_ids() -> None:
    hostile = replace(QUESTIONS[0], id="<!-- x --> @org/team")
    baseline = results(questions=(hostile, *QUESTIONS[1:]))
    comparison = compare(baseline, head_results(questions=QUESTIONS[1:]), GateRules())
    source = choose_gate(GateRules(), LineDict(), "main`<b>@evil", "0123456789abcdef", WHERE)

    note = gate_note(source, comparison, "no baseline")

    assert "<!--" not in note and "<b>" not in note
    assert "@org" not in note and "@evil" not in note  # no mention notifies anyone
    assert "removes 1 question (&lt;\\!\\-\\- x \\-\\-&gt; @\u200borg/team)" in note
