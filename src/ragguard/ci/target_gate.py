"""Whose gate applies to a pull request: the target branch's ragguard.yml at the merge base,
read through the API (the checkout is the pull request's), and where its baseline comes from."""

from __future__ import annotations

from pathlib import Path

from ragguard.ci.activity import PULL_REQUEST, Activity
from ragguard.ci.collaborators import Collaborators, Target
from ragguard.ci.options import CiOptions, merged_options
from ragguard.ci.settings import CiSettings
from ragguard.ci.trusted import choose_gate
from ragguard.config.load import target_document
from ragguard.config.model import Config
from ragguard.config.sections.ci import ci_sections
from ragguard.config.sections.gate import GateRules, GateSource


def trusted_gate(
    activity: Activity,
    settings: CiSettings,
    collab: Collaborators,
    own: GateRules,
    target: Target,
) -> GateSource | None:
    """For a pull request or a merge group: the gate rules of the target branch's ragguard.yml
    at the merge base (read through the API: the checkout is the pull request's), else None."""
    if (activity.kind != PULL_REQUEST and activity.base_sha is None) or not target.base_branch:
        return None
    # a merge group names its base; its queued head holds the pull request's ragguard.yml
    merge_base = activity.base_sha or collab.github.merge_base(target.base_branch, target.sha)
    path = collab.repo_path(settings.config)
    content = collab.github.file_at(path, merge_base)
    where = f"{path} on {target.base_branch} at {merge_base[:12]}"
    document = target_document(content, where) if content is not None else None
    source = choose_gate(own, document, target.base_branch, merge_base, where)
    collab.log(f"ragguard: gate rules: {gate_origin(source, where)}")
    return source


def trusted_options(
    settings: CiSettings, config: Config, gate: GateSource | None
) -> CiOptions | None:
    """Where the baseline comes from, per the target's ragguard.yml when its gate applies: a
    pull request that sets ``baseline: {store: none}`` would otherwise have no baseline to
    fail against. The action's inputs still win (docs/compare.md, "The trusted gate")."""
    if gate is None or gate.sections is None:
        return None
    return merged_options(settings, ci_sections(gate.sections, Path(gate.where)), config.root)


def gate_origin(source: GateSource, where: str) -> str:
    if source.origin == "target":
        return f"{where} (the pull request's own changes take effect once merged)"
    if source.origin == "pull-request":
        return f"the pull request's own ({where} sets gate.rules_from: pull-request)"
    return f"the pull request's own ({where} does not exist yet)"
