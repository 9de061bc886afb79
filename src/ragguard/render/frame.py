"""The report framed as `ragguard ci` posts it: notes at the top (the commit status that could
not be set, whose gate judged and what the pull request changes of it), the trend chart at the
end, and a job summary cut to fit GitHub's limit. The PR comment is built here and in the
other render modules only; github/ adds its hidden lines (the marker, the outcome) and posts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ragguard.compare.model import Comparison
from ragguard.render.comment import SUMMARY_LIMIT_BYTES, render_comment, render_summary
from ragguard.render.text import escape_markdown
from ragguard.render.verdict import age_phrase
from ragguard.testset.model import Question

MARKER_START = "<!-- ragguard:"


class StoredBaseline(Protocol):
    """What the words need of a stored baseline (github.databranch.StoredBaseline has it)."""

    exact: bool  # the merge base's own baseline, not the newest
    commit: str
    branch: str


@dataclass(frozen=True)
class Frame:
    """What goes around a comparison's report: ``note`` (markdown, first) and ``trend``
    (the trend chart, last; empty when there is none); ``drafts``, the head test set's
    drafted questions, which the report lists as awaiting review."""

    note: str = ""
    trend: str = ""
    drafts: tuple[Question, ...] = ()

    def around(self, report: str) -> str:
        """``report`` with the note first (after its marker line, when it starts with one)
        and the trend chart after it."""
        body = report if not self.trend else report.rstrip("\n") + "\n\n" + self.trend
        first, newline, rest = body.partition("\n")
        if first.startswith(MARKER_START):
            return first + newline + self.note + rest
        return self.note + body


def framed_comment(comparison: Comparison, frame: Frame) -> str:
    return frame.around(render_comment(comparison, drafts=frame.drafts))


def framed_summary(comparison: Comparison, frame: Frame) -> str:
    return frame.around(render_summary(comparison, drafts=frame.drafts))


def fitted_summary(full: str, comparison: Comparison, frame: Frame) -> str:
    """The full summary when it fits GitHub's job summary, else one cut to fit, with the
    trend chart but without the notes (summary.md on disk keeps the full one)."""
    if len(full.encode("utf-8")) < SUMMARY_LIMIT_BYTES:
        return full
    cut = render_summary(comparison, limit=SUMMARY_LIMIT_BYTES, drafts=frame.drafts)
    return Frame(trend=frame.trend).around(cut)


def status_missing_note(suite: str, failure: str) -> str:
    """The comment's first lines when the final commit status could not be set."""
    return (
        f"> [!WARNING]\n> The commit status `ragguard/{suite}` could not be "
        f"set ({escape_markdown(failure)}): a required check waits for it. Re-run this job "
        "once GitHub answers again.\n\n"
    )


def baseline_phrase(stored: StoredBaseline | None, comparison: Comparison) -> str:
    """Which stored baseline the comparison used and how old it is, for the comment's top."""
    if stored is None:
        return "no baseline (none saved for the target branch yet)"
    which = "the merge base's baseline" if stored.exact else "the newest baseline"
    commit = f"commit `{escape_markdown(stored.commit[:12], 12)}`" if stored.commit else "a commit"
    age = comparison.provenance.age
    old = f", {age_phrase(age, 'older than')}" if age else ""
    return f"{which}: {commit} on {escape_markdown(stored.branch, 100)}{old}"


def summary_header(why: str, stored: StoredBaseline | None) -> str:
    """Which activity ran (``why``) and which stored baseline it used (the report says its
    age), the job summary's first line."""
    line = f"ragguard: {escape_markdown(why)}."
    if stored is not None:
        which = "the merge base's baseline" if stored.exact else "the newest baseline"
        line += f" Compared with {which}: commit `{stored.commit[:12]}` on `{stored.branch}`."
    return line + "\n\n"
