"""Test set drift in a report: questions added, removed and relabelled between the runs,
and a truthful note of how the relabelled ones were compared (issue 28)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragguard.compare import ADDED, REMOVED, Comparison, QuestionDiff
from ragguard.render.detail import DRIFT_SHOWN, Detail
from ragguard.render.text import escape_markdown
from ragguard.render.verdict import in_id_order


def drift_context(comparison: Comparison, detail: Detail) -> dict[str, Any]:
    """The test set drift section: added, removed and relabelled questions, and how the
    relabelled ones were compared."""
    groups = {
        "added": in_id_order(comparison.of_kind(ADDED)),
        "removed": in_id_order(comparison.of_kind(REMOVED)),
        "relabelled": in_id_order(comparison.relabelled),
    }
    limit = DRIFT_SHOWN if detail.compact else None
    lists = {}
    for name, items in groups.items():
        ids = [escape_markdown(q.id, 120) for q in items[:limit]] if detail.drift_list else []
        if detail.drift_list and len(items) > len(ids):
            ids.append(f"and {len(items) - len(ids)} more")
        lists[name] = ids
    return {
        "any": any(groups.values()) and not comparison.baseline_missing,
        "counts": {name: len(items) for name, items in groups.items()},
        "lists": lists,
        "relabel_note": relabel_note(groups["relabelled"]),
    }


RESCORED_NOTE = (
    "re-scored on the baseline's retrieved chunks with the new labels, so a label fix does not "
    "show as a regression"
)
KEPT_NOTE = (
    "keep the baseline's values under the old labels (evidence labels: judging the baseline's "
    "chunks by the new evidence needs their text, which results do not keep), so a label fix "
    "can show as a change"
)


def relabel_note(relabelled: Sequence[QuestionDiff]) -> str:
    """How the relabelled questions were compared, truthfully: re-scored, or (evidence
    labels) compared with the baseline's values under the old labels."""
    kept = sum(1 for q in relabelled if q.relabel_kept)
    rescored = len(relabelled) - kept
    if not kept:
        return f"Relabelled questions are {RESCORED_NOTE}." if rescored else ""
    if not rescored:
        return f"Relabelled questions {KEPT_NOTE}."
    return (
        f"{rescored} relabelled question{'s are' if rescored != 1 else ' is'} {RESCORED_NOTE}; "
        f"{kept} with evidence labels {KEPT_NOTE.replace('keep', 'keeps' if kept == 1 else 'keep', 1)}."
    )
