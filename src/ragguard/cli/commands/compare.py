"""``ragguard compare`` and ``ragguard power``: a comparison with a baseline and its power."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ragguard.compare.model import Comparison
from ragguard.cli.options import (
    config_option,
)


@click.command("compare")
@click.argument("baseline_file", type=click.Path(path_type=Path))
@click.argument("head_file", type=click.Path(path_type=Path))
@config_option(
    "ragguard.yml whose gate: section sets the rules, as `run` reads it "
    "(default: ./ragguard.yml if present, else the documented defaults)."
)
@click.option("--markdown", type=click.Path(path_type=Path), help="Write the PR comment here.")
@click.option(
    "--summary", type=click.Path(path_type=Path), help="Write the full report (job summary) here."
)
@click.option("--junit", type=click.Path(path_type=Path), help="Write JUnit XML here.")
@click.option(
    "--json", "json_path", type=click.Path(path_type=Path), help="Write the comparison as JSON."
)
@click.option(
    "--template", type=click.Path(path_type=Path), help="Comment template (extends base.md.j2)."
)
@click.option(
    "--testset",
    "testset_path",
    type=click.Path(path_type=Path),
    help="The head's test set: the comment and the summary list its drafted questions as "
    "awaiting review, as `ragguard ci` does.",
)
@click.option(
    "--allow-missing-baseline",
    is_flag=True,
    help="A missing BASELINE_FILE gives a 'no baseline yet' report instead of an error.",
)
@click.option(
    "--allow-suite-change",
    is_flag=True,
    help="Compare results whose suite names differ (e.g. after renaming the suite).",
)
def compare_command(
    baseline_file: Path,
    head_file: Path,
    config_path: Path | None,
    markdown: Path | None,
    summary: Path | None,
    junit: Path | None,
    json_path: Path | None,
    template: Path | None,
    testset_path: Path | None,
    allow_missing_baseline: bool,
    allow_suite_change: bool,
) -> None:
    """Compare HEAD_FILE with BASELINE_FILE and gate the merge.

    Exit 0 pass or warn, 1 fail, 2 bad input, 3 error or incomparable (as fail).
    """
    from ragguard.compare import exit_code
    from ragguard.config.load import load_gate_rules, local_config
    from ragguard.core.files import write_all
    from ragguard.pipeline.compare import compare_files, report_files
    from ragguard.pipeline.drafts import awaiting_review
    from ragguard.render import comparison_terminal

    if config_path is None:
        config_path = local_config()  # the rules `run` and CI use, so the verdicts agree
    drafts = awaiting_review(testset_path) if testset_path is not None else ()
    comparison = compare_files(
        baseline_file,
        head_file,
        load_gate_rules(config_path),
        allow_missing_baseline=allow_missing_baseline,
        allow_suite_change=allow_suite_change,
    )
    reports = report_files(
        comparison,
        comment=markdown,
        summary=summary,
        junit=junit,
        json=json_path,
        template=template,
        drafts=drafts,
    )
    write_all(reports)  # all or none
    click.echo(comparison_terminal(comparison), nl=False)
    click.echo(f"gate rules: {config_path or 'the defaults (no ragguard.yml here)'}")
    _say_not_rechecked(comparison)
    raise SystemExit(exit_code(comparison))


def _say_not_rechecked(comparison: Comparison) -> None:
    """`compare` reads results files: it cannot ask the system again, so it says that the
    questions `ragguard ci` would recheck (gate.recheck) count on their one run."""
    from ragguard.compare.rechecks import recheck_ids
    from ragguard.render import printable

    ids = recheck_ids(comparison)
    if ids:
        click.echo(
            f"ragguard: not rechecked (compare reads results files; `ragguard ci` reruns "
            f"them, gate.recheck): {', '.join(printable(i, 80) for i in ids)}",
            err=True,
        )


@click.command("power")
@click.argument("results_file", type=click.Path(path_type=Path))
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(path_type=Path),
    help="Baseline results: measure the noise from the comparison instead of assuming it.",
)
@config_option(
    "ragguard.yml whose gate: section sets alpha and max_drop "
    "(default: ./ragguard.yml if present, else the documented defaults)."
)
def power_command(results_file: Path, baseline_file: Path | None, config_path: Path | None) -> None:
    """How small a drop can this test set detect? Per gated metric, the smallest drop its
    test finds with 80% power at the gate's alpha, and the questions max_drop would need."""
    from tabulate import tabulate

    from ragguard.config.load import load_gate_rules, local_config
    from ragguard.pipeline.compare import detectable_drops
    from ragguard.render.power import power_table, too_small_lines
    from ragguard.render.text import printable
    from ragguard.results.io import load_results

    if config_path is None:
        config_path = local_config()
    rules = load_gate_rules(config_path)
    found = detectable_drops(load_results(results_file), baseline_file, rules)
    power, source = found.metrics, found.source
    if not power:
        click.echo("no gated metric with values to size (see gate: in ragguard.yml)")
        return
    headers = [
        "metric",
        "n",
        "alpha (split)",
        "noise",
        "detectable drop",
        "max_drop",
        "questions needed",
    ]
    click.echo(tabulate(power_table(power, lambda name: printable(name, 40)), headers=headers))
    click.echo(
        f"\n80% power, one-sided; {source}; alpha split over the gated metrics when the gate "
        "adjusts them together (Bonferroni: the gate's max-T is about as powerful or more, "
        "so these drops are upper bounds)."
    )
    for line in too_small_lines(power, lambda name: printable(name, 40), shown=len(power)):
        click.echo(line)
    click.echo(f"gate rules: {config_path or 'the defaults (no ragguard.yml here)'}")
