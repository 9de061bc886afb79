"""The suite's own keys of ragguard.yml: ``suite``, ``testset``, ``corpus``, ``metrics`` and
``evidence``. Paths are relative to the folder holding ragguard.yml (the repository root,
usually)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragguard.config.reader import Reader
from ragguard.core.errors import InputError
from ragguard.core.sources import is_finite_number, type_name
from ragguard.core.surrogates import SURROGATE
from ragguard.core.yaml_lines import LineDict, LineList
from ragguard.metrics.names import (
    DEFAULT_METRICS,
    MetricNameError,
    MetricSpec,
    parse_metric_list,
)
from ragguard.metrics.settings import DEFAULT_MIN_COVERAGE

EVIDENCE_KEYS = ("min_coverage",)


def suite_name(reader: Reader, data: LineDict, root: Path) -> str:
    """``suite``: a name of letters, digits, '.', '_' or '-'; the config's folder by default."""
    value = data.get("suite")
    if value is None and SURROGATE.search(root.name):  # a folder name that is not UTF-8
        raise reader.error(
            f"missing, and the folder's name ({root.name!a}) is not UTF-8 text to name "
            "the suite after; set suite:",
            "suite",
        )
    if value is None:
        return root.name or "ragguard"
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", value):
        raise reader.error(
            f"expected a name of letters, digits, '.', '_' or '-', found {value!r}",
            "suite",
            data,
            "suite",
        )
    return value


def existing_path(
    reader: Reader, data: LineDict, key: str, root: Path, *, required: bool
) -> Path | None:
    """``testset`` or ``corpus``: an existing file, relative to the config's folder."""
    value = data.get(key)
    if value is None:
        if required:
            raise reader.error("missing; the path of your labelled test set", key, data, key)
        return None
    return resolve_file(value, root, lambda message: reader.error(message, key, data, key))


def corpus_paths(reader: Reader, data: LineDict, root: Path) -> tuple[Path | None, Path | None]:
    """``corpus``: a chunk file (JSON Lines) or a folder of documents, relative to the
    config's folder; returned as (chunk file, documents folder), one of them None. A folder
    is what ``ragguard coverage`` and the pull request's coverage line read; runs and scoring
    read chunk text from a file only."""
    value = data.get("corpus")
    if isinstance(value, str) and value.strip() and "\0" not in value:
        try:
            folder = (root / value).resolve()
            if folder.is_dir():
                return None, folder
        except OSError:
            pass  # resolve_file says what is wrong with the path
    return existing_path(reader, data, "corpus", root, required=False), None


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


def metric_specs(reader: Reader, data: LineDict) -> tuple[MetricSpec, ...]:
    """``metrics``: a list of names (or one comma-separated string); the default set if absent."""
    value = data.get("metrics")
    if value is None:
        return parse_metric_list(list(DEFAULT_METRICS))
    line = data.key_lines.get("metrics")
    if isinstance(value, str):
        items, lines = value.split(","), [line] * len(value.split(","))
    elif isinstance(value, LineList):
        _check_metric_items(reader, value)
        items, lines = list(value), list(value.item_lines)
    else:
        raise reader.error(
            f"expected a list of metric names, found {type_name(value)}", "metrics", data, "metrics"
        )
    for item, item_line in zip(items, lines, strict=True):
        if not item.strip():
            continue
        try:
            parse_metric_list([item])
        except MetricNameError as exc:
            raise InputError(reader.source, str(exc), line=item_line, key="metrics") from None
    try:
        return parse_metric_list(items)
    except MetricNameError as exc:
        raise InputError(reader.source, str(exc), line=line, key="metrics") from None


def _check_metric_items(reader: Reader, value: LineList) -> None:
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise InputError(
                reader.source,
                f"expected a metric name such as mrr or ndcg@3, found {type_name(item)}",
                line=value.item_lines[index],
                key=f"metrics[{index}]",
            )


def min_coverage_of(data: Any, source: str | Path) -> float:
    """``evidence.min_coverage`` of a parsed ragguard.yml: the share of an evidence label a
    chunk must hold to be judged relevant (0 < value <= 1)."""
    if not isinstance(data, LineDict) or data.get("evidence") is None:
        return DEFAULT_MIN_COVERAGE
    reader = Reader(source, allowed="allowed keys")
    section = data["evidence"]
    if not isinstance(section, LineDict):
        raise reader.error(
            f"expected a mapping, found {type_name(section)}", "evidence", data, "evidence"
        )
    for key in section:  # errors inside the section are at its line, or its own evidence key's
        if key not in EVIDENCE_KEYS:
            raise reader.error(
                reader.unknown(key, EVIDENCE_KEYS), f"evidence.{key}", section, "evidence"
            )
    value = section.get("min_coverage", DEFAULT_MIN_COVERAGE)
    if not (is_finite_number(value) and 0 < value <= 1):
        raise reader.error(
            f"expected a share above 0 and at most 1 (e.g. 0.5), found {value!r}",
            "evidence.min_coverage",
            section,
            "evidence",
        )
    return float(value)
