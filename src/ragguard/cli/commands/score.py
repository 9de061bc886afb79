"""``ragguard score``: a recorded run (JSON Lines or TREC) scored against a test set."""

from __future__ import annotations

from pathlib import Path

import click

from ragguard.cli.options import (
    _judge_config,
    config_option,
    include_drafts_option,
    parse_metrics_option,
)


def _check_sources(
    testset: Path | None,
    run: Path | None,
    qrels: Path | None,
    trec_run: Path | None,
    beir: Path | None,
) -> None:
    chosen = [
        name for name, v in (("--testset", testset), ("--qrels", qrels), ("--beir", beir)) if v
    ]
    if len(chosen) != 1:
        raise click.UsageError("give exactly one of --testset, --qrels or --beir")
    if qrels and not trec_run:
        raise click.UsageError("--qrels goes with --trec-run")
    if trec_run and not qrels:
        raise click.UsageError("--trec-run goes with --qrels")
    if not qrels and not run:
        raise click.UsageError(f"{chosen[0]} needs --run")


def _check_processes(
    processes: int | None, runs: tuple[Path, ...], generation: bool, beir: Path | None
) -> None:
    """``--processes`` above 1 where the run is scored in one process whatever it says:
    refused, not ignored."""
    if processes is None or processes == 1:
        return
    if len(runs) > 1:
        why = "repeats (several --run files) are scored in one process"
    elif beir:
        why = "a run against a --beir folder is scored in one process"
    elif generation:
        why = "generation metrics, --config, --judge and --corpus are scored in one process"
    else:
        return
    from ragguard.core.errors import InputError

    raise InputError(
        "--processes",
        f"splits one --run scored on retrieval metrics, or a --trec-run; {why}: drop "
        "--processes (or give 1)",
    )


@click.command()
@click.option("--testset", type=click.Path(path_type=Path), help="Test set: .yaml, .jsonl or .csv.")
@click.option(
    "--run",
    "run",
    type=click.Path(path_type=Path),
    multiple=True,
    help="Recorded run (JSON Lines, or a TREC run); give it again for each repeat of the run.",
)
@click.option("--qrels", type=click.Path(path_type=Path), help="TREC qrels, instead of --testset.")
@click.option("--trec-run", type=click.Path(path_type=Path), help="TREC run file, with --qrels.")
@click.option("--beir", type=click.Path(path_type=Path), help="BEIR folder, instead of --testset.")
@click.option("--split", help="BEIR qrels split (default: the only one, else test).")
@click.option("--metrics", help="Comma-separated metric names, e.g. hit_rate@1,ndcg@3,mrr.")
@click.option("--suite", help="Suite name for the results (default: the test set's file name).")
@click.option("--out", type=click.Path(path_type=Path), help="Write the results JSON here.")
@click.option(
    "--corpus", type=click.Path(path_type=Path), help="Chunk text (JSONL id/text) for id-only runs."
)
@config_option(
    "ragguard.yml whose faithfulness/answer_relevance/abstention/judge sections apply.",
    name="config_file",
)
@click.option("--judge", "use_judge", is_flag=True, help="Use the judge for generation metrics.")
@click.option(
    "--dry-run",
    "--estimate",
    "dry_run",
    is_flag=True,
    help="Print the judge calls, tokens and cost (with judge.price) it would need; call nothing.",
)
@click.option(
    "--processes",
    type=click.IntRange(min=1),
    help="Processes that read and score a large --trec-run, or one JSON Lines --run on "
    "retrieval metrics (default: one per core, at most 8).",
)
@include_drafts_option
def score(
    testset: Path | None,
    run: tuple[Path, ...],
    qrels: Path | None,
    trec_run: Path | None,
    beir: Path | None,
    split: str | None,
    metrics: str | None,
    suite: str | None,
    out: Path | None,
    corpus: Path | None,
    config_file: Path | None,
    use_judge: bool,
    dry_run: bool,
    processes: int | None,
    include_drafts: bool,
) -> None:
    """Score a recorded run against a test set and print the table.

    Several --run files are repeats of one run: each is scored, and they are combined into
    one result with every question's runs (docs/formats.md, "Repeats").
    """
    specs = parse_metrics_option(metrics)
    _check_sources(testset, run[0] if run else None, qrels, trec_run, beir)
    from ragguard.core.git import current_commit
    from ragguard.pipeline.reporter import TerminalReporter
    from ragguard.pipeline.score import (
        GenerationRequest,
        load_recorded,
        score_jsonl_run,
        score_recorded,
        score_trec,
    )

    generation = None
    if any(spec.is_generation for spec in specs) or config_file or use_judge or dry_run or corpus:
        from ragguard.config.load import load_generation_config

        raw_config, config_source = load_generation_config(_judge_config(config_file, use_judge))
        generation = GenerationRequest(raw_config, config_source, corpus, use_judge, dry_run)
    # generation None: retrieval metrics only and nothing about generation asked, so the
    # generation and judge modules (most of a short run's start-up) are not loaded.
    reporter = TerminalReporter()
    _check_processes(processes, run, generation is not None, beir)
    if qrels and trec_run:
        scored = score_trec(
            qrels,
            trec_run,
            specs,
            reporter,
            suite=suite,
            generation=generation,
            processes=processes,
            git=current_commit(),
        )
    else:
        scored = None
        if testset and len(run) == 1 and generation is None:
            scored = score_jsonl_run(
                testset, run[0], specs, reporter, suite=suite, processes=processes,
                git=current_commit(), include_drafts=include_drafts,
            )  # fmt: skip
        if scored is None:
            recorded = load_recorded(
                testset, run, reporter, beir=beir, split=split, include_drafts=include_drafts
            )
            scored = score_recorded(
                recorded, specs, reporter, suite=suite, generation=generation, git=current_commit()
            )
    for plan in scored.plans:
        click.echo(plan, nl=False)
    if scored.results is None:
        return
    if scored.judge:
        click.echo(scored.judge.line(), err=True)
    repeats = scored.repeats_line()
    if repeats:
        click.echo(repeats, err=True)
    if out:
        from ragguard.results.io import write_results

        write_results(scored.results, out, scored.lines)
    from ragguard.render import terminal_report

    click.echo(terminal_report(scored.results), nl=False)
    if out:
        click.echo(f"\nresults written to {out}")
