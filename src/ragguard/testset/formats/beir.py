"""BEIR folders: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import ascii_int, iter_jsonl_objects, read_text, split_lines
from ragguard.results.records import load_corpus
from ragguard.testset.formats.trec import testset_from_labels
from ragguard.testset.model import MAX_GRADE, TestSet, too_high_grade


def load_beir(folder: str | Path, split: str | None = None) -> TestSet:
    """Read a BEIR folder's queries and the qrels of one split as a test set."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(folder, "BEIR folder not found; pass the folder holding queries.jsonl")
    qrels_path = _qrels_path(folder, split)
    texts = _queries(folder / "queries.jsonl")
    labels = _parse_beir_qrels(read_text(qrels_path, what="qrels file"), qrels_path, texts)
    testset = testset_from_labels(labels, texts, qrels_path)
    return replace(testset, unjudged=frozenset(texts) - frozenset(labels))


def load_beir_corpus(folder: str | Path) -> dict[str, str]:
    return load_corpus(Path(folder) / "corpus.jsonl")


def _qrels_path(folder: Path, split: str | None) -> Path:
    qrels = folder / "qrels"
    if split:
        path = qrels / f"{split}.tsv"
        if not path.is_file():
            found = ", ".join(c.stem for c in sorted(qrels.glob("*.tsv"))) or "none"
            raise InputError(path, f"split {split!r} not found; splits in {qrels}: {found}")
        return path
    candidates = sorted(qrels.glob("*.tsv")) if qrels.is_dir() else []
    if not candidates:
        raise InputError(qrels, "no qrels/*.tsv file; a BEIR folder needs qrels/test.tsv")
    if len(candidates) == 1:
        return candidates[0]
    test = qrels / "test.tsv"
    if test.exists():
        return test
    names = ", ".join(c.stem for c in candidates)
    raise InputError(qrels, f"several splits ({names}); choose one with --split")


def _parse_beir_qrels(
    text: str, source: Path, texts: Mapping[str, str]
) -> dict[str, dict[str, int]]:
    labels: dict[str, dict[str, int]] = {}
    for number, line in enumerate(split_lines(text), start=1):
        fields = line.rstrip("\n").split("\t")
        if not line.strip():
            continue
        if number == 1 and fields[0].strip().lower() in ("query-id", "query_id", "qid"):
            continue
        where = Where(source, number)
        if len(fields) != 3:
            raise where.error(
                f"expected 3 tab-separated columns 'query-id corpus-id score', found {len(fields)}"
            )
        query, doc, grade_text = (field.strip() for field in fields)
        if query not in texts:
            raise where.error(f"query {query!r} is not in queries.jsonl; the folder is incomplete")
        grade = ascii_int(grade_text)
        if grade is None or grade < 0:
            raise where.error(f"score must be a non-negative integer, found {grade_text!r}")
        if grade > MAX_GRADE:
            raise where.error(too_high_grade(doc, grade))
        judged = labels.setdefault(query, {})
        if doc in judged:
            raise where.error(f"document {doc!r} is judged twice for query {query!r}")
        judged[doc] = grade
    return labels


def _queries(path: Path) -> dict[str, str]:
    texts: dict[str, str] = {}
    for number, obj in iter_jsonl_objects(read_text(path, what="queries file"), path):
        query = obj.get("_id", obj.get("id"))
        text = obj.get("text")
        if (
            not isinstance(query, (str, int))
            or isinstance(query, bool)
            or not isinstance(text, str)
        ):
            raise Where(path, number).error("each query needs '_id' and 'text'")
        if str(query) in texts:
            raise Where(path, number).error(f"duplicate query id {str(query)!r}", key="_id")
        texts[str(query)] = text
    return texts
