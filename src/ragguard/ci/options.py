"""The CI options: ragguard.yml's ``baseline:`` and ``comment:`` sections
(:class:`~ragguard.config.sections.ci.CiSections`) merged with the action's inputs.

An input that is set wins; else the section's key; else the default. Errors name the file,
line and key, like every config error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragguard.ci.settings import CiSettings
from ragguard.config.model import Config
from ragguard.config.sections.ci import DEFAULT_COMMENT_MODE, CiSections
from ragguard.github import DATA_BRANCH


@dataclass(frozen=True)
class CiOptions:
    """What the pipeline uses, after inputs, ragguard.yml and defaults are merged."""

    comment_mode: str = DEFAULT_COMMENT_MODE
    baseline_store: str = "branch"
    baseline_branch: str = DATA_BRANCH
    baseline_file: Path | None = None
    rerun: bool = False


def ci_options(settings: CiSettings, config: Config) -> CiOptions:
    """Merge the inputs (set ones win) with the config's sections and the defaults."""
    return merged_options(settings, config.ci, config.root)


def merged_options(settings: CiSettings, sections: CiSections, root: Path) -> CiOptions:
    """Merge the inputs with ``sections`` (a ``baseline.file`` is relative to ``root``)."""
    file = sections.baseline_file
    options = CiOptions(
        comment_mode=settings.comment_mode or sections.comment_mode or DEFAULT_COMMENT_MODE,
        baseline_store=settings.baseline_store or sections.baseline_store or "branch",
        baseline_branch=settings.baseline_branch or sections.baseline_branch or DATA_BRANCH,
        baseline_file=settings.baseline_file or (root / file if file else None),
        rerun=sections.rerun,
    )
    if options.baseline_store == "file" and options.baseline_file is None:
        raise sections.baseline_error("store: file needs file: (a committed results file)", "store")
    return options
