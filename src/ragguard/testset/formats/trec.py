"""TREC qrels and run files, read and written the way trec_eval reads them.

qrels: ``query_id iteration doc_id grade`` per line; a line starting with ``#`` is a comment.
run:   ``query_id Q0 doc_id rank score run_tag [ignored ...]`` per line; the rank column is
checked but ignored, and documents are ordered by score descending, then doc id descending,
as trec_eval does.

Fields are separated by ASCII whitespace only (space, tab, CR, VT, FF): any other character,
such as a no-break space, is part of an id. Grades and ranks are ASCII digits, optionally
signed; a negative grade means judged not relevant (read as 0). Scores are finite decimal
numbers (no ``1_0``, ``inf`` or ``nan``).

Speed: a large file is read in small blocks of whole lines; each block is split with C-level string
operations (``str.split`` per line through ``map``, columns by ``zip``) and checked in bulk.
A block with anything unusual in it (Unicode or control whitespace, too few columns, a bad
number, a document twice, a query whose lines are not together) sends the whole file through
the exact reader, line by line, which gives the error with its line or reads what the fast
reader would not (a run whose queries are interleaved). Both readers accept the same files
and give the same result.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import compress, count, pairwise
from operator import gt, ne
from pathlib import Path
from typing import BinaryIO, TypeVar

from ragguard.core.bulk import collector_paused
from ragguard.core.errors import InputError
from ragguard.core.sources import read_text
from ragguard.results.records import Chunk, Run, RunRecord
from ragguard.testset.model import MAX_GRADE, Question, TestSet, too_high_grade

# Whole lines are read 16 KiB at a time: small enough that a block's fields stay in the
# CPU cache across the passes over them (measured 2.4x faster than 1 MiB blocks).
BLOCK_BYTES = 1 << 14
INT_DIGITS = 4300  # Python's default limit on the digits of int(text)

_ASCII_FIELDS = re.compile(r"[^ \t\n\r\x0b\x0c]+").findall
_SIGNED_INTEGER = re.compile(r"[+-]?[0-9]+").fullmatch
# What str.split() takes for whitespace but trec_eval (C isspace) does not: the four ASCII
# separators, and Unicode spaces (tests/formats/test_trec.py checks this list is complete).
CONTROL_SPACES = "\x1c\x1d\x1e\x1f"
UNICODE_SPACES = (
    "\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_CONTROL_BYTES = tuple(space.encode() for space in CONTROL_SPACES)
# The UTF-8 of the Unicode spaces, by their first two or three bytes: b"\xe2\x80" also
# starts other characters (dashes, quotes), which only cost the exact reader.
_UNICODE_BYTES = (
    b"\xc2\x85",
    b"\xc2\xa0",
    b"\xe1\x9a\x80",
    b"\xe2\x80",
    b"\xe2\x81\x9f",
    b"\xe3\x80\x80",
)

RUN_COLUMNS = 6
QRELS_COLUMNS = 4

Ranking = tuple[str, ...]
T = TypeVar("T")


class _Unusual(Exception):
    """Raised by a fast reader when a block needs the exact, line-by-line reader."""


# --- reading a file ------------------------------------------------------------------------


def _open_checked(path: Path, what: str) -> None:
    if not path.exists():
        raise InputError(path, f"{what} not found; check the path")
    if path.is_dir():
        raise InputError(path, f"is a directory, expected a {what}")


def _blocks(path: Path, what: str, start: int = 0, stop: int | None = None) -> Iterator[bytes]:
    """The file's bytes in blocks of whole lines (a BOM at the start is dropped); from byte
    ``start`` (a line's start) to ``stop`` (a line's start, or the end)."""
    try:
        with path.open("rb") as file:
            left = (file.seek(0, 2) if stop is None else stop) - start
            file.seek(start)
            rest = b""
            more = file.read(min(BLOCK_BYTES, left))
            if not start:
                more = more.removeprefix(b"\xef\xbb\xbf")
            while more:
                left -= len(more)
                end = more.rfind(b"\n")
                if end < 0:  # no line ends in this read: keep reading
                    rest += more
                else:
                    yield rest + more[: end + 1]
                    rest = more[end + 1 :]
                more = file.read(min(BLOCK_BYTES, left))
            if rest:
                yield rest
    except OSError as exc:
        raise InputError(path, f"cannot read the {what}: {exc.strerror or exc}") from None


def _lines(path: Path, what: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line, decoded from UTF-8; an undecodable line is an error."""
    number = 0
    for block in _blocks(path, what):
        for raw in block.split(b"\n"):
            number += 1
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(
                    path,
                    f"not UTF-8 (byte 0x{raw[exc.start]:02x}); save the file as UTF-8",
                    line=number,
                ) from None
        number -= 1  # the block ends with a newline: its last, empty piece is no line


def _text_lines(text: str) -> Iterator[tuple[int, str]]:
    return enumerate(text.split("\n"), start=1)


def _fast_text(block: bytes) -> str:
    """The block as text for the fast reader, whose ``str.split`` must split exactly where
    trec_eval does; unusual whitespace or bad UTF-8 is `_Unusual`."""
    needles = _CONTROL_BYTES if block.isascii() else _CONTROL_BYTES + _UNICODE_BYTES
    if any(needle in block for needle in needles):
        raise _Unusual
    try:
        return block.decode("utf-8")
    except UnicodeDecodeError:
        raise _Unusual from None


def _columns(text: str, columns: int, more: bool = False) -> list[Sequence[str]]:
    """The first ``columns`` fields of every non-blank line, as one sequence per column.
    A line with fewer fields is `_Unusual`, and with more unless ``more`` (ignored then)."""
    if "\0" not in text:  # the usual block: every line has its fields, and a newline
        fields = text.replace("\n", " \0 ").split()  # "\0" marks each line's end
        width = columns + 1
        if len(fields) % width == 0 and fields[columns::width].count("\0") * width == len(fields):
            return [fields[column::width] for column in range(columns)]
    lines = text.split("\n")
    if not lines[-1]:
        lines.pop()  # the block ends with a newline
    rows = list(map(str.split, lines))
    lengths = set(map(len, rows))
    if lengths != {columns}:
        found = lengths - {0}
        if min(found, default=columns) < columns or (not more and max(found, default=0) > columns):
            raise _Unusual
        rows = [row for row in rows if row]
        if not rows:
            return [() for _ in range(columns)]
    return list(zip(*rows, strict=False))[:columns]


def _plain_digits(texts: Sequence[str]) -> bool:
    """Every text is unsigned ASCII digits within Python's int limit."""
    joined = "".join(texts)
    if not (joined.isascii() and joined.isdigit()):
        return False
    return len(joined) <= INT_DIGITS or max(map(len, texts)) <= INT_DIGITS


def _whole_file(
    path: Path, what: str, fast: Callable[[Iterable[bytes]], T], exact: Callable[[], T]
) -> T:
    """The fast reader's result, or the exact reader's when the file is unusual anywhere;
    running out of memory is a one-line error naming the file."""
    _open_checked(path, what)
    try:
        with collector_paused():
            try:
                return fast(_blocks(path, what))
            except _Unusual:
                return exact()
    except MemoryError:
        raise InputError(
            path,
            f"out of memory reading the {what}; split it into smaller files or give the job more memory",
        ) from None


def _empty(what: str) -> str:
    return f"{what} is empty (or only whitespace and comments); check the path or fill it in"


# --- numbers ------------------------------------------------------------------------------------


def _integer(text: str, name: str, source: str | Path, line: int) -> int:
    if not _SIGNED_INTEGER(text):
        raise InputError(
            source, f"{name} must be a whole number in ASCII digits, found {text!r}", line=line
        )
    if len(text.lstrip("+-")) > INT_DIGITS:
        raise InputError(
            source,
            f"{name} has {len(text.lstrip('+-')):,} digits, more than the {INT_DIGITS:,} "
            "a number may have; check the column",
            line=line,
        )
    return int(text)


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


# --- qrels --------------------------------------------------------------------------------------


def load_qrels(path: str | Path) -> TestSet:
    """Read TREC qrels as a test set whose questions have no text.

    A query whose judgments are all 0 (or negative) is a question with no relevant chunk:
    it scores 0 and is counted, as trec_eval and pytrec_eval do (see
    :func:`no_relevant_warning`).
    """
    path = Path(path)
    labels = _whole_file(
        path,
        "qrels file",
        _fast_qrels,
        lambda: _exact_qrels(_lines(path, "qrels file"), path),
    )
    if not labels:
        raise InputError(path, _empty("qrels file"))
    return testset_from_labels(labels, {}, path)


def parse_qrels(text: str, source: str | Path) -> dict[str, dict[str, int]]:
    """Qrels text as {query: {doc: grade}}, line by line (see :func:`load_qrels` for files)."""
    return _exact_qrels(_text_lines(text), source)


def _fast_qrels(blocks: Iterable[bytes]) -> dict[str, dict[str, int]]:
    labels: dict[str, dict[str, int]] = {}
    for block in blocks:
        text = _fast_text(block)
        if "#" in text:
            raise _Unusual  # comment lines (or '#' in an id): the exact reader knows which
        queries, _, docs, grades = _columns(text, QRELS_COLUMNS)
        if not _plain_digits(grades):
            raise _Unusual
        for query, doc, grade in zip(queries, docs, map(int, grades), strict=True):
            judged = labels.setdefault(query, {})
            if doc in judged or grade > MAX_GRADE:
                raise _Unusual
            judged[doc] = grade
    return labels


def _exact_qrels(lines: Iterable[tuple[int, str]], source: str | Path) -> dict[str, dict[str, int]]:
    labels: dict[str, dict[str, int]] = {}
    for number, line in lines:
        if line.startswith("#"):
            continue
        fields = _ASCII_FIELDS(line)
        if not fields:
            continue
        if len(fields) != QRELS_COLUMNS:
            raise InputError(
                source,
                f"expected 4 columns 'query iteration doc grade', found {len(fields)}",
                line=number,
            )
        query, _, doc, grade_text = fields
        grade = _integer(grade_text, "grade", source, number)
        if grade > MAX_GRADE:
            raise InputError(source, too_high_grade(doc, grade), line=number)
        judged = labels.setdefault(query, {})
        if doc in judged:
            raise InputError(
                source, f"document {doc!r} is judged twice for query {query!r}", line=number
            )
        judged[doc] = max(grade, 0)  # a negative grade is judged not relevant
    return labels


def testset_from_labels(
    labels: Mapping[str, Mapping[str, int]],
    texts: Mapping[str, str],
    source: str | Path,
) -> TestSet:
    """Every judged query is a question, those whose judgments are all 0 included: trec_eval
    scores them 0 and counts them, and so does ragguard (see :func:`no_relevant_warning`)."""
    questions = [
        Question(id=query, question=texts.get(query, ""), relevant=dict(judged))
        for query, judged in labels.items()
    ]
    if not any(question.has_relevant for question in questions):
        raise InputError(
            source, "no query has a relevant document (grade >= 1); check the grade column"
        )
    return TestSet(tuple(questions), source=str(source))


def no_relevant_warning(testset: TestSet) -> str | None:
    """The one-line notice for judged queries with no relevant document, or None."""
    count = sum(1 for question in testset if not question.has_relevant)
    if not count:
        return None
    return (
        f"{testset.source}: {count} quer{'y has' if count == 1 else 'ies have'} no relevant "
        f"document; {'it scores' if count == 1 else 'they score'} 0 on every retrieval metric "
        f"and {'is' if count == 1 else 'are'} counted, as trec_eval does"
    )


def unjudged_warning(source: str | Path, rankings: Iterable[str], testset: TestSet) -> str | None:
    """The one-line warning for run queries the qrels do not judge (trec_eval ignores them)."""
    known = testset.known_ids
    count = sum(1 for query in rankings if query not in known)
    if not count:
        return None
    return (
        f"{source}: {count:,} quer{'y' if count == 1 else 'ies'} of the run "
        f"{'is' if count == 1 else 'are'} not in the qrels and not scored, as trec_eval does"
    )


# --- runs ---------------------------------------------------------------------------------------


def load_trec_rankings(path: str | Path) -> dict[str, Ranking]:
    """A TREC run file as each query's document ids in trec_eval's order (scores dropped).

    The whole-file reader of ``ragguard score --trec-run``: fast on large files, and
    streaming (a block of lines at a time; a query's scores are dropped once it is ranked).
    """
    path = Path(path)
    rankings = _whole_file(
        path, "run file", _fast_rankings, lambda: _exact_rankings(_lines(path, "run file"), path)
    )
    if not rankings:
        raise InputError(path, _empty("run file"))
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
            return _fast_rankings(_blocks(path, "run file", start, stop))
    except _Unusual:
        return None


def _fast_rankings(blocks: Iterable[bytes]) -> dict[str, Ranking]:
    """Rankings of a run whose lines are grouped by query, as retrieval tools write them."""
    rankings: dict[str, Ranking] = {}
    query, docs, scores = None, [], []  # the query whose lines may go on in the next block
    for block in blocks:
        text = _fast_text(block)
        queries, _, block_docs, ranks, texts, _ = _columns(text, RUN_COLUMNS, more=True)
        values = _fast_scores(texts, plain=text.isascii() and "_" not in text)
        if not _plain_digits(ranks):
            raise _Unusual
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
                raise _Unusual  # its lines are not together: the exact reader collects them
    if query is not None:
        rankings[query] = _ranked(docs, scores)
    return rankings


def _fast_scores(texts: Sequence[str], plain: bool) -> list[float]:
    """The scores; ``plain``: the block is ASCII without '_', which float() would accept in
    '1_0' or as non-ASCII digits, so each score need not be checked for them."""
    try:
        values = list(map(float, texts))
    except ValueError:
        raise _Unusual from None
    if not plain:
        joined = "".join(texts)
        if "_" in joined or not joined.isascii():
            raise _Unusual
    if not math.isfinite(sum(values)):
        raise _Unusual
    return values


def _ranked(docs: list[str], scores: list[float]) -> Ranking:
    """The documents by score descending, then doc id descending (trec_eval's order)."""
    if len(set(docs)) != len(docs):
        raise _Unusual  # a document twice: the exact reader names the line
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
        fields = _ASCII_FIELDS(line)
        if not fields:
            continue
        if len(fields) < RUN_COLUMNS:
            raise InputError(
                source,
                f"expected 6 columns 'query Q0 doc rank score tag', found {len(fields)}",
                line=number,
            )
        query, _, doc, rank, score_text = fields[:5]
        _integer(rank, "rank", source, number)
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
    """A TREC run as run records with scores (for ``--run`` next to a test set)."""
    path = Path(path)
    return parse_trec_run(read_text(path, what="run file"), path)


def parse_trec_run(text: str, source: str | Path) -> Run:
    """Run text as records with scores, line by line (see :func:`load_trec_rankings`)."""
    scored, first_line = _exact_scores(_text_lines(text), source)
    records = {
        query: RunRecord(
            id=query,
            retrieved=tuple(Chunk(doc, score=score) for doc, score in _trec_sorted(docs)),
        )
        for query, docs in scored.items()
    }
    return Run(records, source=str(source), lines=first_line)


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
