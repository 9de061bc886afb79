"""The judge's API key, from the environment variable ragguard.yml names
(``judge.api_key_env``): read when the client is built, and checked before a run asks the
system anything, so a missing key costs no run."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from ragguard.core.errors import InputError
from ragguard.metrics.settings import JudgeSettings


def api_key(
    settings: JudgeSettings,
    environ: Mapping[str, str] | None = None,
    *,
    judged: Sequence[str] = (),
) -> str | None:
    """The judge's key from the variable ``api_key_env`` names (None when it names none);
    InputError when that variable is not set, at ``judge.api_key_env``'s line.

    ``judged``: the ragguard.yml sections whose metrics need the judge (``abstention``,
    ``faithfulness``); the error then names them and their offline method."""
    environ = os.environ if environ is None else environ
    if not settings.api_key_env:
        return None
    key = environ.get(settings.api_key_env)
    if not key:
        raise InputError(
            settings.source,
            missing_key_message(settings.api_key_env, judged),
            line=settings.api_key_line,
            key="judge.api_key_env",
        )
    return key


def missing_key_message(variable: str, judged: Sequence[str]) -> str:
    """What to do when the key's variable is not set: export it, or (``judged``: the
    sections using the judge) choose their offline method."""
    if not judged:
        return (
            f"environment variable {variable} is not set; export the judge's API key in it "
            "(or remove api_key_env for a server without a key)"
        )
    names = " and ".join(judged)
    verb = "uses" if len(judged) == 1 else "use"
    offline = ", ".join(f"{name}: {{method: lexical}}" for name in judged)
    return (
        f"environment variable {variable} is not set, and {names} {verb} the judge "
        f"(method: judge); export the judge's API key in {variable}, or choose the offline "
        f"method ({offline})"
    )
