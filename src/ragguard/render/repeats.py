"""Words for repeats (``system.repeat``): how often each side asked its questions and at what
cost, how stable the questions were, and which became flaky or stable.

Question ids come from the test set: ``escape`` (markdown or terminal) is applied to each.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ragguard.compare.model import FLAKY, STABLE_FAIL, STABLE_PASS, Repeats
from ragguard.render.text import and_more, duration

IDS_SHOWN = 8


def repeat_lines(repeats: Repeats | None, escape: Callable[[str], str]) -> list[str]:
    """The sentences a report shows about repeats; none when every question was asked once."""
    if repeats is None:
        return []
    lines = [cost_line(repeats), *_asymmetry(repeats)]
    if repeats.head_runs[0] > 1:
        lines.append("Questions in this run: " + classes_text(repeats.head_classes) + ".")
    changes = flakiness_text(repeats, escape)
    if changes:
        lines.append(changes)
    return lines


def cost_line(repeats: Repeats) -> str:
    """``Each question asked 3 times: 120 system calls, 4m 10s of system time.``"""
    time = ""
    if repeats.head_system_ms is not None:
        time = f", {duration(repeats.head_system_ms / 1000)} of system time"
    calls = repeats.head_calls
    failed = ""
    if repeats.head_failed_calls:
        failed = f" ({repeats.head_failed_calls} failed: each counts as a failed run)"
    return (
        f"Each question asked {asked(repeats.head_runs)}: "
        f"{calls} system call{'s' if calls != 1 else ''}{failed}{time}."
    )


def asked(runs: tuple[int, int]) -> str:
    """``3 times``, ``once``, ``2 to 3 times``."""
    low, high = runs
    if low == high:
        return "once" if low == 1 else f"{low} times"
    return f"{low} to {high} times"


def _asymmetry(repeats: Repeats) -> list[str]:
    """When the sides asked differently often: still comparable, and what that means."""
    baseline = repeats.baseline_runs
    if baseline is None or baseline == repeats.head_runs:
        return []
    return [
        f"The baseline asked each question {asked(baseline)}, this run "
        f"{asked(repeats.head_runs)}: still comparable (the test is on per-question values, "
        "a pass rate against a single 0 or 1 where one side asked once), but flakiness can "
        "only be compared where both sides asked more than once."
    ]


def classes_text(classes: Mapping[str, int]) -> str:
    """``35 stable pass, 3 flaky, 2 stable fail``."""
    names = ((STABLE_PASS, "stable pass"), (FLAKY, "flaky"), (STABLE_FAIL, "stable fail"))
    return ", ".join(f"{classes.get(key, 0)} {name}" for key, name in names)


def flakiness_text(repeats: Repeats, escape: Callable[[str], str]) -> str:
    """``3 questions became flaky: a, b, c; 2 became stable: d, e.`` (information, not a
    reason for the verdict); empty when nothing changed or flakiness is unknown."""
    if not repeats.flakiness_known:
        return ""
    parts = []
    for ids, what in ((repeats.became_flaky, "flaky"), (repeats.became_stable, "stable")):
        if ids:
            parts.append(f"{_count(ids)} became {what}: {_listed(ids, escape)}")
    if not parts:
        return ""
    baseline = repeats.baseline_classes or {}
    return "; ".join(parts) + f" (baseline: {classes_text(baseline)})."


def _count(ids: Sequence[str]) -> str:
    return f"{len(ids)} question{'s' if len(ids) != 1 else ''}"


def _listed(ids: Sequence[str], escape: Callable[[str], str]) -> str:
    return and_more([escape(i) for i in ids[:IDS_SHOWN]], len(ids))
