"""``ragguard report`` and ``ragguard explain``: a results file shown again."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ragguard.core.errors import InputError

if TYPE_CHECKING:
    from ragguard.results.model import QuestionResult


@click.command()
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
    from ragguard.render import json_report, markdown_report, terminal_report
    from ragguard.results.io import load_results

    results = load_results(results_file)
    renderers = {"table": terminal_report, "markdown": markdown_report, "json": json_report}
    click.echo(renderers[output_format](results), nl=False)


@click.command("explain")
@click.argument("results_file", type=click.Path(path_type=Path))
@click.argument("question_id")
@click.option("-k", "k", type=click.IntRange(min=1), default=3, show_default=True, help="Cut-off.")
def explain_command(results_file: Path, question_id: str, k: int) -> None:
    """Show the working behind one question's precision, recall, RR and nDCG at k, and its
    answer's per-sentence faithfulness verdicts when it was scored for them."""
    from ragguard.results.io import load_results

    results = load_results(results_file)
    if question_id not in results.by_id:
        raise InputError(results_file, f"no question {question_id!r} in these results")
    question = results.by_id[question_id]
    click.echo(_explain(question, k), nl=False)
    sentences = question.sentences
    if sentences:
        from ragguard.metrics.faithfulness import verdict_lines
        from ragguard.render import printable

        click.echo("\n".join(["", *verdict_lines(sentences, clean=printable)]))


def _explain(question: QuestionResult, k: int) -> str:
    from ragguard.metrics.retrieval import explain
    from ragguard.render import explanation_text

    working = explain(question.retrieved, question.judged_chunks, k)
    text = explanation_text(question.id, question.question, working)
    if not question.evidence:
        return text
    from ragguard.render.report import evidence_lines

    rows = text.splitlines()[: 1 + len(working.rows)]
    return "\n".join([*rows, *evidence_lines(question.evidence, question.metrics)]) + "\n"
