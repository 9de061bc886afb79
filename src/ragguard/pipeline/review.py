"""``ragguard testset review``: the drafts of a YAML test set walked one at a time.

Each draft is shown with its evidence (:func:`~ragguard.render.drafts.draft_card`); the
reviewer accepts it (``status: reviewed``), edits it in an editor, rejects it (removed),
skips it or quits. Every decision is written to the file at once, atomically, as a text edit
that keeps every other byte (:mod:`ragguard.testset.review_text`). The terminal is handed in
(:class:`Console`), so the walk itself prints nothing and reads nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ragguard.core.errors import InputError, Where
from ragguard.core.files import write_report
from ragguard.core.sources import BOM, read_text
from ragguard.render.drafts import draft_card
from ragguard.testset.load import questions_of, testset_from_yaml_text
from ragguard.testset.passages import passages
from ragguard.testset.review_text import (
    Entry,
    accepted,
    drafts_in,
    entry_text,
    list_entries,
    rejected,
    replaced,
)

ACCEPT, EDIT, REJECT, SKIP, QUIT = "a", "e", "r", "s", "q"  # what Console.choose returns
YAML_SUFFIXES = (".yaml", ".yml")


class Console(Protocol):
    """The reviewer's terminal."""

    def show(self, text: str) -> None:
        """Show ``text`` (a draft's card, a refused edit's error)."""

    def choose(self) -> str:
        """The reviewer's decision: one of a, e, r, s, q."""
        ...

    def edit(self, text: str) -> str:
        """``text`` as the reviewer left it in their editor."""
        ...


@dataclass
class Tally:
    """What a review did: how many drafts were accepted, edited, rejected and skipped, and
    how many drafts the file still holds."""

    accepted: int = 0
    edited: int = 0
    rejected: int = 0
    skipped: int = 0
    left: int = 0

    def line(self, path: Path) -> str:
        done = (
            f"{self.accepted} accepted, {self.edited} edited, {self.rejected} rejected, "
            f"{self.skipped} skipped"
        )
        left = f"{self.left} draft{'s' if self.left != 1 else ''} left"
        return f"reviewed {path}: {done}; {left}"


@dataclass
class Corpus:
    """The text a card shows evidence in: documents by id, chunks by id (either empty)."""

    documents: Mapping[str, str] = field(default_factory=dict)
    chunks: Mapping[str, str] = field(default_factory=dict)


def check_reviewable(path: Path) -> None:
    """Only a YAML test set is reviewed (drafts are written as YAML); others are refused."""
    if path.suffix.lower() not in YAML_SUFFIXES:
        raise InputError(
            path,
            "review edits a YAML test set (.yaml, .yml); in this format set a draft's status "
            "to reviewed, or remove it, by hand",
        )


def review_drafts(path: Path, console: Console, corpus: Corpus) -> Tally:
    """Walk the drafts of the test set at ``path`` in file order until none is left or the
    reviewer quits; each decision is written before the next draft is shown."""
    check_reviewable(path)
    tally = Tally()
    position = 0  # the first entry not yet decided on
    refused: tuple[int, str] | None = None  # a refused edit of an entry, reopened next time
    while True:
        text = _read(path)
        testset_from_yaml_text(text, path)  # the file as it is now is a valid test set
        entries = list_entries(text, path)
        drafts = drafts_in(entries)
        waiting = [entry for entry in drafts if entry.index >= position]
        if not waiting:
            break
        entry = waiting[0]
        number = tally.accepted + tally.rejected + tally.skipped + 1
        console.show(_card(entry, number, number - 1 + len(waiting), path, corpus))
        choice = console.choose()
        if choice == QUIT:
            break
        if choice == EDIT:
            pending = refused[1] if refused and refused[0] == entry.index else None
            kept = _edit(path, text, entry, console, pending, tally)
            refused = (entry.index, kept) if kept is not None else None
        else:
            position, refused = _decide(choice, path, text, entry, tally), None
    tally.left = len(drafts_in(list_entries(_read(path), path)))
    return tally


def _decide(choice: str, path: Path, text: str, entry: Entry, tally: Tally) -> int:
    """Accept, reject or skip the entry (written at once); the index of the next entry to
    look at (a rejected entry's place is taken by the one after it)."""
    if choice == ACCEPT:
        _write(path, accepted(text, entry, path))
        tally.accepted += 1
    elif choice == REJECT:
        _write(path, rejected(text, entry, path))
        tally.rejected += 1
        return entry.index
    else:
        tally.skipped += 1
    return entry.index + 1


def _edit(
    path: Path, text: str, entry: Entry, console: Console, pending: str | None, tally: Tally
) -> str | None:
    """Open the entry (or the last refused edit of it) in the editor; a valid edit is
    written and the entry shown again, a refused one is shown with its error and kept for
    the next edit. Returns the refused edit, or None."""
    original = entry_text(text, entry)
    try:
        edited = console.edit(pending if pending is not None else original)
    except InputError as exc:  # no editor, or it failed: nothing changed
        console.show(f"not edited: {exc}\n")
        return pending
    if edited == original:
        console.show("no change\n")
        return None
    try:
        result = replaced(text, entry, edited, path)
        testset_from_yaml_text(result, path)
    except InputError as exc:
        console.show(f"not saved: {exc}\n(e edits it again, s skips this draft)\n")
        return edited
    _write(path, result)
    tally.edited += 1
    return None


def review_corpus(documents: Path | None, chunks: Path | None) -> Corpus:
    """The corpus a card quotes from: ``corpus:`` as a folder of documents, or as chunks."""
    from ragguard.results.records import corpus_texts, load_corpus_chunks
    from ragguard.testset.documents import read_documents

    if documents is not None:
        return Corpus(documents={doc.id: doc.text for doc in read_documents(documents)})
    if chunks is not None:
        return Corpus(chunks=corpus_texts(load_corpus_chunks(chunks)))
    return Corpus()


def _card(entry: Entry, number: int, total: int, path: Path, corpus: Corpus) -> str:
    questions = questions_of(entry.value, Where(path, entry.start + 1))
    shown = [passages(q, corpus.documents, corpus.chunks) for q in questions]
    return draft_card(questions, shown, number, total)


def _read(path: Path) -> str:
    return read_text(path, what="test set")


def _write(path: Path, text: str) -> None:
    """Write the test set atomically, keeping a byte order mark it started with."""
    with path.open("rb") as file:
        bom = file.read(len(BOM)) == BOM
    write_report(path, ("\ufeff" if bom else "") + text)
