"""The pull request comment's line naming changed corpus documents no question covers.

Only when ``corpus:`` in ragguard.yml names a folder of documents: the files the pull
request changes under it (git, between the merge base and the head) that are corpus
documents no question's labels reach (testset/coverage.py). One line, or nothing. The
folder is read as every command reads it (testset/documents.py), except that a PDF without
the pdf extra is read by name alone: whether a question reaches a document needs only its
id, and a pull request's job must not fail for an extra its CI does not install.
"""

from __future__ import annotations

from collections.abc import Callable

from ragguard.ci.collaborators import Target
from ragguard.config.model import Config
from ragguard.core.git import changed_paths, fetch_missing_commit
from ragguard.render.coverage import uncovered_changed_line
from ragguard.results.records import chunks_placing_labels
from ragguard.testset.coverage import corpus_coverage, uncovered_changed
from ragguard.testset.documents import read_documents
from ragguard.testset.load import load_testset

NO_DIFF = "cannot tell which corpus documents the pull request changes: {why}"


def uncovered_changes_note(
    config: Config, target: Target, merge_base: str | None, log: Callable[[str], None]
) -> str:
    """The comment's line (with a blank line after it) when the pull request changes corpus
    documents no question covers; empty otherwise."""
    if config.documents is None or target.pr is None or merge_base is None:
        return ""
    missing = fetch_missing_commit(merge_base, config.documents)
    changed = changed_paths(merge_base, target.sha, config.documents)
    if changed is None:
        why = missing or f"git diff {merge_base[:12]} {target.sha[:12]} failed"
        log(f"ragguard: {config.suite}: " + NO_DIFF.format(why=why))
        return ""
    if not changed:
        return ""
    coverage = corpus_coverage(
        read_documents(config.documents, pdf_by_name=True),
        load_testset(config.testset).without_drafts().questions,
        chunks_placing_labels(config.corpus),
    )
    line = uncovered_changed_line(uncovered_changed(coverage, changed))
    return f"{line}\n\n" if line else ""
