"""Commit statuses: a stable context per suite, a description GitHub accepts."""

from __future__ import annotations

from dataclasses import dataclass

STATES = ("pending", "success", "failure", "error")
MAX_DESCRIPTION = 140
ACCEPTED_BY = "accepted by @"  # how an acceptance's status description starts (ci/accept.py)


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


def acceptance_description(login: str, reason: str) -> str:
    """The status of an accepted regression: ``accepted by @login: reason``."""
    return f"{ACCEPTED_BY}{login}: {reason}"


def accepted_by(description: str) -> tuple[str, str] | None:
    """(login, reason) of an acceptance's status description, None for any other."""
    if not description.startswith(ACCEPTED_BY):
        return None
    login, colon, reason = description.removeprefix(ACCEPTED_BY).partition(": ")
    return (login, reason) if login and colon else None
