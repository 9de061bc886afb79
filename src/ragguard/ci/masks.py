"""Log masks: the step's secrets announced with ``::add-mask::`` before anything is logged,
so the runner hides them wherever they would appear in the log."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ragguard.core.errors import InputError

if TYPE_CHECKING:
    from ragguard.config.load import ConfigFile

MIN_MASK_LENGTH = 4  # masking "a" or "ok" would blank out half the log


def mask_secrets(values: Iterable[str | None], emit: Callable[[str], object]) -> int:
    """``::add-mask::`` for each secret (each line of a multi-line one); how many were sent.

    GitHub masks ``secrets.*`` and the job token by itself; this covers a key that reached the
    step another way (a variable set by an earlier step, a token minted by an app).
    """
    lines = {
        line.strip()
        for value in values
        if value
        for line in value.splitlines()
        if len(line.strip()) >= MIN_MASK_LENGTH
    }
    for line in sorted(lines):
        emit(f"::add-mask::{line}")
    return len(lines)


def ci_secrets(
    env: Mapping[str, str], token: str | None, config: ConfigFile | Path | None
) -> list[str]:
    """The secrets a `ragguard ci` step holds: the GitHub token and the judge's API key.

    The key's variable is named by ``judge.api_key_env`` in the config (``config``: the
    :class:`~ragguard.config.load.ConfigFile` the run then loads, so the file is parsed
    once); a config that cannot be read yields no key here (the run reports the mistake
    itself, in one line).
    """
    from ragguard.config.load import ConfigFile
    from ragguard.config.sections.generation import generation_settings

    found = [token]
    file = ConfigFile(config) if isinstance(config, Path) else config
    try:
        raw = file.document() if file is not None else None
        judge = generation_settings(raw, str(file.path)).judge if raw is not None else None
    except InputError:
        judge = None
    if judge is not None and judge.api_key_env:
        found.append(env.get(judge.api_key_env))
    return [value for value in found if value]
