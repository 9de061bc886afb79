"""Commit statuses: a stable context per suite, a description GitHub accepts."""

from __future__ import annotations

from dataclasses import dataclass

STATES = ("pending", "success", "failure", "error")
MAX_DESCRIPTION = 140


def status_context(suite: str) -> str:
    """The context branch protection requires, ``ragguard/<suite>``."""
    return f"ragguard/{suite}"


def clip_description(text: str) -> str:
    """One line under 140 characters (GitHub refuses descriptions over 140 with a 422)."""
    line = " ".join(text.split())
    limit = MAX_DESCRIPTION - 1
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def check_state(state: str) -> str:
    if state not in STATES:
        raise ValueError(f"commit status state {state!r} is not one of {', '.join(STATES)}")
    return state


@dataclass(frozen=True, slots=True)
class StatusInfo:
    """A commit status as read back: its state, description and when it was last set."""

    state: str
    description: str
    updated_at: str | None
