"""TREC qrels, read and written the way trec_eval reads them, and the file reading they
share with TREC run files (:mod:`ragguard.testset.formats.trec_runs`).

qrels: ``query_id iteration doc_id grade`` per line; a line starting with ``#`` is a comment.
run:   ``query_id Q0 doc_id rank score run_tag [ignored ...]`` per line (``trec_runs.py``).

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

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from ragguard.core.bulk import collector_paused
from ragguard.core.errors import InputError
from ragguard.testset.model import MAX_GRADE, Question, TestSet, too_high_grade

# Whole lines are read 16 KiB at a time: small enough that a block's fields stay in the
# CPU cache across the passes over them (measured 2.4x faster than 1 MiB blocks).
BLOCK_BYTES = 1 << 14
INT_DIGITS = 4300  # Python's default limit on the digits of int(text)

ASCII_FIELDS = re.compile(r"[^ \t\n\r\x0b\x0c]+").findall
_SIGNED_INTEGER = re.compile(r"[+-]?[0-9]+").fullmatch
# What str.split() takes for whitespace but trec_eval (C isspace) does not: the four ASCII
# separators, and Unicode spaces (tests/formats/test_trec.py checks this list is complete).
CONTROL_SPACES = "\x1c\x1d\x1e\x1f"
UNICODE_SPACES = (
    "\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_CONTROL_BYTES = (b"\0", *(space.encode() for space in CONTROL_SPACES))  # NUL: not text
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
QRELS_COLUMNS = 4

T = TypeVar("T")


class Unusual(Exception):
    """Raised by a fast reader when a block needs the exact, line-by-line reader."""


# --- reading a file ------------------------------------------------------------------------


def _open_checked(path: Path, what: str) -> None:
    if not path.exists():
        raise InputError(path, f"{what} not found; check the path")
    if path.is_dir():
        raise InputError(path, f"is a directory, expected a {what}")


def read_blocks(path: Path, what: str, start: int = 0, stop: int | None = None) -> Iterator[bytes]:
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


def read_lines(path: Path, what: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line, decoded from UTF-8; the first line that is not
    text (undecodable bytes, or a NUL byte as in a binary or UTF-16 file) is an error."""
    number = 0
    for block in read_blocks(path, what):
        for raw in block.split(b"\n"):
            number += 1
            if b"\0" in raw:
                raise InputError(
                    path,
                    "a NUL byte: not a text file (binary, or UTF-16?); give the "
                    f"{what} as UTF-8 text",
                    line=number,
                )
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(
                    path,
                    f"not UTF-8 (byte 0x{raw[exc.start]:02x}); save the file as UTF-8",
                    line=number,
                ) from None
        number -= 1  # the block ends with a newline: its last, empty piece is no line


def text_lines(text: str) -> Iterator[tuple[int, str]]:
    return enumerate(text.split("\n"), start=1)


def fast_text(block: bytes) -> str:
    """The block as text for the fast reader, whose ``str.split`` must split exactly where
    trec_eval does; unusual whitespace, a NUL byte or bad UTF-8 is `Unusual` (the exact
    reader names the first line that is not text)."""
    needles = _CONTROL_BYTES if block.isascii() else _CONTROL_BYTES + _UNICODE_BYTES
    if any(needle in block for needle in needles):
        raise Unusual
    try:
        return block.decode("utf-8")
    except UnicodeDecodeError:
        raise Unusual from None


def split_columns(text: str, columns: int, more: bool = False) -> list[Sequence[str]]:
    """The first ``columns`` fields of every non-blank line, as one sequence per column.
    A line with fewer fields is `Unusual`, and with more unless ``more`` (ignored then)."""
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
            raise Unusual
        rows = [row for row in rows if row]
        if not rows:
            return [() for _ in range(columns)]
    return list(zip(*rows, strict=False))[:columns]


def plain_digits(texts: Sequence[str]) -> bool:
    """Every text is unsigned ASCII digits within Python's int limit."""
    joined = "".join(texts)
    if not (joined.isascii() and joined.isdigit()):
        return False
    return len(joined) <= INT_DIGITS or max(map(len, texts)) <= INT_DIGITS


def whole_file(
    path: Path, what: str, fast: Callable[[Iterable[bytes]], T], exact: Callable[[], T]
) -> T:
    """The fast reader's result, or the exact reader's when the file is unusual anywhere;
    running out of memory is a one-line error naming the file."""
    _open_checked(path, what)
    try:
        with collector_paused():
            try:
                return fast(read_blocks(path, what))
            except Unusual:
                return exact()
    except MemoryError:
        raise InputError(
            path,
            f"out of memory reading the {what}; split it into smaller files or give the job more memory",
        ) from None


def empty_message(what: str) -> str:
    return f"{what} is empty (or only whitespace and comments); check the path or fill it in"


# --- numbers ------------------------------------------------------------------------------------


def whole_number(text: str, name: str, source: str | Path, line: int) -> int:
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


# --- qrels --------------------------------------------------------------------------------------


def load_qrels(path: str | Path) -> TestSet:
    """Read TREC qrels as a test set whose questions have no text.

    A query whose judgments are all 0 (or negative) is a question with no relevant chunk:
    it scores 0 and is counted, as trec_eval and pytrec_eval do (see
    :func:`no_relevant_warning`).
    """
    path = Path(path)
    labels = whole_file(
        path,
        "qrels file",
        _fast_qrels,
        lambda: _exact_qrels(read_lines(path, "qrels file"), path),
    )
    if not labels:
        raise InputError(path, empty_message("qrels file"))
    return testset_from_labels(labels, {}, path)


def parse_qrels(text: str, source: str | Path) -> dict[str, dict[str, int]]:
    """Qrels text as {query: {doc: grade}}, line by line (see :func:`load_qrels` for files)."""
    return _exact_qrels(text_lines(text), source)


def _fast_qrels(blocks: Iterable[bytes]) -> dict[str, dict[str, int]]:
    labels: dict[str, dict[str, int]] = {}
    for block in blocks:
        text = fast_text(block)
        if "#" in text:
            raise Unusual  # comment lines (or '#' in an id): the exact reader knows which
        queries, _, docs, grades = split_columns(text, QRELS_COLUMNS)
        if not plain_digits(grades):
            raise Unusual
        for query, doc, grade in zip(queries, docs, map(int, grades), strict=True):
            judged = labels.setdefault(query, {})
            if doc in judged or grade > MAX_GRADE:
                raise Unusual
            judged[doc] = grade
    return labels


def _exact_qrels(lines: Iterable[tuple[int, str]], source: str | Path) -> dict[str, dict[str, int]]:
    labels: dict[str, dict[str, int]] = {}
    for number, line in lines:
        if line.startswith("#"):
            continue
        fields = ASCII_FIELDS(line)
        if not fields:
            continue
        if len(fields) != QRELS_COLUMNS:
            raise InputError(
                source,
                f"expected 4 columns 'query iteration doc grade', found {len(fields)}",
                line=number,
            )
        query, _, doc, grade_text = fields
        grade = whole_number(grade_text, "grade", source, number)
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


def dump_qrels(questions: Iterable[Question]) -> str:
    return "".join(
        f"{q.id} 0 {doc} {grade}\n" for q in questions for doc, grade in q.relevant.items()
    )
