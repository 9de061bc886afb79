"""The notes `ragguard ci` writes into a comment besides the report: an acceptance on record,
a refused one's reply, a fork's report marked as the fork's, and the short report of a run that
could not finish. Everything from a user or the evaluated system is escaped here."""

from __future__ import annotations

from ragguard.render.context import comment_marker
from ragguard.render.text import escape_markdown


def acceptance_note(login: str, head: str, reason: str, suite: str) -> str:
    """The sticky comment's record: who, for which commit, and why (the reason escaped)."""
    return (
        f"> [!NOTE]\n> **Accepted by @{login}** for commit `{head[:12]}`: "
        f"{escape_markdown(reason, 500)}\n> The status `ragguard/{suite}` is set to success "
        "for this commit only; a new push is judged afresh.\n\n"
    )


def refusal_reply(login: str, suite: str, why: str) -> str:
    return f"@{login} ragguard did not accept the regression of `ragguard/{suite}`: {why}.\n"


def fork_note(binding: bool) -> str:
    """The note under a fork's published comment's marker: who wrote the report and what its
    verdict decides."""
    note = (
        "> [!NOTE]\n> Posted from a fork's run: this report was produced by the pull "
        "request's own code."
    )
    if not binding:
        note += (
            " Its verdict is advisory until a maintainer re-evaluates the pull request "
            "(workflow_dispatch with its number and reviewed head sha)."
        )
    return note


def error_comment(
    suite: str, failure: BaseException, results_written: bool, results_name: str
) -> str:
    """A short report for a run that did not get as far as rendering its own."""
    message = " ".join(str(failure).split()) or type(failure).__name__
    where = (
        f"`{results_name}` was written" if results_written else f"no `{results_name}` was written"
    )
    return (
        f"{comment_marker(suite)}\n"
        f"### 🛑 ragguard · {escape_markdown(suite, 100)}: **error**\n\n"
        f"ragguard could not finish: {escape_markdown(message, 500)}\n\n"
        f"{where}; the job log has the details.\n"
    )
