"""The sticky pull request comment: one per suite, found by a hidden marker, updated in place.

Only comments written by the token's own user count: anyone can paste the marker into a comment
of their own, and that comment must never be edited (we could not) nor mistaken for ours.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

MODES = ("update", "new", "on-regression", "off")
MAX_BODY = 65536
TRUNCATION_NOTE = (
    "\n\n…(comment truncated at GitHub's size limit; the full report is in the job summary)"
)


class CommentLike(Protocol):
    """What we use of an issue comment (PyGithub's IssueComment has these)."""

    @property
    def id(self) -> int: ...

    @property
    def body(self) -> str: ...

    @property
    def html_url(self) -> str: ...

    @property
    def user(self) -> object: ...

    def edit(self, body: str) -> None: ...


@dataclass(frozen=True)
class CommentOutcome:
    """What happened to the comment: created, updated, unchanged or skipped."""

    action: str
    id: int | None = None
    url: str | None = None


def comment_marker(suite: str) -> str:
    """The hidden HTML marker of a suite's comment; the suite name cannot end the comment."""
    safe = re.sub(r"[^A-Za-z0-9_.:/@+-]", "_", suite)
    return f"<!-- ragguard:comment suite={safe} -->"


def with_marker(body: str, marker: str) -> str:
    """The body with the marker as its first line, clipped to GitHub's 65,536 characters."""
    text = body if body.startswith(marker) else f"{marker}\n{body}"
    if len(text) <= MAX_BODY:
        return text
    return text[: MAX_BODY - len(TRUNCATION_NOTE)] + TRUNCATION_NOTE


def note_at_top(note: str, body: str) -> str:
    """``note`` first in ``body``, after the marker line when the body starts with one."""
    first, newline, rest = body.partition("\n")
    if first.startswith("<!-- ragguard:"):
        return first + newline + note + rest
    return note + body


def has_marker(body: str | None, marker: str) -> bool:
    return bool(body) and marker in body.splitlines()[:1]


def login_of(comment: CommentLike) -> str:
    return str(getattr(comment.user, "login", ""))


def find_sticky(
    comments: Iterable[CommentLike], marker: str, whoami: Callable[[], str]
) -> CommentLike | None:
    """The newest comment that starts with ``marker`` and was written by ``whoami()``.

    ``comments`` may be a lazy list over all pages; ``whoami`` is only asked (it may cost a
    request) when some comment carries the marker.
    """
    marked = [c for c in comments if has_marker(c.body, marker)]
    if not marked:
        return None
    me = whoami()
    own = [c for c in marked if login_of(c) == me]
    return max(own, key=lambda c: c.id) if own else None


def plan_comment(mode: str, existing: bool, regressed: bool) -> str:
    """Decide ``create``, ``update`` or ``skip`` from the mode and what exists."""
    if mode not in MODES:
        raise ValueError(f"comment mode {mode!r} is not one of {', '.join(MODES)}")
    if mode == "off":
        return "skip"
    if mode == "new":
        return "create"
    if mode == "on-regression" and not existing:
        return "create" if regressed else "skip"
    return "update" if existing else "create"
