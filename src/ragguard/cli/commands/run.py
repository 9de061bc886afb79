"""``ragguard run`` and ``ragguard merge``: the system asked, scored, and shards merged."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ragguard.cli.options import (
    config_option,
    include_drafts_option,
    repeat_option,
)
from ragguard.config.load import DEFAULT_CONFIG_NAME
from ragguard.core import interrupts
from ragguard.core.exits import EXIT_ERROR

if TYPE_CHECKING:
    from ragguard.config.model import Config
    from ragguard.pipeline.evaluate import RunFiles
    from ragguard.testset.shards import Shard


@click.command("run")
@config_option("The suite's ragguard.yml.", default=DEFAULT_CONFIG_NAME)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default="results.json",
    show_default=True,
    help="Results JSON; the run records (.run.jsonl) and the log (.log) go beside it.",
)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="The judge's reply cache folder (default: judge.cache in the config).",
)
@click.option(
    "--shard",
    "shard_text",
    metavar="I/N",
    help="Run only shard I of N (split by a hash of the question id); merge with `ragguard merge`.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Continue an unfinished run: keep the answered questions in the run records file.",
)
@click.option(
    "--estimate",
    "--dry-run",
    "estimate",
    is_flag=True,
    help="Ask the system, then print the judge calls, tokens and cost (with judge.price) "
    "scoring would need, and call no judge; --resume then asks the system nothing again.",
)
@repeat_option
@include_drafts_option
def run_command(
    config_path: Path,
    out: Path,
    cache_dir: Path | None,
    shard_text: str | None,
    resume: bool,
    estimate: bool,
    repeat: int | None,
    include_drafts: bool,
) -> None:
    """Run the system under test over the test set, score it and print the table."""
    import time

    from ragguard.config.load import load_config
    from ragguard.config.model import with_repeat
    from ragguard.core.files import check_writable
    from ragguard.core.git import current_commit
    from ragguard.pipeline.evaluate import RunFiles, evaluate
    from ragguard.pipeline.reporter import TerminalReporter
    from ragguard.pipeline.run_verdict import run_verdict
    from ragguard.render import terminal_report
    from ragguard.results.io import write_results
    from ragguard.testset.shards import parse_shard

    started = time.monotonic()
    shard = parse_shard(shard_text) if shard_text else None
    config = with_repeat(load_config(config_path), repeat)
    passes = config.system.run.repeat
    stem = out.name[: -len(".json")] if out.name.endswith(".json") else out.name
    files = RunFiles(out.with_name(stem + ".run.jsonl"), journal=True, resume=resume)
    check_writable(out)  # before the system is asked anything (the records files too)
    if estimate:
        _print_estimate(config, cache_dir, shard, files, include_drafts)
        return
    evaluation = evaluate(
        config,
        TerminalReporter(),
        git=current_commit(),
        cache_dir=cache_dir,
        shard=shard,
        records=files,
        system_log=out.with_name(stem + ".log"),
        include_drafts=include_drafts,
    )
    outcome, results = evaluation.outcome, evaluation.results
    write_results(results, out)
    if evaluation.judge:
        click.echo(evaluation.judge.line(), err=True)
    if passes > 1:  # a call failed in one pass is not in the table of the combined result
        for line in evaluation.failures:
            click.echo(f"ragguard: {line}", err=True)
        elapsed = time.monotonic() - started
        click.echo(f"ragguard: {evaluation.cost_line(elapsed)}", err=True)
    click.echo(terminal_report(results))
    verdict = run_verdict(outcome, results)
    click.echo(verdict.line())
    paths = files.paths(passes)
    written = f"results written to {out}, run records to {files.path}"
    if passes > 1:
        written += f" and {passes - 1} more ({paths[1].name}"
        written += f" to {paths[-1].name})" if passes > 2 else ")"
    log = evaluation.system_log
    click.echo(written + (f", system log to {log}" if log else ""))
    if outcome.interrupted:
        click.echo(f"interrupted: {outcome.done} of {outcome.calls} {outcome.unit} done", err=True)
        raise SystemExit(interrupts.exit_code())
    if verdict.verdict != "ok":
        raise SystemExit(EXIT_ERROR)


def _print_estimate(
    config: Config,
    cache_dir: Path | None,
    shard: Shard | None,
    files: RunFiles,
    include_drafts: bool,
) -> None:
    """``--estimate``: the system's answers recorded, the judge's calls planned, none made."""
    from ragguard.pipeline.evaluate import estimate_judging
    from ragguard.pipeline.reporter import TerminalReporter

    plans = estimate_judging(
        config,
        TerminalReporter(),
        cache_dir=cache_dir,
        shard=shard,
        records=files,
        include_drafts=include_drafts,
    )
    for index, plan in enumerate(plans):
        click.echo(plan if len(plans) == 1 else f"pass {index + 1}: {plan}", nl=False)
    click.echo(f"run records written to {files.path}; no results written (an estimate)")


@click.command("merge")
@click.argument("parts", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default="results.json",
    show_default=True,
    help="Write the merged results JSON here.",
)
def merge_command(parts: tuple[Path, ...], out: Path) -> None:
    """Merge the results of `ragguard run --shard i/n` into the results of the whole run."""
    from ragguard.render import terminal_report
    from ragguard.results.io import load_results, write_results
    from ragguard.scoring.merge import merge_parts

    merged = merge_parts([(path, load_results(path)) for path in parts])
    write_results(merged, out)
    click.echo(terminal_report(merged))
    click.echo(f"merged {len(parts)} parts ({len(merged.questions)} questions) into {out}")
