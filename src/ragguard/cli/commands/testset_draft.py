"""``ragguard testset draft``: questions drafted from the corpus for review
(docs/testset-drafting.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ragguard.cli.options import config_option
from ragguard.core.errors import InputError
from ragguard.core.exits import EXIT_ERROR
from ragguard.testset.drafting.model import KINDS, OFFLINE_KINDS, SINGLE_FACT

if TYPE_CHECKING:
    from ragguard.config.model import Config
    from ragguard.metrics.settings import JudgeSettings
    from ragguard.pipeline.drafting import DraftOutcome, DraftPlan

DEFAULT_KINDS = ",".join(KINDS)
YAML_SUFFIXES = (".yaml", ".yml")
NO_JUDGE = (
    "no judge endpoint is configured; add judge: {base_url: ..., model: ..., api_key_env: "
    "...} to ragguard.yml (pass it with -c), or pass --offline for extractive drafts"
)


@click.command("draft")
@click.option(
    "--corpus",
    type=click.Path(path_type=Path),
    help="Folder of the corpus documents (default: corpus: in ragguard.yml, when a folder).",
)
@click.option(
    "--testset",
    type=click.Path(path_type=Path),
    help="The test set drafts are checked against and appended to (default: the config's).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Write the drafts to this YAML file instead of appending them to the test set.",
)
@click.option(
    "--chunks",
    type=click.Path(path_type=Path),
    help="Chunk corpus (JSON Lines with doc) placing the test set's chunk-id labels in their "
    "documents (default: corpus: in ragguard.yml, when a file).",
)
@click.option(
    "--count",
    type=click.IntRange(1, 1000),
    default=10,
    show_default=True,
    help="How many questions to draft.",
)
@click.option(
    "--kinds",
    help=f"Kinds to draft, in turn, separated by commas (default: {', '.join(KINDS)}; "
    f"{SINGLE_FACT} with --offline).",
)
@click.option(
    "--docs",
    "docs_glob",
    metavar="GLOB",
    help="Draft only from documents whose path under the corpus matches GLOB (e.g. 'api/*.md').",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Seed of the passage sampling."
)
@click.option(
    "--estimate",
    is_flag=True,
    help="Print the judge calls and tokens drafting would take, and stop (no call).",
)
@click.option(
    "--offline",
    is_flag=True,
    help="Extractive single-fact drafts from the corpus's sentences, without a judge.",
)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path),
    help="Folder of the judge's reply cache (default: judge.cache).",
)
@config_option(
    "ragguard.yml for judge:, corpus: and testset: (default: ./ragguard.yml if present)."
)
def draft_command(
    corpus: Path | None,
    testset: Path | None,
    out: Path | None,
    chunks: Path | None,
    count: int,
    kinds: str | None,
    docs_glob: str | None,
    seed: int,
    estimate: bool,
    offline: bool,
    cache_dir: Path | None,
    config_path: Path | None,
) -> None:
    """Draft questions from the corpus (status: draft) for a person to review: evidence
    quotes checked verbatim, near-duplicates dropped."""
    from ragguard.core.files import check_writable
    from ragguard.pipeline.drafting import DraftRequest, check_appendable, plan_drafting
    from ragguard.results.records import chunks_placing_labels
    from ragguard.testset.load import load_testset

    chosen = parse_kinds(kinds or (SINGLE_FACT if offline else DEFAULT_KINDS), offline)
    config = _config(config_path)
    folder = _corpus_folder(corpus, config)
    testset_path = testset or (config.testset if config else None)
    target = None if estimate else _target(out, testset_path)
    current = load_testset(testset_path).questions if testset_path is not None else ()
    judge = None if offline else _judge_settings(config, cache_dir)
    if target is not None:
        check_writable(target)
        if out is None:
            check_appendable(target)
    placed = chunks_placing_labels(chunks or (config.corpus if config else None))
    request = DraftRequest(folder, count, chosen, seed, docs_glob, current, offline, placed)
    plan = plan_drafting(request)
    _note_unavailable(plan.unavailable, offline)
    if target is None:
        click.echo(_estimate_line(plan, judge))
        return
    existing = tuple(question.question for question in current)
    outcome = (
        _draft_offline(plan, count, existing) if offline else _draft_judged(plan, judge, existing)
    )
    _write_and_report(outcome, target, append=out is None, seed=seed, offline=offline)
    asked = len(plan.jobs)
    if not offline and asked and len(outcome.tally.failures) == asked:
        click.echo(
            f"ragguard: error: the judge answered none of the {asked} drafting requests; see "
            "the warnings above and the judge: section",
            err=True,
        )
        raise SystemExit(EXIT_ERROR)


def _write_and_report(
    outcome: DraftOutcome, target: Path, *, append: bool, seed: int, offline: bool
) -> None:
    """Write the drafts kept (nothing when none is), then the summary line and where they went."""
    from ragguard.pipeline.drafting import write_drafts

    if outcome.drafts:
        mode = "offline extractive" if offline else outcome.drafts[0].source
        header = f"ragguard testset draft: {len(outcome.drafts)} drafts ({mode}, seed {seed})"
        write_drafts(target, outcome.drafts, append=append, header=header)
    prefix = "offline extractive drafts: " if offline else ""
    click.echo(prefix + outcome.tally.line())
    if outcome.drafts:
        where = "appended to" if append else "written to"
        click.echo(f"{where} {target} with status: draft; review each before it counts")


def parse_kinds(value: str, offline: bool = False) -> tuple[str, ...]:
    """The ``--kinds`` list: known kinds, each once, in the order given; with ``offline``,
    at least one the offline mode drafts."""
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in KINDS]
    if unknown or not names:
        found = f"unknown kind {unknown[0]!r}" if unknown else "no kind given"
        raise InputError("--kinds", f"{found}; choose from {', '.join(KINDS)}")
    if offline and not any(name in OFFLINE_KINDS for name in names):
        raise InputError(
            "--kinds",
            f"offline extractive drafts are {SINGLE_FACT} only; {', '.join(names)} need the "
            "judge (drop --offline and configure judge:)",
        )
    return tuple(dict.fromkeys(names))


def _note_unavailable(unavailable: tuple[str, ...], offline: bool) -> None:
    if unavailable and offline:
        _warn(
            f"offline extractive drafts: {', '.join(unavailable)} need the judge; "
            f"drafting {SINGLE_FACT} only"
        )
    elif unavailable:
        _warn(f"{', '.join(unavailable)}: needs two documents; the corpus (or --docs) has one")


def _warn(line: str) -> None:
    click.echo(f"ragguard: warning: {line}", err=True)


def _config(path: Path | None) -> Config | None:
    from ragguard.config.load import load_config, local_config

    chosen = path or local_config()
    return load_config(chosen) if chosen is not None else None


def _corpus_folder(corpus: Path | None, config: Config | None) -> Path:
    folder = corpus or (config.documents if config else None)
    if folder is None:
        raise InputError(
            "--corpus",
            "give the folder of the corpus documents, or set corpus: to it in ragguard.yml",
        )
    if not folder.is_dir():
        raise InputError(
            "--corpus",
            f"{str(folder)!r} is not a folder; give the folder of the corpus documents (Markdown, text, HTML, PDF)",
        )
    return folder


def _target(out: Path | None, testset_path: Path | None) -> Path:
    """Where the drafts go: ``--out``, else the test set, which must be YAML."""
    if out is not None:
        if out.suffix.lower() not in YAML_SUFFIXES:
            raise InputError(
                "--out", f"{str(out)!r}: drafts are written as YAML; give a .yaml file"
            )
        return out
    if testset_path is None:
        raise InputError(
            "--out",
            "give the file to write the drafts to, or a test set (--testset) to append them to",
        )
    if testset_path.suffix.lower() not in YAML_SUFFIXES:
        raise InputError(
            "--testset",
            f"{str(testset_path)!r} is not YAML; drafts are appended to a YAML test set: give --out drafts.yaml",
        )
    return testset_path


def _judge_settings(config: Config | None, cache_dir: Path | None) -> JudgeSettings:
    from dataclasses import replace

    judge = config.generation.judge if config else None
    if judge is None:
        raise InputError(
            str(config.path) if config else "--config", NO_JUDGE, key="judge" if config else None
        )
    return replace(judge, cache_dir=cache_dir) if cache_dir is not None else judge


def _estimate_line(plan: DraftPlan, judge: JudgeSettings | None) -> str:
    if judge is None:
        return "estimate: offline extractive drafts make no judge calls"
    from ragguard.judge.client import JudgeClient
    from ragguard.pipeline.drafting import estimate

    return estimate(plan, JudgeClient(judge)).line()


def _draft_offline(plan: DraftPlan, count: int, existing: tuple[str, ...]) -> DraftOutcome:
    from ragguard.pipeline.drafting import draft_offline

    return draft_offline(plan, count, existing)


def _draft_judged(
    plan: DraftPlan, judge: JudgeSettings | None, existing: tuple[str, ...]
) -> DraftOutcome:
    from ragguard.judge.client import JudgeClient
    from ragguard.pipeline.drafting import check_budget, draft_with_judge

    assert judge is not None
    client = JudgeClient.from_environment(judge)
    check_budget(plan, client)
    outcome = draft_with_judge(plan, client, existing)
    for failure in dict.fromkeys(outcome.tally.failures):
        _warn(f"a drafting call failed: {failure}")
    click.echo(client.usage.line(), err=True)
    return outcome
