"""The ``baseline:`` and ``comment:`` sections of ragguard.yml: the file's part of the CI
options (the action's inputs that override them are merged in ``ci/options.py``).

```yaml
baseline: {store: branch, branch: ragguard-data}   # or store: artifact | file | none
baseline: {store: file, file: eval/baseline.json}   # a committed results file
baseline: {rerun: true}     # no stored baseline: evaluate the merge base in a git worktree
comment: {mode: new-on-worse}           # or update | new | on-regression | off
```

Errors name the file, line and key, like every config error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragguard.config.reader import Reader
from ragguard.core.errors import InputError
from ragguard.core.sources import type_name

if TYPE_CHECKING:
    from ragguard.config.model import Config

NEW_ON_WORSE = "new-on-worse"
COMMENT_MODES = (NEW_ON_WORSE, "update", "new", "on-regression", "off")
DEFAULT_COMMENT_MODE = NEW_ON_WORSE
BASELINE_STORES = ("branch", "artifact", "file", "none")
BASELINE_KEYS = ("store", "branch", "file", "rerun")
COMMENT_KEYS = ("mode",)
_BRANCH = re.compile(r"^[A-Za-z0-9._/-]+$")


@dataclass(frozen=True)
class CiSections:
    """What ragguard.yml says of the baseline and the comment; None where it says nothing
    (an input, else the default, decides)."""

    comment_mode: str | None = None
    baseline_store: str | None = None
    baseline_branch: str | None = None
    baseline_file: str | None = None  # as written: relative to the config's folder
    rerun: bool = False
    reader: Reader = field(default_factory=lambda: Reader(""), compare=False, repr=False)
    baseline: Any = field(default=None, compare=False, repr=False)  # the section as parsed

    def baseline_error(self, message: str, key: str) -> InputError:
        """An error about ``baseline.KEY``, at its line (the section's, when not set there)."""
        return self.reader.error(message, f"baseline.{key}", self.baseline, key)


def ci_sections_of(config: Config) -> CiSections:
    """The ``baseline:`` and ``comment:`` sections of a loaded ragguard.yml
    (:attr:`Config.ci <ragguard.config.model.Config.ci>`)."""
    return ci_sections(config.sections, config.path)


def ci_sections(data: Mapping[str, Any], source: str | Path) -> CiSections:
    """Type the ``baseline:`` and ``comment:`` sections of a parsed ragguard.yml (``data``,
    the top-level mapping or its sections)."""
    reader = Reader(source, allowed="allowed keys")
    comment = _section(reader, data, "comment", COMMENT_KEYS)
    baseline = _section(reader, data, "baseline", BASELINE_KEYS)
    mode = reader.choice(comment, "mode", "comment", COMMENT_MODES, optional=True)
    store = reader.choice(baseline, "store", "baseline", BASELINE_STORES, optional=True)
    branch = baseline.get("branch")
    if branch is not None and (not isinstance(branch, str) or not _BRANCH.match(branch)):
        raise reader.error(
            f"expected a branch name, found {branch!r}", "baseline.branch", baseline, "branch"
        )
    file = baseline.get("file")
    if file is not None and (not isinstance(file, str) or not file.strip()):
        raise reader.error(
            f"expected a file path, found {type_name(file)}", "baseline.file", baseline, "file"
        )
    rerun = reader.boolean(baseline, "rerun", "baseline", False, found=repr)
    return CiSections(
        comment_mode=mode,
        baseline_store=store,
        baseline_branch=branch,
        baseline_file=file,
        rerun=rerun,
        reader=reader,
        baseline=data.get("baseline"),
    )


def _section(
    reader: Reader, data: Mapping[str, Any], name: str, allowed: tuple[str, ...]
) -> Mapping[str, Any]:
    """The section as parsed ({} when absent); a section that is no mapping is refused
    without a line (load_config checked the local file's with one; a target branch's copy is
    not checked before)."""
    value = data.get(name)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise reader.error(f"expected a mapping, found {type_name(value)}", name)
    reader.known_keys(value, allowed, name)
    return value
