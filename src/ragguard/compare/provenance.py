"""Where the baseline came from, how old it is, latency, and settings that differ."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from ragguard.compare.model import Provenance, SettingDiff
from ragguard.metrics.stats import percentile
from ragguard.results.model import Results


def latency_percentile(results: Results, q: float) -> float | None:
    values = [x.latency_ms for x in results.questions if x.latency_ms is not None]
    return percentile(values, q) if values else None


def provenance_of(baseline: Results, head: Results) -> Provenance:
    """Commit, branch and age of the baseline, the age measured against the head run."""
    ref = baseline.git.get("ref") or None
    branch = ref.removeprefix("refs/heads/") if ref else None
    return Provenance(
        commit=baseline.git.get("sha") or None,
        branch=branch,
        created_at=baseline.created_at or None,
        age=describe_age(baseline.created_at, head.created_at),
    )


NEWER = "newer than this run"  # a baseline evaluated after the run (a rerun of the merge base)


def describe_age(then: str, now: str) -> str | None:
    """ "3 days" from two ISO timestamps, or :data:`NEWER` (a relation, not a duration:
    renderers say it as it is); None if either cannot be read."""
    try:
        start, end = datetime.fromisoformat(then), datetime.fromisoformat(now)
        seconds = (end - start).total_seconds()
    except (TypeError, ValueError):
        return None
    if seconds < 0:
        return NEWER
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'' if count == 1 else 's'}"
    return "less than a minute"


def setting_diffs(
    baseline: Mapping[str, Any], head: Mapping[str, Any], one_sided: Collection[str] = ()
) -> tuple[SettingDiff, ...]:
    """The settings (dotted keys) whose values differ between the two configs.

    The settings of a metric in ``one_sided`` (scored by one run only: shown, not compared)
    are left out: ``abstention.method`` in a head that scores abstention by default does
    not make it incomparable with a baseline from before (docs/generation.md).
    """
    before, after = _flatten(baseline), _flatten(head)
    return tuple(
        SettingDiff(key, before.get(key, "(not set)"), after.get(key, "(not set)"))
        for key in sorted(before.keys() | after.keys())
        if before.get(key) != after.get(key) and key.partition(".")[0] not in one_sided
    )


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            flat.update(_flatten(value, path + "."))
        else:
            flat[path] = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return flat
