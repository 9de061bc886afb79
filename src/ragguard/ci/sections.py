"""The ``baseline:`` and ``comment:`` sections of ragguard.yml, merged with the action's inputs.

An input that is set wins; else the section's key; else the default::

    baseline: {store: branch, branch: ragguard-data}   # or store: artifact | file | none
    baseline: {store: file, file: eval/baseline.json}   # a committed results file
    baseline: {rerun: true}     # no stored baseline: evaluate the merge base in a git worktree
    comment: {mode: new-on-worse}           # or update | new | on-regression | off

Errors name the file, line and key, like every config error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragguard.ci.settings import BASELINE_STORES, CiSettings
from ragguard.config.model import Config
from ragguard.core.errors import InputError, Where
from ragguard.core.sources import type_name, unknown_key_message
from ragguard.core.yaml_lines import LineDict
from ragguard.github import COMMENT_MODES, DATA_BRANCH, DEFAULT_COMMENT_MODE

BASELINE_KEYS = ("store", "branch", "file", "rerun")
COMMENT_KEYS = ("mode",)
_BRANCH = re.compile(r"^[A-Za-z0-9._/-]+$")


@dataclass(frozen=True)
class CiOptions:
    """What the pipeline uses, after inputs, ragguard.yml and defaults are merged."""

    comment_mode: str = DEFAULT_COMMENT_MODE
    baseline_store: str = "branch"
    baseline_branch: str = DATA_BRANCH
    baseline_file: Path | None = None
    rerun: bool = False


class _SectionWhere(Where):
    """Errors about ``section.key``, at the key's own line."""

    def __init__(self, source: Path, section: str, value: LineDict | None) -> None:
        inner = value.where(source) if value is not None else Where(source)
        super().__init__(inner.source, inner.line, inner.key_lines)
        self.section = section

    def error(self, message: str, key: str | None = None) -> InputError:
        line = self.key_lines.get(key, self.line) if key else self.line
        full = f"{self.section}.{key}" if key else self.section
        return InputError(self.source, message, line=line, key=full)


def _section(config: Config, name: str, allowed: tuple[str, ...]) -> tuple[dict[str, Any], Where]:
    value = config.sections.get(name)
    if value is None:
        return {}, _SectionWhere(config.path, name, None)
    if not isinstance(value, LineDict):
        raise InputError(config.path, f"expected a mapping, found {type_name(value)}", key=name)
    where = _SectionWhere(config.path, name, value)
    for key in value:
        if key not in allowed:
            raise where.error(unknown_key_message(str(key), allowed), key=str(key))
    return dict(value), where


def _choice(section: dict[str, Any], where: Where, key: str, allowed: tuple[str, ...]) -> Any:
    value = section.get(key)
    if value is not None and value not in allowed:
        raise where.error(f"expected one of {', '.join(allowed)}, found {value!r}", key=key)
    return value


def ci_options(settings: CiSettings, config: Config) -> CiOptions:
    """Merge the inputs (set ones win) with the config's sections and the defaults."""
    comment, comment_where = _section(config, "comment", COMMENT_KEYS)
    baseline, where = _section(config, "baseline", BASELINE_KEYS)
    mode = _choice(comment, comment_where, "mode", tuple(COMMENT_MODES))
    store = _choice(baseline, where, "store", BASELINE_STORES)
    branch = baseline.get("branch")
    if branch is not None and (not isinstance(branch, str) or not _BRANCH.match(branch)):
        raise where.error(f"expected a branch name, found {branch!r}", key="branch")
    file = baseline.get("file")
    if file is not None and (not isinstance(file, str) or not file.strip()):
        raise where.error(f"expected a file path, found {type_name(file)}", key="file")
    rerun = baseline.get("rerun", False)
    if not isinstance(rerun, bool):
        raise where.error(f"expected true or false, found {rerun!r}", key="rerun")
    options = CiOptions(
        comment_mode=settings.comment_mode or mode or DEFAULT_COMMENT_MODE,
        baseline_store=settings.baseline_store or store or "branch",
        baseline_branch=settings.baseline_branch or branch or DATA_BRANCH,
        baseline_file=settings.baseline_file or (config.root / file if file else None),
        rerun=rerun,
    )
    if options.baseline_store == "file" and options.baseline_file is None:
        raise where.error("store: file needs file: (a committed results file)", key="store")
    return options
