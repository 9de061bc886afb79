"""A ragas or deepeval test set turned into a ragguard test set (``ragguard import``).

Each context is found by its text (:mod:`ragguard.testset.context_labels`). A question keeps
all its contexts or is not imported: a question labelled with only some of them would count
the others as found-nothing (recall would be wrong). A conversation is imported whole or not
at all, the same way (:mod:`ragguard.testset.importing_turns`). Ids come from deepeval's
``name`` when every entry has a distinct one, else from the text (``q-``, or ``c-`` for a
conversation, and 10 hex digits of its SHA-1), so importing the same file again gives the
same ids.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import bad_path, cannot_read, same_after_normalising
from ragguard.core.surrogates import SURROGATE
from ragguard.testset.context_labels import LabelSources, found_labels, merged
from ragguard.testset.documents import DOCUMENT_SUFFIXES, read_document
from ragguard.testset.formats.foreign import ForeignItem, ForeignQuestion
from ragguard.testset.formats.foreign_turns import ForeignConversation
from ragguard.testset.importing_turns import conversation_entry
from ragguard.testset.load import testset_from_entries
from ragguard.testset.model import TestSet

LONG_CONTEXT = 1000


@dataclass(frozen=True)
class Unlabelled:
    """An entry left out, or a remark on one: where it is and why."""

    place: str
    why: str


@dataclass(frozen=True)
class Imported:
    """The test set entries, each with the place of the question or conversation it comes
    from."""

    entries: list[dict[str, Any]]
    places: list[Where]
    unlabelled: list[Unlabelled]
    long_contexts: int
    # Conversations with labels put on their last turn for want of a better one.
    on_last_turn: list[Unlabelled] = field(default_factory=list)

    def testset(self, source: str | Path) -> TestSet:
        """The entries checked as a test set before they are written: a refusal names the
        place in ``source`` (the imported file), not the file about to be written."""
        return testset_from_entries(source, zip(self.entries, self.places, strict=True))


def import_questions(items: Sequence[ForeignItem], sources: LabelSources, flavour: str) -> Imported:
    """The test set entries of ``items`` (questions and conversations), and those that
    could not be labelled."""
    ids = question_ids(items)
    entries: list[dict[str, Any]] = []
    places: list[Where] = []
    unlabelled: list[Unlabelled] = []
    on_last_turn: list[Unlabelled] = []
    for item_id, item in zip(ids, items, strict=True):
        if isinstance(item, ForeignConversation):
            entry, why, last = conversation_entry(item, item_id, sources, flavour)
            if last:
                on_last_turn.append(Unlabelled(item.where.place, last))
        else:
            relevant, why = _relevant(item, sources)
            entry = _entry(item_id, item, relevant, flavour)
        if why or entry is None:
            unlabelled.append(Unlabelled(item.where.place, why))
            continue
        entries.append(entry)
        places.append(item.where)
    long_contexts = sum(len(c) > LONG_CONTEXT for item in items for c in item.contexts)
    return Imported(entries, places, unlabelled, long_contexts, on_last_turn)


def _relevant(question: ForeignQuestion, sources: LabelSources) -> tuple[list[Any], str]:
    if not question.contexts:
        return [], "has no reference context"
    found, why = found_labels(question.contexts, sources)
    return merged(found), why


def _entry(
    question_id: str, question: ForeignQuestion, relevant: list[Any], flavour: str
) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": question_id, "question": question.question}
    entry["relevant"] = relevant
    if question.reference_answer:
        entry["reference_answer"] = question.reference_answer
    entry["meta"] = {"imported_from": flavour, **question.meta}
    return entry


def question_ids(items: Sequence[ForeignItem]) -> list[str]:
    """deepeval's names when all are given and distinct, else ids from the text.

    Names that differ only in Unicode normalisation would be ids a test set refuses: the
    second one is an error in the imported file, before anything is written.
    """
    names = [item.name for item in items]
    if all(names) and len(set(names)) == len(names):
        _refuse_normalisation_twins(items)
        return [str(name) for name in names]
    ids: list[str] = []
    seen: dict[str, int] = {}
    for item in items:
        prefix = "c-" if isinstance(item, ForeignConversation) else "q-"
        base = prefix + hashlib.sha1(item.id_text.encode()).hexdigest()[:10]
        seen[base] = seen.get(base, 0) + 1
        ids.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return ids


def counted(items: Sequence[ForeignItem]) -> str:
    """What the items are, for messages: questions, conversations or entries."""
    kinds = {isinstance(item, ForeignConversation) for item in items}
    if kinds == {True}:
        return "conversations"
    return "questions" if kinds == {False} else "entries"


def _refuse_normalisation_twins(items: Sequence[ForeignItem]) -> None:
    twins = same_after_normalising(str(item.name) for item in items)
    if twins:
        second = next(item for item in items if item.name == twins[1])
        raise second.where.error(
            f"names {twins[0]!r} and {twins[1]!r} differ only in Unicode normalisation (NFC) "
            "and would be two ids a test set refuses; write them the same way, or give them "
            "different names",
            key="name",
        )


def load_docs(folder: Path) -> dict[str, str]:
    """The documents under ``folder`` by path relative to it (``/`` separated): corpus
    documents (Markdown, text, HTML, PDF) as every command reads them
    (:mod:`ragguard.testset.documents`: HTML its visible text, a PDF its extracted text),
    any other UTF-8 text file as written; files that are not text (images, archives) are
    left out."""
    if not folder.is_dir():
        raise bad_path(folder, NotADirectoryError("not a folder"))
    docs: dict[str, str] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = path.relative_to(folder).as_posix()
        if SURROGATE.search(name):  # bytes that are not UTF-8: no label could name it
            raise InputError(path, "the file's name is not UTF-8 text; rename it")
        if path.suffix.lower() in DOCUMENT_SUFFIXES:
            docs[name] = read_document(folder, path).text
            continue
        try:
            docs[name] = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            continue
        except OSError as exc:
            raise cannot_read(path, "document", exc) from None
    if not docs:
        raise InputError(folder, "holds no UTF-8 text file; --docs names the documents' folder")
    return docs


def dump_testset(entries: Sequence[Mapping[str, Any]], suffix: str) -> str:
    """The entries as a test set file: YAML for .yaml/.yml, else JSON Lines."""
    if suffix.lower() in (".yaml", ".yml"):
        return yaml.safe_dump(list(entries), sort_keys=False, allow_unicode=True, width=100)
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries)
