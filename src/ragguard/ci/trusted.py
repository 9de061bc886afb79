"""The trusted gate: a pull request is judged by its target branch's rules, not its own.

A pull request that sets ``max_drop: 1`` or deletes its failing questions must not pass on
the strength of that change. So a pull-request run takes the ``gate:`` section from the
target branch's ragguard.yml at the merge base (read through the API: the checkout is the
pull request's), and the questions it is gated on are the baseline's (a removed question
counts, see ``gate.on_removed``). What the pull request changes is listed at the top of the
comment and takes effect once merged. ``gate.rules_from: pull-request`` in the *target*
branch's ragguard.yml opts out (the pull request's copy of that key is itself a change).

Pure: rules in, the rules that apply out; ci/target_gate.py fetches the target's copy,
config/load.py parses it (:func:`~ragguard.config.load.target_document`) and
render/gate_note.py says in the comment whose gate judged and what the pull request changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragguard.config.sections.gate import GateRules, GateSource, gate_rules_from_mapping
from ragguard.core.yaml_lines import LineDict


def target_rules(document: Mapping[str, Any], where: str) -> GateRules:
    """The gate rules of the target branch's parsed ragguard.yml (its ``gate:`` section
    typed as the local file's is; a section that is no mapping is reported without a line,
    since the target's copy is not validated as a whole)."""
    return gate_rules_from_mapping(document.get("gate"), where)


def choose_gate(
    own: GateRules, target: LineDict | None, branch: str, commit: str | None, where: str = ""
) -> GateSource:
    """The target's rules (and its ``baseline:``/``comment:`` sections) unless the target
    branch itself asks for the pull request's."""
    if target is None:
        return GateSource(own, "no-target", branch, commit, where=where)
    rules = target_rules(target, where)
    if rules.rules_from == "pull-request":
        return GateSource(own, "pull-request", branch, commit, proposed=rules, where=where)
    return GateSource(rules, "target", branch, commit, own, sections=target, where=where)
