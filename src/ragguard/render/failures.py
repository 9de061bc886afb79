"""The questions that did not end ok, grouped by their error, as a few lines for a person.

A crashing system fails every question with the same message: it is shown once with a count
and the questions it hit (a capped list with "and N more"), not once per question. A message
met once keeps the plain form ``error: q7: message``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ragguard.render.text import and_more, printable

NOT_RUN = "not run:"  # how the message of a question that was never asked starts
MAX_GROUPS = 10
MAX_IDS = 10
ID_LIMIT = 80  # characters of one question id
MESSAGE_LIMIT = 200  # characters of one error message (a traceback can be long)


@dataclass(frozen=True)
class FailureGroup:
    """One status and message, and the questions (in the order given) that ended with it."""

    status: str
    message: str
    ids: tuple[str, ...]


def group_failures(failures: Iterable[tuple[str, str, str]]) -> list[FailureGroup]:
    """``(id, status, message)`` triples grouped by identical status and message, the largest
    group first (equal sizes in the order first met); questions never asked come last, after
    the errors that are the cause."""
    by_error: dict[tuple[str, str], list[str]] = {}
    for question_id, status, message in failures:
        by_error.setdefault((status, message), []).append(question_id)
    groups = [
        FailureGroup(status, message, tuple(ids)) for (status, message), ids in by_error.items()
    ]
    return sorted(groups, key=lambda group: (group.message.startswith(NOT_RUN), -len(group.ids)))


def failure_lines(
    groups: list[FailureGroup], *, max_groups: int = MAX_GROUPS, max_ids: int = MAX_IDS
) -> list[str]:
    """One line per error (two when it hit several questions: the count, then the ids), at
    most ``max_groups`` errors, then one line counting the rest."""
    lines: list[str] = []
    for group in groups[:max_groups]:
        message = shortened(group.message)
        if len(group.ids) == 1:
            lines.append(f"{group.status}: {printable(group.ids[0], ID_LIMIT)}: {message}")
            continue
        lines.append(f"{group.status} ({len(group.ids)} questions): {message}")
        lines.append(f"  {capped(group.ids, max_ids)}")
    hidden = groups[max_groups:]
    if hidden:
        count = sum(len(group.ids) for group in hidden)
        lines.append(
            f"and {len(hidden)} other errors ({count} questions): "
            "see the results file or `ragguard explain RESULTS ID`"
        )
    return lines


def shortened(message: str, limit: int = MESSAGE_LIMIT, tail: int = 60) -> str:
    """One printable line of at most about ``limit`` characters, cut in the middle: the end of
    a message often tells two errors apart (``(after 3 attempts)``, the last line of a
    traceback)."""
    text = printable(message, len(message) + 1)
    if len(text) <= limit:
        return text
    return f"{text[: limit - tail - 3]} … {text[-tail:]}"


def capped(ids: tuple[str, ...], limit: int) -> str:
    """``q1, q2, q3 and 7 more`` (each id made printable: it is shown in a CI log)."""
    return and_more([printable(question_id, ID_LIMIT) for question_id in ids[:limit]], len(ids))
