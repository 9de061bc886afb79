"""``ragguard baseline fetch``: the baseline CI stored, fetched with git."""

from __future__ import annotations

from pathlib import Path

import click

from ragguard.cli.options import (
    config_option,
)
from ragguard.config.load import DEFAULT_CONFIG_NAME
from ragguard.core.errors import InputError


@click.group("baseline")
def baseline_group() -> None:
    """The baselines CI stores on the data branch."""


@baseline_group.command("fetch")
@config_option("The suite's ragguard.yml (for its suite name).", default=DEFAULT_CONFIG_NAME)
@click.option("--suite", help="The suite (default: suite: in the config).")
@click.option("--branch", default="main", show_default=True, help="The target branch.")
@click.option("--commit", help="The baseline of this commit (a sha or a unique prefix).")
@click.option("--remote", default="origin", show_default=True, help="The git remote.")
@click.option(
    "--data-branch", default="ragguard-data", show_default=True, help="Where CI stores them."
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default="baseline.json",
    show_default=True,
    help="Where to write it (ragguard compare reads it as it is).",
)
def baseline_fetch(
    config_path: Path,
    suite: str | None,
    branch: str,
    commit: str | None,
    remote: str,
    data_branch: str,
    out: Path,
) -> None:
    """Fetch the stored baseline of a branch (the newest) or of a commit, with git."""
    from ragguard.config.load import load_config
    from ragguard.core.files import write_report
    from ragguard.github.fetch import fetch_baseline

    if suite is None:
        if not config_path.is_file():
            raise InputError(config_path, "not found; pass --suite NAME or -c ragguard.yml")
        suite = load_config(config_path).suite
    fetched = fetch_baseline(
        Path.cwd(), suite, branch=branch, commit=commit, remote=remote, data_branch=data_branch
    )
    write_report(out, fetched.text)  # checked whole by the fetch: a damaged one is refused
    stored = fetched.baseline
    which = stored.commit[:12] if stored.commit else "commit not recorded"
    click.echo(
        f"baseline of {suite}: {which} on {stored.branch or branch}"
        f", saved {stored.created_at or 'at an unknown time'} ({fetched.path}); written to {out}"
    )
    click.echo(f"next: ragguard compare {out} results.json")
