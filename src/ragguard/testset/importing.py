"""A ragas or deepeval test set turned into a ragguard test set (``ragguard import``).

Those tools label a question with the *text* of its reference contexts; ragguard labels
name chunks or evidence. Each context is looked up, after case and whitespace are
normalised as evidence quotes are matched (:func:`ragguard.testset.model.normal_text`):

1. in the corpus: the chunks whose text holds the whole context. A chunk that says which
   document it comes from gives the label ``{doc, quote: context}``, which survives a
   rechunk; one that does not gives its chunk id;
2. else in the documents of ``--docs``: every document that holds it gives
   ``{doc: path relative to the folder, quote: context}``.

A question keeps all its contexts or is not imported: a question labelled with only some
of them would count the others as found-nothing (recall would be wrong). Ids come from
deepeval's ``name`` when every question has a distinct one, else from the question's text
(``q-`` and 10 hex digits of its SHA-1), so importing the same file again gives the same ids.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import bad_path, cannot_read, same_after_normalising
from ragguard.core.surrogates import SURROGATE
from ragguard.results.chunks import Chunk
from ragguard.testset.formats.foreign import ForeignQuestion
from ragguard.testset.load import testset_from_entries
from ragguard.testset.model import TestSet, normal_text

LONG_CONTEXT = 1000
_SEPARATOR = "\x00"


class TextIndex:
    """Texts joined into one normalised string, so a context is found with one ``find``."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.names = list(texts)
        pieces = [normal_text(text) for text in texts.values()]
        self.starts: list[int] = []
        self.ends: list[int] = []
        position = 0
        for piece in pieces:
            self.starts.append(position)
            self.ends.append(position + len(piece))
            position += len(piece) + 1
        self.text = _SEPARATOR.join(pieces)

    def holding(self, context: str) -> list[str]:
        """The names of the texts that hold ``context`` whole, in the order given.

        A match must lie inside one text: one that runs over a separator (or a text's own
        NUL character taken for one) is not a match.
        """
        needle = normal_text(context)
        found: list[str] = []
        start = self.text.find(needle) if needle else -1
        while start >= 0:
            index = bisect.bisect_right(self.starts, start) - 1
            if start + len(needle) <= self.ends[index]:
                found.append(self.names[index])
                next_start = self.ends[index] + 1
            else:
                next_start = start + 1
            start = self.text.find(needle, next_start)
        return found


@dataclass(frozen=True)
class LabelSources:
    """Where contexts are looked up: corpus chunks and documents by name."""

    chunks: Mapping[str, Chunk]
    chunk_index: TextIndex
    doc_index: TextIndex

    @classmethod
    def of(cls, chunks: Mapping[str, Chunk], docs: Mapping[str, str]) -> LabelSources:
        texts = {chunk_id: chunk.text or "" for chunk_id, chunk in chunks.items()}
        return cls(chunks, TextIndex(texts), TextIndex(docs))

    def labels_for(self, context: str) -> list[Any]:
        """The labels of one context (chunk ids or evidence mappings); empty: not found."""
        chunk_ids = self.chunk_index.holding(context)
        if chunk_ids:
            return _chunk_labels(context, [self.chunks[i] for i in chunk_ids])
        return [{"doc": doc, "quote": context} for doc in self.doc_index.holding(context)]


def _chunk_labels(context: str, chunks: Sequence[Chunk]) -> list[Any]:
    labels: list[Any] = []
    for chunk in chunks:
        label = {"doc": chunk.doc, "quote": context} if chunk.doc else chunk.id
        if label not in labels:
            labels.append(label)
    return labels


@dataclass(frozen=True)
class Unlabelled:
    """A question left out: where it is and why."""

    place: str
    why: str


@dataclass(frozen=True)
class Imported:
    """The test set entries, each with the place of the question it comes from."""

    entries: list[dict[str, Any]]
    places: list[Where]
    unlabelled: list[Unlabelled]
    long_contexts: int

    def testset(self, source: str | Path) -> TestSet:
        """The entries checked as a test set before they are written: a refusal names the
        place in ``source`` (the imported file), not the file about to be written."""
        return testset_from_entries(source, zip(self.entries, self.places, strict=True))


def import_questions(
    questions: Sequence[ForeignQuestion], sources: LabelSources, flavour: str
) -> Imported:
    """The test set entries of ``questions``, and the questions that could not be labelled."""
    ids = question_ids(questions)
    entries: list[dict[str, Any]] = []
    places: list[Where] = []
    unlabelled: list[Unlabelled] = []
    for question_id, question in zip(ids, questions, strict=True):
        relevant, why = _relevant(question, sources)
        if why:
            unlabelled.append(Unlabelled(question.where.place, why))
            continue
        entries.append(_entry(question_id, question, relevant, flavour))
        places.append(question.where)
    long_contexts = sum(len(c) > LONG_CONTEXT for q in questions for c in q.contexts)
    return Imported(entries, places, unlabelled, long_contexts)


def _relevant(question: ForeignQuestion, sources: LabelSources) -> tuple[list[Any], str]:
    if not question.contexts:
        return [], "has no reference context"
    relevant: list[Any] = []
    for number, context in enumerate(question.contexts, start=1):
        labels = sources.labels_for(context)
        if not labels:
            return (
                [],
                f"reference context {number} ({_preview(context)}) is in no chunk or document",
            )
        relevant.extend(label for label in labels if label not in relevant)
    return relevant, ""


def _preview(text: str, width: int = 40) -> str:
    flat = " ".join(text.split())
    return json.dumps(flat if len(flat) <= width else flat[: width - 1] + "…", ensure_ascii=False)


def _entry(
    question_id: str, question: ForeignQuestion, relevant: list[Any], flavour: str
) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": question_id, "question": question.question}
    entry["relevant"] = relevant
    if question.reference_answer:
        entry["reference_answer"] = question.reference_answer
    entry["meta"] = {"imported_from": flavour, **question.meta}
    return entry


def question_ids(questions: Sequence[ForeignQuestion]) -> list[str]:
    """deepeval's names when all are given and distinct, else ids from the question text.

    Names that differ only in Unicode normalisation would be ids a test set refuses: the
    second one is an error in the imported file, before anything is written.
    """
    names = [q.name for q in questions]
    if all(names) and len(set(names)) == len(names):
        _refuse_normalisation_twins(questions)
        return [str(name) for name in names]
    ids: list[str] = []
    seen: dict[str, int] = {}
    for question in questions:
        base = "q-" + hashlib.sha1(question.question.encode()).hexdigest()[:10]
        seen[base] = seen.get(base, 0) + 1
        ids.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return ids


def _refuse_normalisation_twins(questions: Sequence[ForeignQuestion]) -> None:
    twins = same_after_normalising(str(q.name) for q in questions)
    if twins:
        second = next(q for q in questions if q.name == twins[1])
        raise second.where.error(
            f"names {twins[0]!r} and {twins[1]!r} differ only in Unicode normalisation (NFC) "
            "and would be two ids a test set refuses; write them the same way, or give them "
            "different names",
            key="name",
        )


def load_docs(folder: Path) -> dict[str, str]:
    """The UTF-8 text files under ``folder`` by path relative to it (``/`` separated);
    files that are not UTF-8 text (images, archives) are left out."""
    if not folder.is_dir():
        raise bad_path(folder, NotADirectoryError("not a folder"))
    docs: dict[str, str] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = path.relative_to(folder).as_posix()
        if SURROGATE.search(name):  # bytes that are not UTF-8: no label could name it
            raise InputError(path, "the file's name is not UTF-8 text; rename it")
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
