"""TREC run files, read and written the way trec_eval reads them.

``query_id Q0 doc_id rank score run_tag [ignored ...]`` per line; the rank column is
ignored, whatever it holds (trec_eval and pytrec_eval do not read it), and documents are
ordered by score descending, then doc id descending, as trec_eval does. Fields, numbers and the fast and exact readers are those of
:mod:`ragguard.testset.formats.trec`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, count, pairwise
from operator import gt, ne
from pathlib import Path
from typing import BinaryIO

from ragguard.core.bulk import collector_paused
from ragguard.core.errors import InputError
from ragguard.core.sources import check_is_file
from ragguard.results.chunks import Chunk
from ragguard.results.records import Run, RunRecord
from ragguard.testset.formats.trec import (
    ASCII_FIELDS,
    Unusual,
    empty_message,
    fast_text,
    plain_digits,
    read_blocks,
    read_lines,
    split_columns,
    text_lines,
    whole_file,
)

RUN_COLUMNS = 6

Ranking = tuple[str, ...]


def _score(text: str, source: str | Path, line: int) -> float:
    try:
        if "_" in text or not text.isascii():
            raise ValueError
        score = float(text)
    except ValueError:
        raise InputError(source, f"score must be a number, found {text!r}", line=line) from None
    if not math.isfinite(score):
        raise InputError(source, f"score must be a finite number, found {text!r}", line=line)
    return score


def load_trec_rankings(path: str | Path) -> dict[str, Ranking]:
    """A TREC run file as each query's document ids in trec_eval's order (scores dropped).

    The whole-file reader of ``ragguard score --trec-run``: fast on large files, and
    streaming (a block of lines at a time; a query's scores are dropped once it is ranked).
    """
    path = Path(path)
    rankings = whole_file(
        path,
        "run file",
        _fast_rankings,
        lambda: _exact_rankings(read_lines(path, "run file"), path),
    )
    if not rankings:
        raise InputError(path, empty_message("run file"))
    return rankings


def query_cuts(path: Path, parts: int) -> list[int]:
    """Byte offsets that cut the run file into up to ``parts`` pieces of about equal size,
    each cut at the start of a line whose query differs from the line before: ``[0, ...,
    size]``. Fewer pieces when one query's lines span a cut; a cut that guesses wrong (blank
    or unusual lines) is caught later, as a query found in two pieces."""
    with path.open("rb") as file:
        size = file.seek(0, 2)
        cuts = [0]
        for part in range(1, parts):
            cut = _next_query_start(file, max(part * size // parts, cuts[-1]))
            if cut is None:
                break
            if cut > cuts[-1]:
                cuts.append(cut)
    return [*cuts, size]


def _next_query_start(file: BinaryIO, offset: int) -> int | None:
    """The offset of the first line after ``offset`` whose query differs from the line
    before it, or None at the end of the file."""
    file.seek(offset)
    if offset:
        file.readline()  # the rest of the line the offset falls in
    query = None
    while True:
        start = file.tell()
        line = file.readline()
        if not line:
            return None
        fields = line.split(None, 1)
        if not fields:
            continue
        if query is not None and fields[0] != query:
            return start
        query = fields[0]


def rankings_between(path: Path, start: int, stop: int) -> dict[str, Ranking] | None:
    """The rankings of the queries whose lines lie from byte ``start`` to ``stop`` (see
    :func:`query_cuts`), by the fast reader; None when that piece needs the exact reader."""
    try:
        with collector_paused():
            return _fast_rankings(read_blocks(path, "run file", start, stop))
    except Unusual:
        return None


def _fast_rankings(blocks: Iterable[bytes]) -> dict[str, Ranking]:
    """Rankings of a run whose lines are grouped by query, as retrieval tools write them."""
    rankings: dict[str, Ranking] = {}
    query, docs, scores = None, [], []  # the query whose lines may go on in the next block
    for block in blocks:
        text = fast_text(block)
        queries, _, block_docs, ranks, texts, _ = split_columns(text, RUN_COLUMNS, more=True)
        values = _fast_scores(texts, plain=text.isascii() and "_" not in text)
        if not plain_digits(ranks):
            raise Unusual
        size = len(queries)
        starts = [0, *compress(count(1), map(ne, queries[1:], queries)), size]
        for start, end in pairwise(starts):
            if start == end:
                continue  # an empty block
            if queries[start] == query:
                docs += block_docs[start:end]
                scores += values[start:end]
                continue
            if query is not None:
                rankings[query] = _ranked(docs, scores)
            query, docs, scores = queries[start], list(block_docs[start:end]), values[start:end]
            if query in rankings:
                raise Unusual  # its lines are not together: the exact reader collects them
    if query is not None:
        rankings[query] = _ranked(docs, scores)
    return rankings


def _fast_scores(texts: Sequence[str], plain: bool) -> list[float]:
    """The scores; ``plain``: the block is ASCII without '_', which float() would accept in
    '1_0' or as non-ASCII digits, so each score need not be checked for them."""
    try:
        values = list(map(float, texts))
    except ValueError:
        raise Unusual from None
    if not plain:
        joined = "".join(texts)
        if "_" in joined or not joined.isascii():
            raise Unusual
    if not math.isfinite(sum(values)):
        raise Unusual
    return values


def _ranked(docs: list[str], scores: list[float]) -> Ranking:
    """The documents by score descending, then doc id descending (trec_eval's order)."""
    if len(set(docs)) != len(docs):
        raise Unusual  # a document twice: the exact reader names the line
    if all(map(gt, scores, scores[1:])):
        return tuple(docs)  # already in order, as retrievers write them
    return tuple(doc for _, doc in sorted(zip(scores, docs, strict=True), reverse=True))


def _exact_scores(
    lines: Iterable[tuple[int, str]], source: str | Path
) -> tuple[dict[str, dict[str, float]], dict[str, int]]:
    """Every query's {doc: score} and the line of its first document, line by line."""
    scored: dict[str, dict[str, float]] = {}
    first_line: dict[str, int] = {}
    for number, line in lines:
        fields = ASCII_FIELDS(line)
        if not fields:
            continue
        if len(fields) < RUN_COLUMNS:
            raise InputError(
                source,
                f"expected 6 columns 'query Q0 doc rank score tag', found {len(fields)}",
                line=number,
            )
        query, _, doc, _rank, score_text = fields[:5]
        score = _score(score_text, source, number)
        docs = scored.setdefault(query, {})
        if doc in docs:
            raise InputError(
                source,
                f"document {doc!r} appears twice in the ranking of query {query!r}",
                line=number,
            )
        docs[doc] = score
        first_line.setdefault(query, number)
    return scored, first_line


def _exact_rankings(lines: Iterable[tuple[int, str]], source: str | Path) -> dict[str, Ranking]:
    scored, _ = _exact_scores(lines, source)
    return {query: tuple(doc for doc, _ in _trec_sorted(docs)) for query, docs in scored.items()}


def _trec_sorted(docs: Mapping[str, float]) -> list[tuple[str, float]]:
    return sorted(docs.items(), key=_trec_order, reverse=True)


def _trec_order(item: tuple[str, float]) -> tuple[float, str]:
    doc, score = item
    return score, doc


def load_trec_run(path: str | Path) -> Run:
    """A TREC run as run records with scores (for ``--run`` next to a test set), read line by
    line: an error names the first line that is not text, or not a run line."""
    path = Path(path)
    check_is_file(path, "run file")
    run = _run_of(read_lines(path, "run file"), path)
    if not run.records:
        raise InputError(path, empty_message("run file"))
    return run


def parse_trec_run(text: str, source: str | Path) -> Run:
    """Run text as records with scores, line by line (see :func:`load_trec_rankings`)."""
    return _run_of(text_lines(text), source)


def _run_of(lines: Iterable[tuple[int, str]], source: str | Path) -> Run:
    scored, first_line = _exact_scores(lines, source)
    records = {
        query: RunRecord(
            id=query,
            retrieved=tuple(Chunk(doc, score=score) for doc, score in _trec_sorted(docs)),
        )
        for query, docs in scored.items()
    }
    return Run(records, source=str(source), lines=first_line)


def dump_trec_run(records: Iterable[RunRecord], tag: str = "ragguard") -> str:
    """Write rankings with scores that reproduce the rank order under trec_eval's sort."""
    lines = []
    for record in records:
        size = len(record.retrieved)
        for rank, chunk in enumerate(record.retrieved, start=1):
            lines.append(f"{record.id} Q0 {chunk.id} {rank} {size - rank + 1} {tag}\n")
    return "".join(lines)
