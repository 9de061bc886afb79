"""``ragguard import``: a ragas or deepeval test set made a ragguard test set."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ragguard.cli.options import (
    _warn,
)
from ragguard.core.errors import InputError

if TYPE_CHECKING:
    from ragguard.testset.importing import Imported


@click.command("import")
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
    from ragguard.testset.context_labels import LabelSources
    from ragguard.testset.formats.foreign import read_foreign
    from ragguard.testset.importing import (
        LONG_CONTEXT,
        counted,
        dump_testset,
        import_questions,
        load_docs,
    )

    if out.suffix.lower() not in (".yaml", ".yml", ".jsonl"):
        raise InputError("--out", f"{out}: write the test set as .yaml or .jsonl")
    questions = read_foreign(source_file, flavour)
    if corpus is None and docs is None and any(item.contexts for item in questions):
        raise click.UsageError("give --corpus, --docs or both: the contexts are looked up there")
    sources = LabelSources.of(
        load_corpus_chunks(corpus) if corpus else {}, load_docs(docs) if docs else {}
    )
    imported = import_questions(questions, sources, flavour)
    what = counted(questions)
    if imported.unlabelled and not skip_unlabelled:
        first = imported.unlabelled[0]
        raise InputError(first.place, f"{first.why} {_how_many(imported, len(questions), what)}")
    if not imported.entries:
        raise InputError(source_file, "no question could be labelled; nothing to write")
    imported.testset(source_file)
    write_report(out, dump_testset(imported.entries, out.suffix))
    for skipped in imported.unlabelled:
        _warn(f"{skipped.place}: left out: {skipped.why}")
    for moved in imported.on_last_turn:
        _warn(f"{moved.place}: {moved.why} (docs/formats.md, Importing conversations)")
    if imported.long_contexts:
        _warn(
            f"{imported.long_contexts} reference contexts are longer than {LONG_CONTEXT:,} "
            "characters: a chunk covers a quote only when it holds evidence.min_coverage of "
            "it (docs/formats.md, Importing)"
        )
    click.echo(
        f"imported {len(imported.entries)} of {len(questions)} {what} from {source_file} into {out}"
    )


def _how_many(imported: Imported, total: int, what: str) -> str:
    """How many entries cannot be imported, and what to do."""
    left = len(imported.unlabelled)
    if what == "questions":
        return (
            f"({left} of {total} questions are not fully found); give the --corpus or --docs "
            "that hold them, or --skip-unlabelled to leave those questions out"
        )
    return (
        f"({left} of {total} {what} cannot be imported whole); --skip-unlabelled leaves "
        f"those {what} out"
    )
