"""``ragguard calibrate``: agreement with human faithfulness verdicts."""

from __future__ import annotations

from pathlib import Path

import click

from ragguard.cli.options import (
    _judge_config,
    config_option,
)
from ragguard.core.exits import EXIT_ERROR


@click.command("calibrate")
@click.argument("calibration_set", type=click.Path(path_type=Path), required=False)
@click.option(
    "--testset", type=click.Path(path_type=Path), help="A test set whose meta.human has verdicts."
)
@click.option("--run", "run", type=click.Path(path_type=Path), help="The run with the answers.")
@click.option("--corpus", type=click.Path(path_type=Path), help="Chunk text for id-only runs.")
@config_option(
    "ragguard.yml: the faithfulness threshold and, with --judge, the judge.", name="config_file"
)
@click.option("--judge", "use_judge", is_flag=True, help="Also measure the judge's agreement.")
def calibrate_command(
    calibration_set: Path | None,
    testset: Path | None,
    run: Path | None,
    corpus: Path | None,
    config_file: Path | None,
    use_judge: bool,
) -> None:
    """Agreement of the lexical method (and the judge) with human faithfulness verdicts,
    from a calibration set, or from a test set's meta.human verdicts on a run's answers."""
    from ragguard.config.load import load_generation_config
    from ragguard.config.sections.generation import generation_settings
    from ragguard.judge.calibrate import (
        by_kind,
        judge_agreements,
        lexical_agreement,
        lexical_agreements,
        load_calibration,
        report_lines,
        unmeasured,
    )
    from ragguard.judge.client import JudgeClient
    from ragguard.judge.human_verdicts import items_from_run
    from ragguard.results.records import load_corpus
    from ragguard.testset.formats import load_run_file
    from ragguard.testset.load import load_testset

    if (calibration_set is None) == (testset is None):
        raise click.UsageError("give a calibration set, or --testset with --run")
    if calibration_set is not None:
        items = load_calibration(calibration_set)
    elif run is None:
        raise click.UsageError("--testset needs --run (the answers the verdicts are about)")
    else:
        loaded = load_testset(testset)  # type: ignore[arg-type]
        recorded = load_run_file(run, {q.id: q.question for q in loaded.questions})
        for line in recorded.notes:
            click.echo(line, err=True)
        texts = load_corpus(corpus) if corpus else None
        items = items_from_run(loaded, recorded, texts)
    raw_config, source = load_generation_config(_judge_config(config_file, use_judge))
    settings = generation_settings(raw_config, source, judge_override=use_judge)
    results = {"lexical": lexical_agreements(items, settings.threshold)}
    if use_judge and settings.judge is not None:
        client = JudgeClient.from_environment(settings.judge)
        results["judge"] = judge_agreements(items, client.judge_many)
        click.echo(client.usage.line(), err=True)
    kinds = {
        kind: lexical_agreement(group, settings.threshold) for kind, group in by_kind(items).items()
    }
    click.echo("\n".join(report_lines(items, results, kinds)))
    failed = unmeasured(results.get("judge", {}))
    if failed is not None:
        click.echo(
            f"ragguard: error: the judge answered none of the {failed} items, so its agreement "
            "is not measured; see the judge line above and the judge: section",
            err=True,
        )
        raise SystemExit(EXIT_ERROR)
