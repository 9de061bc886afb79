"""What a CI run leaves: the comment posted, the job summary, the step outputs and publish.json."""

from __future__ import annotations

import json
from pathlib import Path

from ragguard.ci.collaborators import Collaborators, Target
from ragguard.ci.options import CiOptions
from ragguard.ci.outputs import action_outputs, append_summary
from ragguard.ci.policy import status_state
from ragguard.ci.publish import publish_artifact_name, publish_document
from ragguard.ci.settings import CiSettings
from ragguard.ci.status import StatusReporter
from ragguard.compare import (
    Comparison,
)
from ragguard.config.model import Config
from ragguard.core.files import write_report
from ragguard.github import (
    CommentOutcome,
    GitHubError,
    Outcome,
    ReadOnlyTokenError,
)
from ragguard.github.comments import without_outcome
from ragguard.render.trend import trend_markdown
from ragguard.results.model import Results


def step_outputs(
    comparison: Comparison,
    results_path: Path,
    out: Path,
    comment: CommentOutcome | None,
    status: StatusReporter,
    suite: str,
) -> dict[str, str]:
    """The step outputs of a finished run; ``status-error`` when the final status is missing."""
    outputs = action_outputs(
        comparison,
        results_path=results_path,
        comment_path=out / "comment.md",
        comment_url=comment.url if comment else None,
        comment_id=comment.id if comment else None,
        status=status_state(comparison),
    )
    if status.read_only:
        outputs["publish-artifact"] = publish_artifact_name(suite)
        outputs["publish-path"] = str(out / "publish.json")
    if status.failure:
        outputs["status-error"] = status.failure
    return outputs


def trend_for(
    opts: CiOptions, collab: Collaborators, config: Config, target: Target, head: Results
) -> str:
    """The metrics' trend over the data branch's history; decoration, so failures only log."""
    if opts.baseline_store != "branch" or target.base_branch is None:
        return ""
    try:
        history = collab.github.data_branch(opts.baseline_branch).history(
            target.base_branch, config.suite
        )
    except GitHubError as exc:
        collab.log(f"ragguard: no trend chart: {exc}")
        return ""
    values = {name: summary.value for name, summary in head.summary.items()}
    label = f"#{target.pr}" if target.pr is not None else "this run"
    return trend_markdown(history, values, target.base_branch, head_label=label)


def post_comment(
    opts: CiOptions,
    collab: Collaborators,
    status: StatusReporter,
    number: int,
    suite: str,
    body: str,
    comparison: Comparison,
) -> CommentOutcome | None:
    if status.read_only:
        return None
    regressed = comparison.verdict != "pass"
    now = Outcome(comparison.reported_verdict, status_state(comparison))
    try:
        outcome = collab.github.upsert_comment(
            number, suite, body, mode=opts.comment_mode, regressed=regressed, outcome=now
        )
    except ReadOnlyTokenError:
        status.read_only = True
        collab.log("ragguard: the token may not comment: the comment goes to publish.json")
        return None
    collab.log(f"ragguard: comment {outcome.action}" + (f": {outcome.url}" if outcome.url else ""))
    if outcome.superseded is not None:
        collab.log(
            f"ragguard: the verdict turned {comparison.verdict}: new comment posted; "
            + (
                f"comment {outcome.superseded} not minimised ({outcome.minimize_error})"
                if outcome.minimize_error
                else f"comment {outcome.superseded} minimised as outdated"
            )
        )
    return outcome


def write_publish(
    out: Path,
    target: Target,
    suite: str,
    body: str,
    status: StatusReporter,
    settings: CiSettings,
    comparison: Comparison,
) -> None:
    state, description = status.last or ("error", "ragguard did not finish")
    # The publisher writes its own outcome line; a published one would be made inert text.
    payload = publish_document(
        suite, target.sha, without_outcome(body), state, description, comparison.reported_verdict
    )
    write_report(out / "publish.json", json.dumps(payload, indent=1) + "\n")
    append_summary(
        settings.summary_file,
        f"The token is read-only (a fork's pull request): the comment and status are in "
        f"`{out / 'publish.json'}`, to upload as the artifact `{publish_artifact_name(suite)}` "
        "for the ragguard-publish workflow to post.\n",
    )
