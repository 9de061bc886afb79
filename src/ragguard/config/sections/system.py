"""The ``system:`` section of ragguard.yml: how to run the system under test (one adapter:
``python``, ``command``, ``http`` or ``recorded``), its adapter options and the run
settings (``concurrency``, ``timeout``, ``retries``, ``max_error_rate``, ``repeat``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragguard.config.model import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_ERROR_RATE,
    DEFAULT_REPEAT,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    RunSettings,
    SystemConfig,
)
from ragguard.config.reader import Reader
from ragguard.config.sections.suite import resolve_file
from ragguard.core.errors import InputError
from ragguard.core.sources import is_finite_number, type_name
from ragguard.core.yaml_lines import LineDict

ADAPTER_KINDS = ("python", "command", "http", "recorded")
RUN_KEYS = ("concurrency", "timeout", "retries", "max_error_rate", "repeat")
ADAPTER_KEYS: dict[str, tuple[str, ...]] = {
    "python": (),
    "command": ("mode", "env", "traces"),
    "http": ("method", "headers", "body", "params", "response"),
    "recorded": (),
}

MAX_CONCURRENCY = 256
MAX_REPEAT = 20
REPEAT_EXPECTED = f"expected a whole number of runs of the test set from 1 to {MAX_REPEAT}"


def is_whole_repeat(value: Any) -> bool:
    """True for a valid ``repeat``: a whole number from 1 to :data:`MAX_REPEAT`."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_REPEAT


def system_config(reader: Reader, data: LineDict, root: Path) -> SystemConfig:
    """The ``system:`` section of the top-level mapping ``data`` (which holds it)."""
    value = data["system"]
    if not isinstance(value, LineDict):
        raise reader.error(
            f"expected a mapping with one of {', '.join(ADAPTER_KINDS)}, found {type_name(value)}",
            "system",
            data,
            "system",
        )
    kinds = [kind for kind in ADAPTER_KINDS if kind in value]
    allowed = (*kinds, *RUN_KEYS, *(key for kind in kinds for key in ADAPTER_KEYS[kind]))
    if not kinds:
        allowed = (*ADAPTER_KINDS, *RUN_KEYS)
    for key in value:
        if key not in allowed:
            raise _error(reader, value, reader.unknown(key, allowed), str(key))
    if len(kinds) != 1:
        found = " and ".join(kinds) if kinds else "none"
        raise InputError(
            reader.source,
            f"name exactly one way to run the system ({', '.join(ADAPTER_KINDS)}); found {found}",
            line=value.line,
            key="system",
        )
    kind = kinds[0]
    target = value[kind]
    if kind == "recorded":
        target = resolve_file(target, root, lambda message: _error(reader, value, message, kind))
    return SystemConfig(
        kind=kind,
        target=target,
        options={key: value[key] for key in value if key in ADAPTER_KEYS[kind]},
        run=_run_settings(reader, value),
        where=value.where(reader.source),
    )


def _error(reader: Reader, section: LineDict, message: str, key: str) -> InputError:
    """An error about ``system.KEY``, at the line of the key's first part."""
    return reader.error(message, f"system.{key}", section, key.split(".")[0])


def _run_settings(reader: Reader, value: LineDict) -> RunSettings:
    concurrency = value.get("concurrency", DEFAULT_CONCURRENCY)
    if (
        not isinstance(concurrency, int)
        or isinstance(concurrency, bool)
        or not 1 <= concurrency <= MAX_CONCURRENCY
    ):
        raise _error(
            reader, value, f"expected a whole number from 1 to {MAX_CONCURRENCY}", "concurrency"
        )
    retries = value.get("retries", DEFAULT_RETRIES)
    if not isinstance(retries, int) or isinstance(retries, bool) or not 0 <= retries <= 10:
        raise _error(reader, value, "expected a whole number from 0 to 10", "retries")
    rate = value.get("max_error_rate", DEFAULT_MAX_ERROR_RATE)
    if not is_finite_number(rate) or not 0 <= rate <= 1:
        raise _error(
            reader,
            value,
            f"expected a share from 0 to 1 (0.05 = 5%), found {rate!r}",
            "max_error_rate",
        )
    seconds = reader.duration(
        value, "timeout", "system", DEFAULT_TIMEOUT, "30s, 500ms or 2m (or seconds as a number)"
    )
    repeat = value.get("repeat", DEFAULT_REPEAT)
    if not is_whole_repeat(repeat):
        raise _error(reader, value, f"{REPEAT_EXPECTED}, found {repeat!r}", "repeat")
    return RunSettings(
        concurrency=concurrency,
        timeout=seconds,
        retries=retries,
        max_error_rate=float(rate),
        repeat=repeat,
    )
