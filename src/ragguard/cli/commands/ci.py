"""``ragguard ci`` and ``ragguard publish``: inside GitHub Actions."""

from __future__ import annotations

import os

import click

from ragguard.cli.options import (
    repeat_option,
)
from ragguard.core.exits import EXIT_ERROR


@click.command("ci")
@repeat_option
def ci_command(repeat: int | None) -> None:
    """Run inside GitHub Actions (action.yml calls it): evaluate, compare, comment, gate.

    Reads GitHub's environment and the action's inputs (RAGGUARD_* variables, see
    docs/action.md). Exit 0 pass, 1 the gate failed, 2 bad input, 3 could not evaluate.
    """
    _run_ci(mode=None, repeat=repeat)


@click.command("publish")
def publish_command() -> None:
    """Post a fork pull request's comment and status (from a workflow_run workflow).

    The same as `ragguard ci` with mode publish: the artifact is downloaded through the API
    and the pull request is found from the run's head commit, never from the artifact.
    """
    _run_ci(mode="publish")


def _run_ci(mode: str | None, repeat: int | None = None) -> None:
    import dataclasses
    import functools

    from ragguard.ci.collaborators import Collaborators
    from ragguard.ci.evaluate import evaluate_config
    from ragguard.ci.glue import run_ci
    from ragguard.ci.masks import ci_secrets, mask_secrets
    from ragguard.ci.settings import read_settings
    from ragguard.config.load import ConfigFile
    from ragguard.core.git import git_commit_time
    from ragguard.github import GitHubClient, GitHubError

    settings = read_settings(os.environ)
    config_file = ConfigFile(settings.config)  # parsed once, for the masks and the run
    if os.environ.get("GITHUB_ACTIONS") == "true":  # masks first, before anything is logged
        mask_secrets(ci_secrets(os.environ, settings.github.token, config_file), click.echo)
    if mode is not None:
        settings = dataclasses.replace(settings, mode=mode)
    if repeat is not None:  # --repeat over the action's repeat input
        settings = dataclasses.replace(settings, repeat=repeat)
    collaborators = Collaborators(
        github=GitHubClient(settings.github),
        evaluate=functools.partial(
            evaluate_config,
            cache_dir=settings.cache_dir,
            shard=settings.shard,
            summary_file=settings.summary_file,
        ),
        commit_time=git_commit_time,
        evaluate_only=lambda config, git, out, ids: evaluate_config(
            config, git, out, cache_dir=settings.cache_dir, only=ids
        ),
    )
    try:
        outcome = run_ci(settings, collaborators, config_file)
    except GitHubError as exc:
        click.echo(f"ragguard: error: {exc}", err=True)
        raise SystemExit(EXIT_ERROR) from None
    raise SystemExit(outcome.exit_code)
