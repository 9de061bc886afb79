"""TREC qrels and run files, read and written the way trec_eval reads them.

qrels: ``query_id iteration doc_id grade`` per line.
run:   ``query_id Q0 doc_id rank score run_tag`` per line; the rank column is ignored and
documents are ordered by score descending, then doc id descending, as trec_eval does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path

from ragguard.errors import InputError, Where
from ragguard.runs import Chunk, Run, RunRecord
from ragguard.sources import ascii_int, read_text, split_lines
from ragguard.testset import MAX_GRADE, Question, TestSet, too_high_grade


def load_qrels(path: str | Path) -> TestSet:
    """Read TREC qrels as a test set whose questions have no text.

    Queries without any relevant document are skipped, as trec_eval skips them; their ids
    are in the test set's ``skipped`` (see :func:`skipped_warning`).
    """
    path = Path(path)
    labels = parse_qrels(read_text(path, what="qrels file"), path)
    return testset_from_labels(labels, {}, path)


def parse_qrels(text: str, source: str | Path) -> dict[str, dict[str, int]]:
    labels: dict[str, dict[str, int]] = {}
    for number, line in enumerate(split_lines(text), start=1):
        fields = line.split()
        if not fields:
            continue
        where = Where(source, number)
        if len(fields) != 4:
            raise where.error(
                f"expected 4 columns 'query iteration doc grade', found {len(fields)}"
            )
        query, _, doc, grade_text = fields
        grade = _grade(grade_text, doc, where)
        judged = labels.setdefault(query, {})
        if doc in judged:
            raise where.error(f"document {doc!r} is judged twice for query {query!r}")
        judged[doc] = grade
    return labels


def _grade(text: str, doc: str, where: Where) -> int:
    grade = ascii_int(text)
    if grade is None or grade < 0:
        raise where.error(f"grade must be a non-negative integer (0, 1, 2, ...), found {text!r}")
    if grade > MAX_GRADE:
        raise where.error(too_high_grade(doc, grade))
    return grade


def testset_from_labels(
    labels: Mapping[str, Mapping[str, int]],
    texts: Mapping[str, str],
    source: str | Path,
) -> TestSet:
    questions = [
        Question(id=query, question=texts.get(query, ""), relevant=dict(judged))
        for query, judged in labels.items()
        if any(grade >= 1 for grade in judged.values())
    ]
    skipped = frozenset(labels) - {question.id for question in questions}
    if not questions:
        raise InputError(
            source, "no query has a relevant document (grade >= 1); check the grade column"
        )
    return TestSet(tuple(questions), source=str(source), skipped=skipped)


def skipped_warning(testset: TestSet) -> str | None:
    """The one-line warning for queries judged but skipped, or None when there are none."""
    count = len(testset.skipped)
    if not count:
        return None
    return (
        f"{testset.source}: {count} quer{'y has' if count == 1 else 'ies have'} no relevant "
        f"document and {'is' if count == 1 else 'are'} skipped, as trec_eval does"
    )


def load_trec_run(path: str | Path) -> Run:
    path = Path(path)
    return parse_trec_run(read_text(path, what="run file"), path)


def parse_trec_run(text: str, source: str | Path) -> Run:
    scored: dict[str, dict[str, float]] = {}
    first_line: dict[str, int] = {}
    for number, line in enumerate(split_lines(text), start=1):
        fields = line.split()
        if not fields:
            continue
        where = Where(source, number)
        if len(fields) != 6:
            raise where.error(
                f"expected 6 columns 'query Q0 doc rank score tag', found {len(fields)}"
            )
        query, _, doc, _, score_text, _ = fields
        try:
            score = float(score_text)
        except ValueError:
            raise where.error(f"score must be a number, found {score_text!r}") from None
        if not math.isfinite(score):
            raise where.error(f"score must be a finite number, found {score_text!r}")
        docs = scored.setdefault(query, {})
        if doc in docs:
            raise where.error(f"document {doc!r} appears twice in the ranking of query {query!r}")
        docs[doc] = score
        first_line.setdefault(query, number)
    records = {
        query: RunRecord(
            id=query,
            retrieved=tuple(
                Chunk(doc, score=score)
                for doc, score in sorted(docs.items(), key=_trec_order, reverse=True)
            ),
        )
        for query, docs in scored.items()
    }
    return Run(records, source=str(source), lines=first_line)


def _trec_order(item: tuple[str, float]) -> tuple[float, str]:
    doc, score = item
    return score, doc


def dump_qrels(questions: Iterable[Question]) -> str:
    return "".join(
        f"{q.id} 0 {doc} {grade}\n" for q in questions for doc, grade in q.relevant.items()
    )


def dump_trec_run(records: Iterable[RunRecord], tag: str = "ragguard") -> str:
    """Write rankings with scores that reproduce the rank order under trec_eval's sort."""
    lines = []
    for record in records:
        size = len(record.retrieved)
        for rank, chunk in enumerate(record.retrieved, start=1):
            lines.append(f"{record.id} Q0 {chunk.id} {rank} {size - rank + 1} {tag}\n")
    return "".join(lines)
