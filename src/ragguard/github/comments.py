"""The sticky pull request comment: one per suite, found by a hidden marker, updated in place.

Only comments written by the token's own user count: anyone can paste the marker into a comment
of their own, and that comment must never be edited (we could not) nor mistaken for ours.

The comment's second line is a hidden outcome line (``<!-- ragguard:outcome verdict=fail
state=failure -->``): the next run reads the previous verdict and commit status state from it.
GitHub notifies nobody when a comment is edited, so in mode ``new-on-worse`` a run whose status
turns red (``success`` before, ``failure`` or ``error`` now) posts a new comment, which
notifies, and the old one is minimised as outdated.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from ragguard.config.sections.ci import COMMENT_MODES, NEW_ON_WORSE

RED_STATES = ("failure", "error")
_OUTCOME = re.compile(r"<!-- ragguard:outcome verdict=([a-z][a-z-]*) state=([a-z]+) -->")
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
    def node_id(self) -> str: ...

    @property
    def user(self) -> object: ...

    def edit(self, body: str) -> None: ...


@dataclass(frozen=True)
class CommentOutcome:
    """What happened to the comment: created, updated, unchanged, skipped or replaced.

    ``replaced``: a new comment was posted because the outcome turned worse; ``superseded`` is
    the old comment's id, and ``minimize_error`` says why it could not be minimised, if so.
    """

    action: str
    id: int | None = None
    url: str | None = None
    superseded: int | None = None
    minimize_error: str | None = None


@dataclass(frozen=True)
class Outcome:
    """A run's verdict and commit status state, as the comment's hidden outcome line holds it."""

    verdict: str
    state: str

    def line(self) -> str:
        return f"<!-- ragguard:outcome verdict={self.verdict} state={self.state} -->"


def outcome_of(body: str | None) -> Outcome | None:
    """The outcome stored in a comment's second line; None for a comment that has none."""
    lines = (body or "").splitlines()[1:2]
    found = _OUTCOME.fullmatch(lines[0]) if lines else None
    return Outcome(found.group(1), found.group(2)) if found else None


def turned_worse(previous: Outcome | None, current: Outcome | None) -> bool:
    """The status went red: ``success`` before (pass or warn), ``failure`` or ``error`` now."""
    if previous is None or current is None:
        return False
    return previous.state not in RED_STATES and current.state in RED_STATES


def comment_marker(suite: str) -> str:
    """The hidden HTML marker of a suite's comment; the suite name cannot end the comment."""
    safe = re.sub(r"[^A-Za-z0-9_.:/@+-]", "_", suite)
    return f"<!-- ragguard:comment suite={safe} -->"


def with_marker(body: str, marker: str, outcome: Outcome | None = None) -> str:
    """The body with the marker as its first line (and the outcome line as its second),
    clipped to GitHub's 65,536 characters."""
    text = body if body.startswith(marker) else f"{marker}\n{body}"
    if outcome is not None:
        text = with_outcome(text, outcome)
    if len(text) <= MAX_BODY:
        return text
    return text[: MAX_BODY - len(TRUNCATION_NOTE)] + TRUNCATION_NOTE


def with_outcome(text: str, outcome: Outcome) -> str:
    """``text`` with ``outcome`` as its second line (replacing an outcome line already there)."""
    first, _, rest = without_outcome(text).partition("\n")
    return f"{first}\n{outcome.line()}\n{rest}"


def without_outcome(text: str) -> str:
    """``text`` without its outcome line (for a copy that is not posted by ragguard itself)."""
    first, newline, rest = text.partition("\n")
    second, _, after = rest.partition("\n")
    return f"{first}{newline}{after}" if _OUTCOME.fullmatch(second) else text


def note_at_top(note: str, body: str) -> str:
    """``note`` first in ``body``, after the marker line when the body starts with one (and
    after the outcome line under it, which must stay the second line)."""
    first, newline, rest = body.partition("\n")
    if first.startswith("<!-- ragguard:"):
        second, after_second, after = rest.partition("\n")
        if _OUTCOME.fullmatch(second):
            return first + newline + second + after_second + note + after
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


def plan_comment(mode: str, existing: bool, regressed: bool, worse: bool = False) -> str:
    """Decide ``create``, ``update``, ``replace`` (create, then minimise the old) or ``skip``
    from the mode, what exists, and whether the outcome turned worse than the old comment's."""
    if mode not in COMMENT_MODES:
        raise ValueError(f"comment mode {mode!r} is not one of {', '.join(COMMENT_MODES)}")
    if mode == "off":
        return "skip"
    if mode == "new":
        return "create"
    if mode == "on-regression" and not existing:
        return "create" if regressed else "skip"
    if mode == NEW_ON_WORSE and existing and worse:
        return "replace"
    return "update" if existing else "create"
