"""``ragguard score``: a recorded run (JSON Lines or TREC) scored against a test set."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ragguard.core.errors import InputError

if TYPE_CHECKING:
    from ragguard.judge.setup import GenerationSetup
    from ragguard.metrics.names import MetricSpec
    from ragguard.results.model import Results
    from ragguard.results.records import Chunk, Run
    from ragguard.scoring.parallel import ScoredRun
    from ragguard.testset.model import TestSet
from ragguard.cli.options import (
    _judge_config,
    _warn_if,
    config_option,
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
@click.option("--dry-run", is_flag=True, help="Print the judge calls and tokens it would need.")
@click.option(
    "--processes",
    type=click.IntRange(min=1),
    help="Processes that read and score a large --trec-run (default: one per core, at most 8).",
)
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
) -> None:
    """Score a recorded run against a test set and print the table.

    Several --run files are repeats of one run: each is scored, and they are combined into
    one result with every question's runs (docs/formats.md, "Repeats").
    """
    specs = parse_metrics_option(metrics)
    _check_sources(testset, run[0] if run else None, qrels, trec_run, beir)
    options = None
    if any(spec.is_generation for spec in specs) or config_file or use_judge or dry_run or corpus:
        from ragguard.judge.setup import load_generation_config

        raw_config, config_source = load_generation_config(_judge_config(config_file, use_judge))
        options = {
            "raw_config": raw_config,
            "config_source": config_source,
            "corpus": corpus,
            "use_judge": use_judge,
            "need_key": not dry_run,
        }
    # options None: retrieval metrics only and nothing about generation asked, so the
    # generation and judge modules (most of a short run's start-up) are not loaded.
    lines: dict[int, str] = {}
    if qrels and trec_run:
        scored = _score_trec(qrels, trec_run, specs, suite, dry_run, options, processes)
        results, lines = (scored.results, scored.lines) if scored else (None, {})
    else:
        results = _score_records(testset, run, beir, split, specs, suite, dry_run, options)
    if results is None:
        return
    if out:
        from ragguard.results.io import write_results

        write_results(results, out, lines)
    from ragguard.render import terminal_report

    click.echo(terminal_report(results), nl=False)
    if out:
        click.echo(f"\nresults written to {out}")


def _suite_name(suite: str | None, source: str) -> str:
    return suite or Path(source).name.split(".")[0] or "ragguard"


def _score_trec(
    qrels: Path,
    trec_run: Path,
    specs: tuple[MetricSpec, ...],
    suite: str | None,
    dry_run: bool,
    options: dict[str, Any] | None,
    processes: int | None,
) -> ScoredRun | None:
    """TREC qrels and run: rankings of ids only, read and scored without run records; a
    large run in parts, one process a part, when only retrieval is scored."""
    from ragguard.core.git import current_commit
    from ragguard.scoring.parallel import ScoredRun, planned_parts, score_run_in_parts
    from ragguard.scoring.score import score_rankings
    from ragguard.testset.formats.trec import load_qrels
    from ragguard.testset.formats.trec_runs import load_trec_rankings

    generation = [spec.name for spec in specs if spec.is_generation]
    if generation:
        raise InputError(
            trec_run,
            f"a TREC run has no answers; generation metrics ({', '.join(generation)}) need "
            "the system's answers; drop them from --metrics",
        )
    loaded = load_qrels(qrels)
    suite_name = _suite_name(suite, loaded.source)
    cuts = planned_parts(trec_run, processes) if options is None else None
    if cuts:
        scored = score_run_in_parts(
            loaded, trec_run, cuts, specs, suite=suite_name, git=current_commit()
        )
        if scored:
            _warn_about_trec(loaded, trec_run, scored.run_queries)
            return scored
    rankings = load_trec_rankings(trec_run)
    _warn_about_trec(loaded, trec_run, rankings)
    config: dict[str, Any] = {}
    origins = None
    if options is not None:
        from ragguard.judge.setup import prepare_generation
        from ragguard.scoring.labels import corpus_origins

        setup = prepare_generation(specs, loaded, {}, run_source=str(trec_run), **options)
        if dry_run:
            click.echo(setup.dry_run_text(), nl=False)
            return None
        config = setup.fingerprint
        origins = corpus_origins(loaded, specs, options["corpus"])
    results = score_rankings(
        loaded,
        rankings,
        specs,
        suite=suite_name,
        git=current_commit(),
        config=config,
        origins=origins,
    )
    return ScoredRun(results)


def _warn_about_trec(loaded: TestSet, trec_run: Path, run_queries: Iterable[str]) -> None:
    """Queries judged with no relevant document, and run queries the qrels do not judge."""
    from ragguard.testset.formats.trec import no_relevant_warning, unjudged_warning

    _warn_if(no_relevant_warning(loaded))
    _warn_if(unjudged_warning(trec_run, run_queries, loaded))


def _load_testset(testset: Path | None, beir: Path | None, split: str | None) -> TestSet:
    if testset:
        from ragguard.testset.load import load_testset

        return load_testset(testset)
    from ragguard.testset.formats.beir import load_beir

    return load_beir(beir, split)  # type: ignore[arg-type]


def _score_records(
    testset: Path | None,
    runs: tuple[Path, ...],
    beir: Path | None,
    split: str | None,
    specs: tuple[MetricSpec, ...],
    suite: str | None,
    dry_run: bool,
    options: dict[str, Any] | None,
) -> Results | None:
    """A test set (or BEIR folder) and one or more recorded runs: retrieval and generation
    metrics. Several runs are repeats of one run: every file is read and checked (and the
    judge's budget over all of them) before anything is judged; each is scored alone, through
    one judge client, and they are combined (``repeats.combine_repeats``)."""
    from ragguard.core.git import current_commit
    from ragguard.scoring.labels import corpus_origins, unmatched_label_warning
    from ragguard.scoring.repeats import combine_repeats
    from ragguard.scoring.score import score_run
    from ragguard.testset.formats import load_run_file

    loaded = _load_testset(testset, beir, split)
    if beir is not None:  # a test set file always has a relevant label per answerable question
        from ragguard.testset.formats.trec import no_relevant_warning

        _warn_if(no_relevant_warning(loaded))
    recorded_runs = [load_run_file(run) for run in runs]
    for recorded in recorded_runs:
        recorded.check_known(loaded.known_ids)
    name = _suite_name(suite, loaded.source)
    origins = corpus_origins(loaded, specs, options["corpus"] if options else None)
    setups = None
    if options is not None:
        setups = _prepare_runs(loaded, runs, recorded_runs, specs, options, origins, dry_run)
        if setups is None:
            return None
    if testset:  # written by people; imported qrels routinely judge documents never retrieved
        texts = setups[0].corpus if setups is not None else None
        corpus_ids = frozenset(texts) if texts is not None else None
        first, *later = (run.records for run in recorded_runs)
        _warn_if(unmatched_label_warning(loaded, first, origins, corpus_ids, later_passes=later))
    if setups is None:
        scored = [
            score_run(loaded, run.records, specs, suite=name, git=current_commit(), origins=origins)
            for run in recorded_runs
        ]
    else:
        from ragguard.config.model import min_coverage_of

        assert options is not None
        min_coverage = min_coverage_of(options["raw_config"], options["config_source"])
        judge = setups[0].judge  # one client: its usage counts every run
        scored = [
            score_run(
                loaded,
                run.records,
                specs,
                suite=name,
                git=current_commit(),
                config=setup.fingerprint,
                origins=origins,
                min_coverage=min_coverage,
                **{**setup.score_kwargs(), "judge": judge},
            )
            for run, setup in zip(recorded_runs, setups, strict=True)
        ]
        if judge:
            click.echo(judge.usage.line(), err=True)
    if len(scored) > 1:
        click.echo(
            f"ragguard: {len(scored)} runs of {len(loaded.questions)} questions scored as "
            f"repeats ({len(scored) * len(loaded.questions)} answers)",
            err=True,
        )
    return combine_repeats(scored)


def _prepare_runs(
    loaded: TestSet,
    runs: tuple[Path, ...],
    recorded_runs: list[Run],
    specs: tuple[MetricSpec, ...],
    options: dict[str, Any],
    origins: Mapping[str, Chunk] | None,
    dry_run: bool,
) -> list[GenerationSetup] | None:
    """Each run's generation setup (the corpus read once); ``None`` after a dry run's plans
    are printed. Several runs: ``judge.max_calls`` holds over all of them."""
    from ragguard.judge.setup import check_repeats_budget, prepare_generation, progress_printer
    from ragguard.results.records import corpus_texts

    if origins is not None:  # the corpus is read once
        options = {**options, "corpus": corpus_texts(origins)}
    setups: list[GenerationSetup] = []
    for run, recorded in zip(runs, recorded_runs, strict=True):
        setup = prepare_generation(
            specs,
            loaded,
            recorded.records,
            run_source=recorded.source or str(run),
            run_lines=recorded.lines,
            progress=progress_printer(lambda line: click.echo(line, err=True)),
            **options,
        )
        options = {**options, "corpus": setup.corpus}
        setups.append(setup)
    if dry_run:
        for run, setup in zip(runs, setups, strict=True):
            click.echo((f"{run}: " if len(runs) > 1 else "") + setup.dry_run_text(), nl=False)
        return None
    if len(setups) > 1:
        check_repeats_budget(setups[0], [item for setup in setups for item in setup.items])
    return setups
