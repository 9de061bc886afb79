"""The command line: parse, call the core, map errors to exit codes.

Exit codes: 0 success, 2 bad input or a usage mistake (one line on stderr, no traceback),
130 interrupted by Ctrl-C, 141 stdout's reader went away (a broken pipe), 143 cancelled by
SIGTERM (README.md, docs/config.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ragguard import __version__
from ragguard.core import interrupts
from ragguard.core.errors import InputError

if TYPE_CHECKING:
    from ragguard.compare.model import Comparison
    from ragguard.judge.setup import GenerationSetup
    from ragguard.metrics.names import MetricSpec
    from ragguard.results.model import QuestionResult, Results
    from ragguard.results.records import Chunk, Run
    from ragguard.scoring.parallel import ScoredRun
    from ragguard.testset.model import TestSet

# Each command imports what it needs when it runs: `ragguard --help` and `--version` load
# click and ragguard.core.errors only (benchmarks/startup.py measures them).

EXIT_BAD_INPUT = 2
COMMAND_ORDER = (
    "demo",
    "init",
    "run",
    "score",
    "compare",
    "power",
    "explain",
    "report",
    "baseline",
    "import",
    "merge",
    "calibrate",
    "ci",
    "publish",
)
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a program killed by a closed pipe


class RagguardGroup(click.Group):
    """Turns bad input, usage mistakes and interrupts into one line on stderr and an exit code.

    :class:`InputError` and click's usage errors exit 2; Ctrl-C exits 130 and SIGTERM 143
    (the children the run started are killed first); running out of memory exits 2.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InputError as exc:
            click.echo(f"ragguard: error: {exc}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except BrokenPipeError:  # `ragguard run | head -1`: the reader is gone, nothing to say
            _silence_stdout()
            ctx.exit(EXIT_BROKEN_PIPE)
        except OSError as exc:
            if exc.filename is None:
                raise
            from ragguard.core.sources import bad_path

            error = bad_path(exc.filename, exc)  # e.g. a path too long, a folder not writable
            click.echo(f"ragguard: error: {error}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except KeyboardInterrupt:  # past click's handler, which prints a blank line first
            raise _Interrupted from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Commands in the order a user meets them, not alphabetically."""
        known = super().list_commands(ctx)
        ordered = [name for name in COMMAND_ORDER if name in known]
        return ordered + [name for name in known if name not in ordered]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command's first sentence whole (wrapped), where click would cut it to fit."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=1000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        try:
            result = super().main(*args, standalone_mode=False, **kwargs)
        except click.ClickException as exc:
            click.echo(f"ragguard: error: {_one_line(exc)}", err=True)
            result = EXIT_BAD_INPUT if isinstance(exc, click.UsageError) else exc.exit_code
        except (_Interrupted, click.Abort, KeyboardInterrupt):
            interrupts.kill_children()
            click.echo(f"ragguard: interrupted ({interrupts.signal_name()})", err=True)
            result = interrupts.exit_code()
        except MemoryError:
            click.echo(
                "ragguard: error: out of memory; give the job more memory or split the input",
                err=True,
            )
            result = EXIT_BAD_INPUT
        code = result if isinstance(result, int) else 0
        if standalone_mode:
            sys.exit(code)
        return result


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's flush at exit cannot fail on
    the closed pipe again (it would print "Exception ignored" and exit 120)."""
    try:
        stdout = sys.stdout.fileno()
    except (OSError, ValueError):  # not a real file (a test runner's): nothing to flush
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, stdout)
    os.close(devnull)


class _Interrupted(Exception):
    """Ctrl-C or SIGTERM, carried past click's own handler to :meth:`RagguardGroup.main`."""


def _one_line(exc: click.ClickException) -> str:
    """A click error as ``PLACE: message; see ragguard CMD --help`` on one line.

    PLACE is the option or argument when click names one, else the command.
    """
    if not isinstance(exc, click.UsageError):
        return " ".join(exc.format_message().split())
    command = exc.ctx.command_path if exc.ctx else "ragguard"
    place = command
    if isinstance(exc, click.NoSuchOption):
        place = exc.option_name
    elif isinstance(exc, (click.BadParameter, click.MissingParameter)) and exc.param is not None:
        param = exc.param
        place = param.opts[0] if isinstance(param, click.Option) else param.human_readable_name
    message = " ".join(exc.format_message().split())
    return f"{place}: {message}; see {command} --help"


def config_option(
    help_text: str, default: str | None = None, name: str = "config_path"
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``-c/--config``, the same flag on every command that reads or writes ragguard.yml."""
    return click.option(
        "-c",
        "--config",
        name,
        type=click.Path(path_type=Path),
        default=default,
        show_default=default is not None,
        help=help_text,
    )


def _check_repeat(_ctx: click.Context, _param: click.Parameter, value: int | None) -> int | None:
    from ragguard.config.model import REPEAT_EXPECTED, is_whole_repeat

    if value is not None and not is_whole_repeat(value):
        raise click.BadParameter(f"{REPEAT_EXPECTED}, found {value}")
    return value


repeat_option = click.option(
    "--repeat",
    type=int,
    callback=_check_repeat,
    metavar="N",
    help="Ask every question N times (1-20); overrides system.repeat in the config.",
)


@click.group(cls=RagguardGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ragguard")
def cli() -> None:
    """Evaluate a RAG system, compare it with a baseline, and gate the merge."""


def parse_metrics_option(value: str | None) -> tuple[MetricSpec, ...]:
    from ragguard.metrics.names import DEFAULT_METRICS, MetricNameError, parse_metric_list

    try:
        return parse_metric_list(value or ",".join(DEFAULT_METRICS))
    except MetricNameError as exc:
        raise InputError("--metrics", str(exc)) from None


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


@cli.command()
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
        from ragguard.results.model import write_results

        write_results(results, out, lines)
    from ragguard.render import terminal_report

    click.echo(terminal_report(results), nl=False)
    if out:
        click.echo(f"\nresults written to {out}")


def _warn_if(warning: str | None) -> None:
    if warning:
        _warn(warning)


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
    from ragguard.testset.formats.trec import load_qrels, load_trec_rankings

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
        from ragguard.testset.model import load_testset

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
    from ragguard.render import json_report, markdown_report, terminal_report
    from ragguard.results.model import load_results

    results = load_results(results_file)
    renderers = {"table": terminal_report, "markdown": markdown_report, "json": json_report}
    click.echo(renderers[output_format](results), nl=False)


@cli.command("explain")
@click.argument("results_file", type=click.Path(path_type=Path))
@click.argument("question_id")
@click.option("-k", "k", type=click.IntRange(min=1), default=3, show_default=True, help="Cut-off.")
def explain_command(results_file: Path, question_id: str, k: int) -> None:
    """Show the working behind one question's precision, recall, RR and nDCG at k, and its
    answer's per-sentence faithfulness verdicts when it was scored for them."""
    from ragguard.results.model import load_results

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


@cli.command()
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
    from ragguard.demo.walkthrough import compare_demo, run_demo, write_demo
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


def _seed_demo(out: Path | None) -> None:
    """Score the seed's Orders API examples from files shipped with ragguard."""
    from ragguard.demo import seed_examples
    from ragguard.metrics.names import parse_metric_list
    from ragguard.render import terminal_report
    from ragguard.results.model import write_results
    from ragguard.scoring.score import score_run
    from ragguard.testset.formats import load_run_file
    from ragguard.testset.model import load_testset

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
            click.echo(_explain(results.by_id[question_id], k))
        if out:
            write_results(results, out / f"{example.suite}.results.json")
    if out:
        click.echo(f"results written to {out}/")


DEFAULT_CONFIG = "ragguard.yml"
EXIT_RUN_ERROR = 3  # too many questions failed (above max_error_rate): the run is not trusted


@cli.command()
@config_option("Where to write the starter config.", default="ragguard.yml")
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


@cli.command("run")
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
    from ragguard.results.model import write_results
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
    from ragguard.testset.model import load_testset
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
        raise SystemExit(EXIT_RUN_ERROR)


@cli.command("merge")
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
    from ragguard.results.model import load_results, write_results
    from ragguard.testset.shards import merge_parts

    merged = merge_parts([(path, load_results(path)) for path in parts])
    write_results(merged, out)
    click.echo(terminal_report(merged))
    click.echo(f"merged {len(parts)} parts ({len(merged.questions)} questions) into {out}")


@cli.command("compare")
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
    allow_missing_baseline: bool,
    allow_suite_change: bool,
) -> None:
    """Compare HEAD_FILE with BASELINE_FILE and gate the merge.

    Exit 0 pass or warn, 1 fail, 2 bad input, 3 error or incomparable (as fail).
    """
    from ragguard.compare import compare, exit_code
    from ragguard.compare.baseline import load_baseline
    from ragguard.core.files import write_all
    from ragguard.gate import load_gate_rules
    from ragguard.render import comparison_json, comparison_terminal, render_comment, render_summary
    from ragguard.render.junit import comparison_junit
    from ragguard.results.model import load_results

    if config_path is None and Path(DEFAULT_CONFIG).is_file():
        config_path = Path(DEFAULT_CONFIG)  # the rules `run` and CI use, so the verdicts agree
    rules = load_gate_rules(config_path)
    head = load_results(head_file)
    missing = not baseline_file.exists()
    if missing and not allow_missing_baseline:
        raise InputError(
            baseline_file,
            "baseline results not found; check the path, or pass --allow-missing-baseline "
            "for a 'no baseline yet' report",
        )
    stored = None if missing else load_baseline(baseline_file)
    baseline = None if stored is None else stored.results
    if baseline is not None and baseline.suite != head.suite and not allow_suite_change:
        raise InputError(
            head_file,
            f"suite {head.suite!r}, but the baseline's is {baseline.suite!r}; compare results "
            "of one suite, or pass --allow-suite-change",
        )
    comparison = compare(
        baseline,
        head,
        rules,
        provenance=None if stored is None else stored.provenance(head),
    )
    outputs = (
        (markdown, lambda: render_comment(comparison, template)),
        (summary, lambda: render_summary(comparison, template)),
        (junit, lambda: comparison_junit(comparison)),
        (json_path, lambda: comparison_json(comparison)),
    )
    write_all([(path, make()) for path, make in outputs if path is not None])  # all or none
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


@cli.command("power")
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

    from ragguard.compare import compare
    from ragguard.compare.baseline import load_baseline
    from ragguard.compare.power import is_repeated, results_power
    from ragguard.gate import load_gate_rules
    from ragguard.render.power import power_table, too_small_lines
    from ragguard.render.text import printable
    from ragguard.results.model import load_results

    if config_path is None and Path(DEFAULT_CONFIG).is_file():
        config_path = Path(DEFAULT_CONFIG)
    rules = load_gate_rules(config_path)
    head = load_results(results_file)
    if baseline_file is None:
        power = results_power(head, rules)
        source = "noise assumed from this run alone: runs treated as independent (no baseline)"
        if is_repeated(head):
            source = "noise measured from this run's repeats: the spread between each question's runs (no baseline)"
    else:
        if not baseline_file.exists():
            raise InputError(baseline_file, "baseline results not found; check the path")
        power = compare(load_baseline(baseline_file).results, head, rules).power
        source = "noise measured from the comparison with the baseline"
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


def _warn(line: str) -> None:
    click.echo(f"ragguard: warning: {line}", err=True)


def _judge_config(config_file: Path | None, use_judge: bool) -> Path | None:
    """The ragguard.yml to read generation settings from: --config, or ./ragguard.yml for --judge."""
    if config_file is None and use_judge:
        default = Path("ragguard.yml")
        if not default.exists():
            raise InputError("--judge", "needs a judge: section; pass --config ragguard.yml")
        return default
    return config_file


@cli.group("baseline")
def baseline_group() -> None:
    """The baselines CI stores on the data branch."""


@baseline_group.command("fetch")
@config_option("The suite's ragguard.yml (for its suite name).", default=DEFAULT_CONFIG)
@click.option("--suite", help="The suite (default: suite: in the config).")
@click.option("--branch", default="main", show_default=True, help="The target branch.")
@click.option("--commit", help="The baseline of this commit (a sha or a unique prefix).")
@click.option("--remote", default="origin", show_default=True, help="The git remote.")
@click.option(
    "--data-branch", default="ragguard-data", show_default=True, help="Where CI stores them."
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default="baseline.json",
    show_default=True,
    help="Where to write it (ragguard compare reads it as it is).",
)
def baseline_fetch(
    config_path: Path,
    suite: str | None,
    branch: str,
    commit: str | None,
    remote: str,
    data_branch: str,
    out: Path,
) -> None:
    """Fetch the stored baseline of a branch (the newest) or of a commit, with git."""
    from ragguard.compare.baseline import load_baseline
    from ragguard.config.model import load_config
    from ragguard.core.files import write_report
    from ragguard.github.fetch import fetch_baseline

    if suite is None:
        if not config_path.is_file():
            raise InputError(config_path, "not found; pass --suite NAME or -c ragguard.yml")
        suite = load_config(config_path).suite
    fetched = fetch_baseline(
        Path.cwd(), suite, branch=branch, commit=commit, remote=remote, data_branch=data_branch
    )
    write_report(out, fetched.document.decode("utf-8"))
    stored = load_baseline(out)
    which = stored.commit[:12] if stored.commit else "commit not recorded"
    click.echo(
        f"baseline of {suite}: {which} on {stored.branch or branch}"
        f", saved {stored.created_at or 'at an unknown time'} ({fetched.path}); written to {out}"
    )
    click.echo(f"next: ragguard compare {out} results.json")


@cli.command("calibrate")
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
    from ragguard.judge.calibrate import (
        by_kind,
        items_from_run,
        judge_agreements,
        lexical_agreement,
        lexical_agreements,
        load_calibration,
        report_lines,
    )
    from ragguard.judge.client import JudgeClient
    from ragguard.judge.settings import generation_settings
    from ragguard.results.records import load_corpus
    from ragguard.testset.formats import load_run_file
    from ragguard.testset.model import load_testset

    if (calibration_set is None) == (testset is None):
        raise click.UsageError("give a calibration set, or --testset with --run")
    if calibration_set is not None:
        items = load_calibration(calibration_set)
    elif run is None:
        raise click.UsageError("--testset needs --run (the answers the verdicts are about)")
    else:
        loaded = load_testset(testset)  # type: ignore[arg-type]
        recorded = load_run_file(run)
        texts = load_corpus(corpus) if corpus else None
        items = items_from_run(loaded, recorded.records, texts)
    from ragguard.judge.setup import load_generation_config

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


@cli.command("import")
@click.argument("source_file", type=click.Path(path_type=Path))
@click.option(
    "--from",
    "flavour",
    type=click.Choice(["ragas", "deepeval"]),
    required=True,
    help="The tool that wrote SOURCE_FILE.",
)
@click.option(
    "--corpus",
    type=click.Path(path_type=Path),
    help="Chunks (JSON Lines) to find the reference contexts in.",
)
@click.option(
    "--docs",
    type=click.Path(path_type=Path),
    help="The documents' folder, to find contexts no chunk holds (doc: path relative to it).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default="testset.yaml",
    show_default=True,
    help="The test set to write: .yaml or .jsonl.",
)
@click.option(
    "--skip-unlabelled",
    is_flag=True,
    help="Leave out questions whose contexts are not all found, instead of stopping.",
)
def import_command(
    source_file: Path,
    flavour: str,
    corpus: Path | None,
    docs: Path | None,
    out: Path,
    skip_unlabelled: bool,
) -> None:
    """Turn a ragas or deepeval test set into a ragguard test set, labels found by text."""
    from ragguard.core.files import write_report
    from ragguard.results.records import load_corpus_chunks
    from ragguard.testset.formats.foreign import read_foreign
    from ragguard.testset.importing import (
        LONG_CONTEXT,
        LabelSources,
        dump_testset,
        import_questions,
        load_docs,
    )
    from ragguard.testset.model import load_testset

    if corpus is None and docs is None:
        raise click.UsageError("give --corpus, --docs or both: the contexts are looked up there")
    if out.suffix.lower() not in (".yaml", ".yml", ".jsonl"):
        raise InputError("--out", f"{out}: write the test set as .yaml or .jsonl")
    questions = read_foreign(source_file, flavour)
    sources = LabelSources.of(
        load_corpus_chunks(corpus) if corpus else {}, load_docs(docs) if docs else {}
    )
    imported = import_questions(questions, sources, flavour)
    if imported.unlabelled and not skip_unlabelled:
        first = imported.unlabelled[0]
        raise InputError(
            first.place,
            f"{first.why} ({len(imported.unlabelled)} of {len(questions)} questions are "
            "not fully found); give the --corpus or --docs that hold them, or "
            "--skip-unlabelled to leave those questions out",
        )
    if not imported.entries:
        raise InputError(source_file, "no question could be labelled; nothing to write")
    write_report(out, dump_testset(imported.entries, out.suffix))
    load_testset(out)
    for skipped in imported.unlabelled:
        _warn(f"{skipped.place}: left out: {skipped.why}")
    if imported.long_contexts:
        _warn(
            f"{imported.long_contexts} reference contexts are longer than {LONG_CONTEXT:,} "
            "characters: a chunk covers a quote only when it holds evidence.min_coverage of "
            "it (docs/formats.md, Importing)"
        )
    click.echo(
        f"imported {len(imported.entries)} of {len(questions)} questions from {source_file} "
        f"into {out}"
    )


@cli.command("ci")
@repeat_option
def ci_command(repeat: int | None) -> None:
    """Run inside GitHub Actions (action.yml calls it): evaluate, compare, comment, gate.

    Reads GitHub's environment and the action's inputs (RAGGUARD_* variables, see
    docs/action.md). Exit 0 pass, 1 the gate failed, 2 bad input, 3 could not evaluate.
    """
    _run_ci(mode=None, repeat=repeat)


@cli.command("publish")
def publish_command() -> None:
    """Post a fork pull request's comment and status (from a workflow_run workflow).

    The same as `ragguard ci` with mode publish: the artifact is downloaded through the API
    and the pull request is found from the run's head commit, never from the artifact.
    """
    _run_ci(mode="publish")


def _run_ci(mode: str | None, repeat: int | None = None) -> None:
    import dataclasses
    import functools
    import os

    from ragguard.ci.glue import Collaborators, evaluate_config, run_ci
    from ragguard.ci.masks import ci_secrets, mask_secrets
    from ragguard.ci.settings import read_settings
    from ragguard.core.git import git_commit_time
    from ragguard.github import GitHubClient, GitHubError

    settings = read_settings(os.environ)
    if os.environ.get("GITHUB_ACTIONS") == "true":  # masks first, before anything is logged
        mask_secrets(ci_secrets(os.environ, settings.github.token, settings.config), click.echo)
    if mode is not None:
        settings = dataclasses.replace(settings, mode=mode)
    if repeat is not None:  # --repeat over the action's repeat input
        settings = dataclasses.replace(settings, repeat=repeat)
    collaborators = Collaborators(
        github=GitHubClient(settings.github),
        evaluate=functools.partial(
            evaluate_config,
            cache_dir=settings.cache_dir,
            shard=settings.shard,
            summary_file=settings.summary_file,
        ),
        commit_time=git_commit_time,
        evaluate_only=lambda config, git, out, ids: evaluate_config(
            config, git, out, cache_dir=settings.cache_dir, only=ids
        ),
    )
    try:
        outcome = run_ci(settings, collaborators)
    except GitHubError as exc:
        click.echo(f"ragguard: error: {exc}", err=True)
        raise SystemExit(3) from None
    raise SystemExit(outcome.exit_code)


def main() -> None:
    interrupts.install()
    cli(prog_name="ragguard")
