"""ragguard.yml: one file describes a suite; this module turns it into a typed :class:`Config`.

Every problem is an :class:`InputError` naming the file, the key and its line. Paths are
relative to the folder holding ragguard.yml (the repository root, usually).

This module validates ``suite``, ``testset``, ``corpus``, ``system`` and ``metrics``. The
other sections (``gate``, ``faithfulness``, ``judge``, ``answer_relevance``, ``abstention``,
``baseline``, ``comment``) belong to the code that uses them: they are kept here as parsed
(:class:`~ragguard.core.yaml_lines.LineDict`, line numbers preserved) in :attr:`Config.sections`,
and their owners type them from the loaded :class:`Config` without reading the file again
(``gate.gate_rules_of``, ``judge.settings.generation_settings_of``, ``ci.sections``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import is_finite_number, read_text, type_name, unknown_key_message
from ragguard.core.yaml_lines import LineDict, LineList, parse_yaml
from ragguard.metrics.names import (
    DEFAULT_METRICS,
    MetricNameError,
    MetricSpec,
    parse_metric_list,
)
from ragguard.metrics.settings import DEFAULT_MIN_COVERAGE

DEFAULT_CONFIG_NAME = "ragguard.yml"

OWN_KEYS = ("suite", "testset", "corpus", "system", "metrics", "evidence")
EVIDENCE_KEYS = ("min_coverage",)
SECTION_KEYS = (
    "gate",
    "faithfulness",
    "judge",
    "answer_relevance",
    "abstention",
    "baseline",
    "comment",
)
TOP_LEVEL_KEYS = OWN_KEYS + SECTION_KEYS
# sections whose value must be a mapping; the generation ones may also be a method name
MAPPING_SECTIONS = ("gate", "judge", "baseline", "comment")
METHOD_SECTIONS = ("faithfulness", "answer_relevance", "abstention")

ADAPTER_KINDS = ("python", "command", "http", "recorded")
RUN_KEYS = ("concurrency", "timeout", "retries", "max_error_rate", "repeat")
ADAPTER_KEYS: dict[str, tuple[str, ...]] = {
    "python": (),
    "command": ("mode", "env"),
    "http": ("method", "headers", "body", "params", "response"),
    "recorded": (),
}

DEFAULT_CONCURRENCY = 4
DEFAULT_TIMEOUT = 30.0
DEFAULT_RETRIES = 2
DEFAULT_MAX_ERROR_RATE = 0.05
MAX_CONCURRENCY = 256
DEFAULT_REPEAT = 1
MAX_REPEAT = 20

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min)?\s*$")
_UNIT_SECONDS = {None: 1.0, "s": 1.0, "ms": 0.001, "m": 60.0, "min": 60.0}


@dataclass(frozen=True, slots=True)
class RunSettings:
    """How the runner drives the system: parallel questions, time limit, retries, and how
    many times the whole test set is asked (``repeat``, repeats.py)."""

    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE
    repeat: int = DEFAULT_REPEAT


@dataclass(frozen=True)
class SystemConfig:
    """The ``system:`` section: which adapter, its target, its options and run settings.

    ``target`` is the value of the adapter's key (``python: app.rag:answer`` gives
    ``"app.rag:answer"``); ``options`` holds the adapter-specific keys as parsed.
    """

    kind: str
    target: Any
    options: dict[str, Any]
    run: RunSettings
    where: Where

    def error(self, message: str, key: str) -> InputError:
        """An error about ``system.KEY`` (``key`` may go deeper: ``response.answer``)."""
        return _system_error(self.where, message, key)


@dataclass(frozen=True)
class Config:
    path: Path
    root: Path
    suite: str
    testset: Path
    corpus: Path | None
    system: SystemConfig
    metrics: tuple[MetricSpec, ...]
    # The top-level mapping cut down to the sections: their owners' errors need the line of
    # a section's key, and of the mapping itself for a section that is missing.
    sections: LineDict
    min_coverage: float = DEFAULT_MIN_COVERAGE  # evidence labels: share a chunk must hold


def load_config(path: str | Path) -> Config:
    """Read and validate a ragguard.yml."""
    path = Path(path)
    if not path.exists():
        raise InputError(
            path, "config file not found; create one with `ragguard init` or pass -c PATH"
        )
    data = parse_yaml(read_text(path, what="config file"), path)
    return config_from_mapping(data, path)


def config_from_mapping(data: Any, path: Path) -> Config:
    if not isinstance(data, LineDict):
        raise InputError(path, f"expected a mapping of settings, found {type_name(data)}", line=1)
    where = data.where(path)
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            raise where.error(unknown_key_message(str(key), TOP_LEVEL_KEYS), key=str(key))
    root = path.resolve().parent
    if "system" not in data:
        raise where.error(
            "missing; say how to run your system, e.g. `system: {python: app.rag:answer}`",
            key="system",
        )
    return Config(
        path=path,
        root=root,
        suite=_suite(data, where, root),
        testset=_existing_path(data, "testset", where, root, required=True),  # type: ignore[arg-type]
        corpus=_existing_path(data, "corpus", where, root, required=False),
        system=_system(data["system"], where, root),
        metrics=_metrics(data.get("metrics"), where),
        sections=_sections(data, where),
        min_coverage=min_coverage_of(data, path),
    )


def min_coverage_of(data: Any, source: str | Path) -> float:
    """``evidence.min_coverage`` of a parsed ragguard.yml: the share of an evidence label a
    chunk must hold to be judged relevant (0 < value <= 1)."""
    if not isinstance(data, LineDict) or data.get("evidence") is None:
        return DEFAULT_MIN_COVERAGE
    where = data.where(source)
    section = data["evidence"]
    if not isinstance(section, LineDict):
        raise where.error(f"expected a mapping, found {type_name(section)}", key="evidence")
    inner = section.where(source)
    for key in section:
        if key not in EVIDENCE_KEYS:
            raise inner.error(unknown_key_message(str(key), EVIDENCE_KEYS), key=f"evidence.{key}")
    value = section.get("min_coverage", DEFAULT_MIN_COVERAGE)
    if not (is_finite_number(value) and 0 < value <= 1):
        raise inner.error(
            f"expected a share above 0 and at most 1 (e.g. 0.5), found {value!r}",
            key="evidence.min_coverage",
        )
    return float(value)


def _sections(data: LineDict, where: Where) -> LineDict:
    """The sections as parsed, once each has the shape its owner reads (errors need the line
    of the section's key, which only the top-level mapping knows, so it is kept)."""
    for key in (*MAPPING_SECTIONS, *METHOD_SECTIONS):
        value = data.get(key)
        if value is None or isinstance(value, LineDict):
            continue
        if key in METHOD_SECTIONS and isinstance(value, str):
            continue
        expected = "a mapping or a method name" if key in METHOD_SECTIONS else "a mapping"
        raise where.error(f"expected {expected}, found {type_name(value)}", key=key)
    sections = LineDict({key: data[key] for key in SECTION_KEYS if key in data})
    sections.line = data.line
    sections.key_lines = {key: line for key, line in data.key_lines.items() if key in sections}
    return sections


def _suite(data: LineDict, where: Where, root: Path) -> str:
    value = data.get("suite")
    if value is None:
        return root.name or "ragguard"
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", value):
        raise where.error(
            f"expected a name of letters, digits, '.', '_' or '-', found {value!r}", key="suite"
        )
    return value


def _existing_path(
    data: LineDict, key: str, where: Where, root: Path, *, required: bool
) -> Path | None:
    value = data.get(key)
    if value is None:
        if required:
            raise where.error("missing; the path of your labelled test set", key=key)
        return None
    return resolve_file(value, root, lambda message: where.error(message, key=key))


def resolve_file(value: Any, root: Path, fail: Callable[[str], InputError]) -> Path:
    """A path relative to the config's folder that must name an existing file."""
    if not isinstance(value, str) or not value.strip():
        raise fail(f"expected a file path, found {type_name(value)}")
    if "\0" in value:
        raise fail("the path holds a NUL byte (\\0); remove it")
    try:
        resolved = (root / value).resolve()
        if not resolved.exists():
            raise fail(f"file {value!r} not found (paths are relative to {root})")
        if resolved.is_dir():
            raise fail(f"{value!r} is a directory, expected a file")
    except OSError as exc:  # a name too long for the file system
        raise fail(f"cannot use the path: {exc.strerror or exc}; check it") from None
    return resolved


def _metrics(value: Any, where: Where) -> tuple[MetricSpec, ...]:
    if value is None:
        return parse_metric_list(list(DEFAULT_METRICS))
    line = where.key_lines.get("metrics")
    if isinstance(value, str):
        items, lines = value.split(","), [line] * len(value.split(","))
    elif isinstance(value, LineList):
        _check_metric_items(value, where)
        items, lines = list(value), list(value.item_lines)
    else:
        raise where.error(
            f"expected a list of metric names, found {type_name(value)}", key="metrics"
        )
    for item, item_line in zip(items, lines, strict=True):
        if not item.strip():
            continue
        try:
            parse_metric_list([item])
        except MetricNameError as exc:
            raise InputError(where.source, str(exc), line=item_line, key="metrics") from None
    try:
        return parse_metric_list(items)
    except MetricNameError as exc:
        raise InputError(where.source, str(exc), line=line, key="metrics") from None


def _check_metric_items(value: LineList, where: Where) -> None:
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise InputError(
                where.source,
                f"expected a metric name such as mrr or ndcg@3, found {type_name(item)}",
                line=value.item_lines[index],
                key=f"metrics[{index}]",
            )


def _system(value: Any, where: Where, root: Path) -> SystemConfig:
    if not isinstance(value, LineDict):
        raise where.error(
            f"expected a mapping with one of {', '.join(ADAPTER_KINDS)}, found {type_name(value)}",
            key="system",
        )
    inner = value.where(where.source)
    kinds = [kind for kind in ADAPTER_KINDS if kind in value]
    allowed = (*kinds, *RUN_KEYS, *(key for kind in kinds for key in ADAPTER_KEYS[kind]))
    if not kinds:
        allowed = (*ADAPTER_KINDS, *RUN_KEYS)
    for key in value:
        if key not in allowed:
            raise _system_error(inner, unknown_key_message(str(key), allowed), str(key))
    if len(kinds) != 1:
        found = " and ".join(kinds) if kinds else "none"
        raise InputError(
            where.source,
            f"name exactly one way to run the system ({', '.join(ADAPTER_KINDS)}); found {found}",
            line=value.line,
            key="system",
        )
    kind = kinds[0]
    target = value[kind]
    if kind == "recorded":
        target = resolve_file(target, root, lambda message: _system_error(inner, message, kind))
    return SystemConfig(
        kind=kind,
        target=target,
        options={key: value[key] for key in value if key in ADAPTER_KEYS[kind]},
        run=_run_settings(value, inner),
        where=inner,
    )


def _system_error(where: Where, message: str, key: str) -> InputError:
    top = key.split(".")[0]
    return InputError(
        where.source, message, line=where.key_lines.get(top, where.line), key=f"system.{key}"
    )


def _run_settings(value: LineDict, where: Where) -> RunSettings:
    concurrency = value.get("concurrency", DEFAULT_CONCURRENCY)
    if (
        not isinstance(concurrency, int)
        or isinstance(concurrency, bool)
        or not 1 <= concurrency <= MAX_CONCURRENCY
    ):
        raise _system_error(
            where, f"expected a whole number from 1 to {MAX_CONCURRENCY}", "concurrency"
        )
    retries = value.get("retries", DEFAULT_RETRIES)
    if not isinstance(retries, int) or isinstance(retries, bool) or not 0 <= retries <= 10:
        raise _system_error(where, "expected a whole number from 0 to 10", "retries")
    rate = value.get("max_error_rate", DEFAULT_MAX_ERROR_RATE)
    if not is_finite_number(rate) or not 0 <= rate <= 1:
        raise _system_error(
            where, f"expected a share from 0 to 1 (0.05 = 5%), found {rate!r}", "max_error_rate"
        )
    timeout = value.get("timeout", DEFAULT_TIMEOUT)
    seconds = parse_duration(timeout)
    if seconds is None:
        raise _system_error(
            where,
            f"expected a duration such as 30s, 500ms or 2m (or seconds as a number), found {timeout!r}",
            "timeout",
        )
    repeat = value.get("repeat", DEFAULT_REPEAT)
    if not is_whole_repeat(repeat):
        raise _system_error(where, f"{REPEAT_EXPECTED}, found {repeat!r}", "repeat")
    return RunSettings(
        concurrency=concurrency,
        timeout=seconds,
        retries=retries,
        max_error_rate=float(rate),
        repeat=repeat,
    )


REPEAT_EXPECTED = f"expected a whole number of runs of the test set from 1 to {MAX_REPEAT}"


def is_whole_repeat(value: Any) -> bool:
    """True for a valid ``repeat``: a whole number from 1 to :data:`MAX_REPEAT`."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_REPEAT


def with_repeat(config: Config, repeat: int | None) -> Config:
    """The config with ``system.repeat`` set to ``repeat`` (``--repeat``, the action's
    ``repeat`` input); unchanged when ``repeat`` is None."""
    if repeat is None:
        return config
    run = replace(config.system.run, repeat=repeat)
    return replace(config, system=replace(config.system, run=run))


def parse_duration(value: Any) -> float | None:
    """Seconds from ``30s``, ``500ms``, ``2m`` or a plain number; ``None`` if invalid or <= 0."""
    if is_finite_number(value):
        seconds = float(value)
    elif isinstance(value, str) and (match := _DURATION.match(value)):
        seconds = float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    else:
        return None
    return seconds if seconds > 0 else None
