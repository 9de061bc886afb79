"""``ragguard demo``: the embedded example, offline."""

from __future__ import annotations

from pathlib import Path

import click

from ragguard.cli.commands.results import _explain


@click.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default="ragguard-demo",
    show_default=True,
    help="Write results files here.",
)
@click.option("--seed", is_flag=True, help="Score the reference text's worked examples instead.")
def demo(out: Path, seed: bool) -> None:
    """Run the embedded Orders API docs assistant: a baseline and a pull request's change."""
    from ragguard.core.files import check_writable

    check_writable(out / "comment.md")  # before anything is printed
    if seed:
        _seed_demo(out)
        return
    from ragguard.demo.walkthrough import compare_demo, demo_exit_note, run_demo, write_demo
    from ragguard.render import comparison_terminal, terminal_report

    runs = run_demo()
    for run in runs:
        click.echo(f"== {run.title}\n   pipeline: {run.settings.describe()}\n")
        click.echo(terminal_report(run.results))
    comparison = compare_demo(*runs)
    click.echo("== The gate: the pull request against the baseline\n")
    click.echo(comparison_terminal(comparison))
    write_demo(runs, out, comparison)
    click.echo(
        f"results, run records, the PR comment (comment.md) and the job summary (summary.md) "
        f"written to {out}/"
    )
    click.echo("the reference text's worked examples: ragguard demo --seed")
    click.echo(demo_exit_note(comparison, out))


def _seed_demo(out: Path | None) -> None:
    """Score the seed's Orders API examples from files shipped with ragguard."""
    from ragguard.demo import seed_examples
    from ragguard.metrics.names import parse_metric_list
    from ragguard.pipeline.reporter import SilentReporter
    from ragguard.pipeline.score import load_recorded, score_recorded
    from ragguard.render import terminal_report
    from ragguard.results.io import write_results

    reporter = SilentReporter()
    for example in seed_examples():
        recorded = load_recorded(example.testset, (example.run,), reporter)
        specs = parse_metric_list(example.metrics)
        results = score_recorded(recorded, specs, reporter, suite=example.suite).results
        assert results is not None  # no dry run
        click.echo(f"== {example.title}")
        click.echo(f"   test set: {example.testset}\n   run:      {example.run}\n")
        click.echo(terminal_report(results))
        for question_id, k in example.explain:
            click.echo(_explain(results.by_id[question_id], k))
        if out:
            write_results(results, out / f"{example.suite}.results.json")
    if out:
        click.echo(f"results written to {out}/")
