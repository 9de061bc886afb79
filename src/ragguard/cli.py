"""The command line: parse, call the core, map errors to exit codes.

Exit codes: 0 success, 2 bad input (one line on stderr, no traceback).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ragguard import __version__
from ragguard.errors import InputError
from ragguard.formats import load_run_file
from ragguard.formats.beir import load_beir
from ragguard.formats.trec import load_qrels, load_trec_run
from ragguard.gitinfo import current_commit
from ragguard.metrics.names import DEFAULT_METRICS, MetricNameError, MetricSpec, parse_metric_list
from ragguard.metrics.retrieval import explain
from ragguard.render import explanation_text, json_report, markdown_report, terminal_report
from ragguard.results import Results, load_results, write_results
from ragguard.runs import Run
from ragguard.scoring import score_run
from ragguard.testset import TestSet, load_testset

EXIT_BAD_INPUT = 2


class RagguardGroup(click.Group):
    """Turns :class:`InputError` into one line on stderr and exit code 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InputError as exc:
            click.echo(f"ragguard: error: {exc}", err=True)
            ctx.exit(EXIT_BAD_INPUT)


@click.group(cls=RagguardGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ragguard")
def cli() -> None:
    """Evaluate a RAG system, compare it with a baseline, and gate the merge."""


def parse_metrics_option(value: str | None) -> tuple[MetricSpec, ...]:
    try:
        return parse_metric_list(value or ",".join(DEFAULT_METRICS))
    except MetricNameError as exc:
        raise InputError("--metrics", str(exc)) from None


def _load_inputs(
    testset: Path | None,
    run: Path | None,
    qrels: Path | None,
    trec_run: Path | None,
    beir: Path | None,
    split: str | None,
) -> tuple[TestSet, Run]:
    chosen = [
        name for name, v in (("--testset", testset), ("--qrels", qrels), ("--beir", beir)) if v
    ]
    if len(chosen) != 1:
        raise click.UsageError("give exactly one of --testset, --qrels or --beir")
    if qrels:
        if not trec_run:
            raise click.UsageError("--qrels goes with --trec-run")
        return load_qrels(qrels), load_trec_run(trec_run)
    if trec_run:
        raise click.UsageError("--trec-run goes with --qrels")
    if not run:
        raise click.UsageError(f"{chosen[0]} needs --run")
    loaded = load_testset(testset) if testset else load_beir(beir, split)  # type: ignore[arg-type]
    return loaded, load_run_file(run)


@cli.command()
@click.option("--testset", type=click.Path(path_type=Path), help="Test set: .yaml, .jsonl or .csv.")
@click.option(
    "--run",
    "run",
    type=click.Path(path_type=Path),
    help="Recorded run (JSON Lines, or a TREC run).",
)
@click.option("--qrels", type=click.Path(path_type=Path), help="TREC qrels, instead of --testset.")
@click.option("--trec-run", type=click.Path(path_type=Path), help="TREC run file, with --qrels.")
@click.option("--beir", type=click.Path(path_type=Path), help="BEIR folder, instead of --testset.")
@click.option("--split", help="BEIR qrels split (default: the only one, else test).")
@click.option("--metrics", help="Comma-separated metric names, e.g. hit_rate@1,ndcg@3,mrr.")
@click.option("--suite", help="Suite name for the results (default: the test set's file name).")
@click.option("--out", type=click.Path(path_type=Path), help="Write the results JSON here.")
def score(
    testset: Path | None,
    run: Path | None,
    qrels: Path | None,
    trec_run: Path | None,
    beir: Path | None,
    split: str | None,
    metrics: str | None,
    suite: str | None,
    out: Path | None,
) -> None:
    """Score a recorded run against a test set and print the table."""
    specs = parse_metrics_option(metrics)
    loaded, recorded = _load_inputs(testset, run, qrels, trec_run, beir, split)
    recorded.check_known(question.id for question in loaded)
    name = suite or Path(loaded.source).name.split(".")[0] or "ragguard"
    results = score_run(loaded, recorded.records, specs, suite=name, git=current_commit())
    if out:
        write_results(results, out)
    click.echo(terminal_report(results), nl=False)
    if out:
        click.echo(f"\nresults written to {out}")


@cli.command()
@click.argument("results_file", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "markdown", "json"]),
    default="table",
    show_default=True,
)
def report(results_file: Path, output_format: str) -> None:
    """Print a results file as a table, markdown or JSON."""
    results = load_results(results_file)
    renderers = {"table": terminal_report, "markdown": markdown_report, "json": json_report}
    click.echo(renderers[output_format](results), nl=False)


@cli.command("explain")
@click.argument("results_file", type=click.Path(path_type=Path))
@click.argument("question_id")
@click.option("-k", "k", type=click.IntRange(min=1), default=3, show_default=True, help="Cut-off.")
def explain_command(results_file: Path, question_id: str, k: int) -> None:
    """Show the working behind one question's precision, recall, RR and nDCG at k."""
    results = load_results(results_file)
    click.echo(_explain(results, question_id, k), nl=False)


def _explain(results: Results, question_id: str, k: int) -> str:
    question = results.by_id.get(question_id)
    if question is None:
        raise InputError(results.suite, f"no question {question_id!r} in these results")
    return explanation_text(
        question.id, question.question, explain(question.retrieved, question.relevant, k)
    )


@cli.command()
@click.option(
    "--out", type=click.Path(path_type=Path, file_okay=False), help="Write results files here."
)
def demo(out: Path | None) -> None:
    """Score the seed's Orders API examples from files shipped with ragguard."""
    from ragguard.demo import seed_examples

    for example in seed_examples():
        loaded = load_testset(example.testset)
        recorded = load_run_file(example.run)
        recorded.check_known(question.id for question in loaded)
        results = score_run(
            loaded, recorded.records, parse_metric_list(example.metrics), suite=example.suite
        )
        click.echo(f"== {example.title}")
        click.echo(f"   test set: {example.testset}\n   run:      {example.run}\n")
        click.echo(terminal_report(results))
        for question_id, k in example.explain:
            click.echo(_explain(results, question_id, k))
        if out:
            write_results(results, out / f"{example.suite}.results.json")
    if out:
        click.echo(f"results written to {out}/")


def main() -> None:
    cli(prog_name="ragguard")
