"""The judge's API key, from the environment variable ragguard.yml names
(``judge.api_key_env``): read when the client is built, and checked before a run asks the
system anything, so a missing key costs no run."""

from __future__ import annotations

import os
from collections.abc import Mapping

from ragguard.core.errors import InputError
from ragguard.metrics.settings import JudgeSettings


def api_key(settings: JudgeSettings, environ: Mapping[str, str] | None = None) -> str | None:
    """The judge's key from the variable ``api_key_env`` names (None when it names none);
    InputError when that variable is not set."""
    environ = os.environ if environ is None else environ
    if not settings.api_key_env:
        return None
    key = environ.get(settings.api_key_env)
    if not key:
        raise InputError(
            settings.source,
            f"environment variable {settings.api_key_env} is not set; export the "
            "judge's API key in it (or remove api_key_env for a server without a key)",
            key="judge.api_key_env",
        )
    return key
