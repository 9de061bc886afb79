"""``ragguard coverage``: which documents and sections of the corpus no question reaches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ragguard.cli.options import config_option
from ragguard.core.errors import InputError

if TYPE_CHECKING:
    from ragguard.config.model import Config
    from ragguard.results.chunks import Chunk
    from ragguard.testset.coverage import CorpusCoverage

NO_CORPUS = (
    "give the folder of the corpus documents (Markdown, text, HTML, PDF), "
    "or set corpus: to it in ragguard.yml"
)


@click.command("coverage")
@click.option(
    "--corpus",
    type=click.Path(path_type=Path),
    help="Folder of the corpus documents (default: corpus: in ragguard.yml, when a folder).",
)
@click.option(
    "--testset", type=click.Path(path_type=Path), help="Test set (default: the config's)."
)
@click.option(
    "--run",
    "run_file",
    type=click.Path(path_type=Path),
    help="Run records (what `ragguard run` writes beside its results): which documents it "
    "retrieves for no question.",
)
@click.option(
    "--chunks",
    type=click.Path(path_type=Path),
    help="Chunk corpus (JSON Lines with doc) placing chunk-id labels in their documents.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the coverage as JSON.")
@config_option("ragguard.yml for corpus: and testset: (default: ./ragguard.yml if present).")
def coverage_command(
    corpus: Path | None,
    testset: Path | None,
    run_file: Path | None,
    chunks: Path | None,
    as_json: bool,
    config_path: Path | None,
) -> None:
    """Which documents and sections of the corpus no question's labels reach (a share of the
    corpus by size), and which documents a run retrieves for no question."""
    config = _config(config_path, need=corpus is None or testset is None)
    folder = corpus or (config.documents if config else None)
    if folder is None:
        raise InputError("--corpus", NO_CORPUS)
    testset_path = testset or (config.testset if config else None)
    if testset_path is None:
        raise InputError("--testset", "give the test set, or a ragguard.yml with testset:")
    chunk_file = chunks or (config.corpus if config else None)
    result = _coverage(folder, testset_path, run_file, chunk_file)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        from ragguard.render.coverage import coverage_text

        click.echo(coverage_text(result), nl=False)


def _config(path: Path | None, *, need: bool) -> Config | None:
    from ragguard.config.load import load_config, local_config

    chosen = path or (local_config() if need else None)
    return load_config(chosen) if chosen is not None else None


def _coverage(
    folder: Path, testset_path: Path, run_file: Path | None, chunk_file: Path | None
) -> CorpusCoverage:
    from ragguard.results.records import chunks_placing_labels
    from ragguard.testset.coverage import corpus_coverage
    from ragguard.testset.documents import read_documents
    from ragguard.testset.load import load_testset

    if not folder.is_dir():
        raise InputError("--corpus", f"{str(folder)!r} is not a folder; {NO_CORPUS}")
    documents = read_documents(folder)
    questions = load_testset(testset_path).without_drafts().questions
    known = chunks_placing_labels(chunk_file)
    retrieved = None
    if run_file is not None:
        run_chunks = _run_chunks(run_file, [(q.id, q.question) for q in questions])
        retrieved = {_doc_of(chunk, known) for chunk in run_chunks} - {None}
        known = {**{c.id: c for c in run_chunks if c.doc}, **known}
    return corpus_coverage(documents, questions, known, retrieved)  # type: ignore[arg-type]


def _run_chunks(path: Path, questions: list[tuple[str, str]]) -> list[Chunk]:
    from ragguard.testset.formats import load_run_file

    run = load_run_file(path, questions)
    asked = {question_id for question_id, _ in questions}
    return [
        chunk
        for question_id, record in run.records.items()
        if question_id in asked
        for chunk in record.retrieved
    ]


def _doc_of(chunk: Chunk, known: dict[str, Chunk]) -> str | None:
    if chunk.doc:
        return chunk.doc
    origin = known.get(chunk.id)
    return origin.doc if origin else None
