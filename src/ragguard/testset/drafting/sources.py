"""The documents drafting reads: those of the corpus folder (:mod:`ragguard.testset.documents`,
the one reader, which every command shares) whose id matches ``--docs``, each as the text
questions are drafted from and quotes checked in."""

from __future__ import annotations

import fnmatch
from pathlib import Path

from ragguard.core.errors import InputError
from ragguard.testset.documents import Document, corpus_paths, document_id, read_document


def chosen_paths(root: Path, pattern: str | None) -> list[Path]:
    """The corpus files whose id matches ``pattern`` (fnmatch: ``*`` crosses ``/``), or all;
    refused when nothing is left to draft from."""
    paths = corpus_paths(root)
    if not paths:
        raise InputError(
            "--corpus",
            f"{str(root)!r} holds no documents (.md, .markdown, .txt, .text, .html, .htm, "
            ".pdf); give the folder of the corpus documents",
        )
    if pattern is None:
        return paths
    if not pattern.strip():
        raise InputError("--docs", "is empty; give a glob of document paths, e.g. 'api/*.md'")
    chosen = [path for path in paths if fnmatch.fnmatchcase(document_id(root, path), pattern)]
    if not chosen:
        raise InputError(
            "--docs",
            f"{pattern!r} matches none of the {len(paths)} documents under {str(root)!r}; "
            "globs match paths relative to the corpus folder, e.g. 'api/*.md'",
        )
    return chosen


def read_for_drafting(root: Path, pattern: str | None = None) -> tuple[Document, ...]:
    """The chosen documents, each as the text drafting works on."""
    return tuple(read_document(root, path) for path in chosen_paths(root, pattern))
