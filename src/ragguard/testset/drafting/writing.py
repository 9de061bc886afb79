"""Drafts as test-set YAML: one list item each, in the shapes the loader reads
(docs/formats.md, docs/agents.md), with ``status: draft`` and where they came from.

A draft's ``kind`` and ``source`` are keys of its entry (a conversation's, for a follow-up
draft, with its ``status``), as the loader reads them. Appending writes after the file's last byte:
the bytes there stay as they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml

from ragguard.testset.drafting.model import DRAFT_STATUS, UNANSWERABLE, Draft, Quote

LINE_WIDTH = 4096  # each field on one line: drafts are read and diffed by people


def evidence_list(quotes: Sequence[Quote]) -> list[dict[str, str]]:
    return [{"doc": quote.doc, "quote": quote.quote} for quote in quotes]


def draft_entry(draft: Draft) -> dict[str, Any]:
    """The test-set entry of a draft (a conversation's for a follow-up draft)."""
    marks = {"kind": draft.kind, "source": draft.source, "status": DRAFT_STATUS}
    if draft.turns:
        turns = [
            {
                "question": t.question,
                "relevant": evidence_list(t.evidence),
                "reference_answer": t.answer,
            }
            for t in draft.turns
        ]
        return {"id": draft.id, "turns": turns, **marks}
    entry: dict[str, Any] = {"id": draft.id, "question": draft.question}
    if draft.kind == UNANSWERABLE:
        entry["answerable"] = False
    elif draft.hops:
        entry["hops"] = [{"relevant": evidence_list(hop)} for hop in draft.hops]
    else:
        entry["relevant"] = evidence_list(draft.evidence)
    if draft.answer is not None:
        entry["reference_answer"] = draft.answer
    return {**entry, **marks}


def drafts_yaml(drafts: Sequence[Draft], header: str) -> str:
    """The drafts as YAML list items under a ``#`` comment line ``header``."""
    body = yaml.safe_dump(
        [draft_entry(draft) for draft in drafts],
        sort_keys=False,
        allow_unicode=True,
        width=LINE_WIDTH,
        default_flow_style=False,
    )
    return f"# {header}\n{body}"


def appended(existing: str, addition: str) -> str:
    """``existing`` followed by ``addition`` on a line of its own after a blank line."""
    if not existing:
        return addition
    separator = "\n" if existing.endswith("\n") else "\n\n"
    return existing + separator + addition
