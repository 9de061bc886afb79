"""``ragguard run`` and ``ragguard merge``: the system asked, scored, and shards merged."""

from __future__ import annotations

from pathlib import Path

import click

from ragguard.cli.options import (
    _warn,
    config_option,
    repeat_option,
)
from ragguard.core import interrupts
from ragguard.core.exits import EXIT_ERROR


@click.command("run")
@config_option("The suite's ragguard.yml.", default="ragguard.yml")
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
@repeat_option
def run_command(
    config_path: Path,
    out: Path,
    cache_dir: Path | None,
    shard_text: str | None,
    resume: bool,
    repeat: int | None,
) -> None:
    """Run the system under test over the test set, score it and print the table."""
    import time

    from ragguard.config.model import MAX_REPEAT, load_config, with_repeat
    from ragguard.core.files import check_writable
    from ragguard.core.git import current_commit
    from ragguard.render import terminal_report
    from ragguard.results.io import write_results
    from ragguard.results.records import RunRecord
    from ragguard.system.journal import (
        PassJournals,
        pass_records_path,
        read_journal,
        records_to_keep,
        remove_stale_passes,
        write_records,
    )
    from ragguard.system.runner import (
        LineLog,
        cost_line,
        end_log_with_failures,
        run_config,
        score_suite_run,
    )
    from ragguard.testset.load import load_testset
    from ragguard.testset.shards import parse_shard, select_shard

    started = time.monotonic()
    shard = parse_shard(shard_text) if shard_text else None
    config = with_repeat(load_config(config_path), repeat)
    passes = config.system.run.repeat
    stem = out.name[: -len(".json")] if out.name.endswith(".json") else out.name
    records_path = out.with_name(stem + ".run.jsonl")
    paths = [pass_records_path(records_path, index) for index in range(passes)]
    for path in (out, *paths):  # before the system is asked anything
        check_writable(path)
    done: list[dict[str, RunRecord]] = []
    if resume:
        testset = load_testset(config.testset)
        asked = select_shard(testset, shard).testset if shard else testset
        ids = [q.id for q in asked.questions]
        done = [records_to_keep(read_journal(path), ids, path) for path in paths]
        kept = sum(len(records) for records in done)
        what = "questions" if passes == 1 else f"calls ({len(ids)} questions x {passes} passes)"
        click.echo(f"resuming: {kept} of {len(ids) * passes} {what} already done", err=True)
    journals = PassJournals(records_path, passes, append=resume, most=MAX_REPEAT)
    log = LineLog(out.with_name(stem + ".log"))
    try:
        suite_run = run_config(config, log=log, shard=shard, done=done, on_record=journals)
        failures = end_log_with_failures(log, suite_run.outcome)
    finally:
        log.close()
        journals.close()
    outcome = suite_run.outcome
    if outcome.stopped_early:
        click.echo(f"ragguard: {outcome.stopped_early_line()}", err=True)
    for path, records in zip(paths, outcome.passes, strict=False):
        write_records(path, records.values())
    remove_stale_passes(records_path, passes, MAX_REPEAT)
    results, generation = score_suite_run(
        config, suite_run, git=current_commit(), cache_dir=cache_dir, warn=_warn
    )
    write_results(results, out)
    if generation.judge:
        click.echo(generation.judge.usage.line(), err=True)
    if passes > 1:  # a call failed in one pass is not in the table of the combined result
        for line in failures:
            click.echo(f"ragguard: {line}", err=True)
        usage = generation.judge.usage if generation.judge else None
        elapsed = time.monotonic() - started
        click.echo(f"ragguard: {cost_line(outcome, usage, elapsed)}", err=True)
    click.echo(terminal_report(results))
    click.echo(outcome.verdict_line())
    written = f"results written to {out}, run records to {records_path}"
    if passes > 1:
        written += f" and {passes - 1} more ({paths[1].name}"
        written += f" to {paths[-1].name})" if passes > 2 else ")"
    click.echo(written + (f", system log to {log.path}" if log.written else ""))
    if outcome.interrupted:
        click.echo(f"interrupted: {outcome.done} of {outcome.calls} {outcome.unit} done", err=True)
        raise SystemExit(interrupts.exit_code())
    if outcome.verdict != "ok":
        raise SystemExit(EXIT_ERROR)


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
    from ragguard.testset.shards import merge_parts

    merged = merge_parts([(path, load_results(path)) for path in parts])
    write_results(merged, out)
    click.echo(terminal_report(merged))
    click.echo(f"merged {len(parts)} parts ({len(merged.questions)} questions) into {out}")
