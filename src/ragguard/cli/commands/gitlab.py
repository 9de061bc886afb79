"""``ragguard gitlab-note``: post or update the merge request note in a GitLab CI job."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ragguard.core.errors import InputError
from ragguard.core.exits import EXIT_ERROR

TOKEN_VARIABLE = "RAGGUARD_GITLAB_TOKEN"
JOB_VARIABLES = (
    ("CI_API_V4_URL", "GitLab sets it in every job"),
    ("CI_PROJECT_ID", "GitLab sets it in every job"),
    (
        "CI_MERGE_REQUEST_IID",
        'run this in a merge request pipeline (rules: if: $CI_PIPELINE_SOURCE == "merge_request_event")',
    ),
    (
        TOKEN_VARIABLE,
        "add a masked CI/CD variable holding an access token with the api scope",
    ),
)


def job_setting(name: str, advice: str) -> str:
    """An environment variable the note needs; an input error naming it when unset."""
    value = os.environ.get(name, "").strip()
    if not value:
        raise InputError(name, f"not set; {advice}")
    return value


@click.command("gitlab-note")
@click.argument("comment_file", type=click.Path(path_type=Path))
def gitlab_note_command(comment_file: Path) -> None:
    """Post COMMENT_FILE (from `compare --markdown`) as the merge request's ragguard note.

    Updates the note an earlier pipeline posted for the same suite instead of adding another.
    Reads CI_API_V4_URL, CI_PROJECT_ID and CI_MERGE_REQUEST_IID from the job and the token
    from RAGGUARD_GITLAB_TOKEN. Exit 0 posted, 2 bad input, 3 GitLab refused or unreachable.
    """
    from ragguard.core.sources import read_text
    from ragguard.gitlab import GitLabError, MergeRequest, post_or_update_note
    from ragguard.gitlab.notes import marker_of

    api_url, project, iid, token = (job_setting(name, advice) for name, advice in JOB_VARIABLES)
    body = read_text(comment_file, what="comment file")
    try:
        marker_of(body)
    except ValueError as exc:
        raise InputError(comment_file, str(exc)) from exc
    try:
        result = post_or_update_note(MergeRequest(api_url, project, iid, token), body)
    except GitLabError as exc:
        click.echo(f"ragguard: error: {exc}", err=True)
        click.get_current_context().exit(EXIT_ERROR)
    click.echo(f"ragguard: merge request !{iid}: note {result.note_id} {result.action}")
