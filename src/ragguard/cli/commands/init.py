"""``ragguard init``: a working example suite and the workflow files."""

from __future__ import annotations

from pathlib import Path

import click

from ragguard.cli.options import (
    config_option,
)
from ragguard.config.load import DEFAULT_CONFIG_NAME


@click.command()
@config_option("Where to write the starter config.", default=DEFAULT_CONFIG_NAME)
@click.option(
    "--workflows",
    "workflows_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=".github/workflows",
    show_default=True,
    help="Where to write the GitHub workflow files.",
)
@click.option("--no-workflows", is_flag=True, help="Write ragguard.yml only.")
@click.option(
    "--matrix",
    is_flag=True,
    help="Write the sharded workflow (a job matrix, then one merging job) as ragguard.yml.",
)
@click.option("--force", is_flag=True, help="Overwrite existing files.")
def init(
    config_path: Path, workflows_dir: Path, no_workflows: bool, matrix: bool, force: bool
) -> None:
    """Write a working example suite (ragguard.yml, three questions, a tiny system), the
    GitHub workflow files, and .gitignore lines for ragguard's outputs."""
    from ragguard.demo.scaffold import EXAMPLE_SUITE, next_steps, write_starter_suite

    written = write_starter_suite(
        config_path,
        workflows_dir=None if no_workflows else workflows_dir,
        matrix=matrix,
        force=force,
    )
    for path in written.paths:
        click.echo(f"wrote {path}")
    if written.gitignore is not None:
        click.echo(f"added ragguard's result files to {written.gitignore}")
    for line in next_steps(EXAMPLE_SUITE, config_path, not no_workflows):
        click.echo(line)
