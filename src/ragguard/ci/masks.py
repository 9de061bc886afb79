"""Log masks: the step's secrets announced with ``::add-mask::`` before anything is logged,
so the runner hides them wherever they would appear in the log."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ragguard.core.errors import InputError

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


def ci_secrets(env: Mapping[str, str], token: str | None, config: Path | None) -> list[str]:
    """The secrets a `ragguard ci` step holds: the GitHub token and the judge's API key.

    The key's variable is named by ``judge.api_key_env`` in the config; a config that cannot
    be read yields no key here (the run reports the mistake itself, in one line).
    """
    from ragguard.judge.settings import generation_settings
    from ragguard.judge.setup import load_generation_config

    found = [token]
    try:
        raw, source = load_generation_config(config)
        judge = generation_settings(raw, source).judge if raw is not None else None
    except InputError:
        judge = None
    if judge is not None and judge.api_key_env:
        found.append(env.get(judge.api_key_env))
    return [value for value in found if value]
