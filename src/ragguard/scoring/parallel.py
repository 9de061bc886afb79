"""Scoring a large TREC run in parts, one process a part.

Nearly all of ``ragguard score --trec-run``'s time on a large run is Python work in one
thread: reading the run (about three fifths), scoring (a quarter) and encoding the results
lines. On a machine with two or more cores, the run file is cut at query boundaries into
parts of about equal size (:func:`~ragguard.testset.formats.trec_runs.query_cuts`); a forked
child reads, scores and encodes each part but the first, which this process does meanwhile.
Each child sends back, through a pipe, the run's query ids in its part and, for each question
it scored, its position, metric values, judgments, fingerprint and results line; this process
rebuilds those questions (:func:`~ragguard.scoring.score.ranked_result`), their ids kept as the
text of their line until used, and writes every line as the process that scored it encoded
it.

The result is the single-process result, byte for byte (tests/test_parallel_scoring.py). Any
doubt goes back to the single-process path, which reads the whole file again and names any
error with its line: a part that needs the exact reader, a query whose lines fall in two
parts, a child that fails or is killed. No fork (Windows, macOS), one core, or a small file:
one process, as before.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from ragguard.core.bulk import collector_paused
from ragguard.metrics.names import MetricSpec
from ragguard.results.layout import plain_ids, question_line
from ragguard.results.lines import RETRIEVED, LazyIds
from ragguard.results.model import QuestionResult, Results
from ragguard.scoring.score import ranked_result, results_of, score_ranked
from ragguard.testset.formats.trec_runs import Ranking, query_cuts, rankings_between
from ragguard.testset.model import TestSet

# A part smaller than this is not worth a process: forking and sending back cost a few
# milliseconds, and a run file of 8 MiB takes about half a second to read and score.
PART_BYTES = 4 << 20
MAX_PROCESSES = 8


@dataclass(frozen=True)
class ScoredRun:
    """A run scored in parts: the results, their lines already encoded (by position, for
    :func:`~ragguard.results.io.write_results`), and every query id the run holds."""

    results: Results
    lines: dict[int, str] = field(default_factory=dict)
    run_queries: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Part:
    """What a child sends back: its part's query ids, and per question it scored (position,
    metric values, judgments, label fingerprint, line, and its ids unless the line holds
    them plainly). The fingerprint is sent as computed: hashing it again here would cost
    about as much as rebuilding the question."""

    queries: list[str]
    scored: list[tuple[int, dict[str, float], dict[str, int], str, str, Ranking | None]]


def available_processes() -> int:
    """The cores this process may run on (1 where that cannot be known, or fork is missing)."""
    if not hasattr(os, "fork") or not hasattr(os, "sched_getaffinity"):
        return 1
    return len(os.sched_getaffinity(0))


def planned_parts(
    path: Path, processes: int | None, cut: Callable[[Path, int], list[int]] = query_cuts
) -> list[int] | None:
    """The byte offsets of the parts (see
    :func:`~ragguard.testset.formats.trec_runs.query_cuts`), or None when one process does it:
    ``processes`` 1, one core, or a file too small to split."""
    wanted = available_processes() if processes is None else processes
    if wanted > 1 and available_processes() == 1:
        return None  # no fork here
    try:
        size = path.stat().st_size
    except OSError:
        return None  # the reader names the error
    parts = min(wanted, MAX_PROCESSES, size // PART_BYTES)
    if parts < 2:
        return None
    cuts = cut(path, parts)
    return cuts if len(cuts) > 2 else None


def score_run_in_parts(
    testset: TestSet,
    path: Path,
    cuts: Sequence[int],
    specs: Sequence[MetricSpec],
    *,
    suite: str,
    git: dict[str, str | None] | None = None,
    created_at: str | None = None,
) -> ScoredRun | None:
    """The run scored in the parts ``cuts`` gives, or None when the single-process path must
    do it (see the module's docstring; also when out of memory, which that path reports
    naming the file, or when the system refuses a fork).
    Retrieval metrics only, without a corpus."""
    try:
        return _score_in_parts(testset, path, cuts, specs, suite, git, created_at)
    except (MemoryError, OSError):  # OSError: the system refused a fork or a pipe
        return None


def _score_in_parts(
    testset: TestSet,
    path: Path,
    cuts: Sequence[int],
    specs: Sequence[MetricSpec],
    suite: str,
    git: dict[str, str | None] | None,
    created_at: str | None,
) -> ScoredRun | None:
    sys.stdout.flush()
    sys.stderr.flush()

    def work(start: int, stop: int) -> _Part | None:
        return _score_part(testset, path, start, stop, specs)

    with collector_paused(), forked_parts(work, cuts[1:]) as children:
        own = rankings_between(path, cuts[0], cuts[1])
        if own is None:
            return None
        positions = {question.id: index for index, question in enumerate(testset)}
        scored = {
            positions[query]: score_ranked(testset.questions[positions[query]], ranking, specs)
            for query, ranking in own.items()
            if query in positions
        }
        own_lines = {index: question_line(result) for index, result in scored.items()}
        parts = [received(child) for child in children]
        parts = [part if isinstance(part, _Part) else None for part in parts]
        if any(part is None for part in parts):
            return None
        queries = [*own, *(query for part in parts if part for query in part.queries)]
        if len(set(queries)) != len(queries):
            return None  # a query's lines in two parts: the exact reader collects them
        lines = own_lines | _add_parts(scored, testset, [part for part in parts if part])
        questions = tuple(
            scored[index] if index in scored else score_ranked(question, None, specs)
            for index, question in enumerate(testset)
        )
    names = tuple(spec.name for spec in specs)
    return ScoredRun(
        results_of(questions, names, suite, {}, git, created_at), lines, tuple(queries)
    )


def _add_parts(
    scored: dict[int, QuestionResult], testset: TestSet, parts: list[_Part]
) -> dict[int, str]:
    """Rebuild the children's questions into ``scored``; their lines by position."""
    lines: dict[int, str] = {}
    for part in parts:
        for index, values, judgments, fingerprint, line, ranking in part.scored:
            ids = ids_of_line(line) if ranking is None else ranking
            question = testset.questions[index]
            scored[index] = ranked_result(question, values, ids, judgments, fingerprint)
            lines[index] = line
    return lines


def ids_of_line(line: str) -> LazyIds:
    """The ids a plain line ends with (``..., "retrieved": ["a", "b"]}``), split on first use."""
    start = line.rindex(RETRIEVED) + len(RETRIEVED)
    return LazyIds(line, start, len(line) - 1)


@dataclass
class _Child:
    pid: int
    reader: int
    done: bool = False


PartWork = Callable[[int, int], Any]


@contextmanager
def forked_parts(work: PartWork, cuts: Sequence[int]) -> Iterator[list[_Child]]:
    """A forked child per part (``cuts``: their starts, then the end), each sending back
    ``work(start, stop)`` through a pipe (:func:`received`); on leaving, any child still
    running is killed, and every child is waited for."""
    children: list[_Child] = []
    try:
        for start, stop in pairwise(cuts):
            children.append(_fork(work, start, stop))
        yield children
    finally:
        for child in children:
            if not child.done:
                with suppress(OSError):
                    os.kill(child.pid, signal.SIGKILL)
            with suppress(OSError):
                os.close(child.reader)
            with suppress(ChildProcessError):
                os.waitpid(child.pid, 0)


def _fork(work: PartWork, start: int, stop: int) -> _Child:
    reader, writer = os.pipe()
    pid = os.fork()
    if pid:
        os.close(writer)
        return _Child(pid, reader)
    code = 1
    try:  # the child: never returns into the caller's code
        os.close(reader)
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: the parent reports it
        part = work(start, stop)
        with os.fdopen(writer, "wb") as pipe:
            pickle.dump(part, pipe, protocol=pickle.HIGHEST_PROTOCOL)
        code = 0
    finally:
        os._exit(code)


def _score_part(
    testset: TestSet, path: Path, start: int, stop: int, specs: Sequence[MetricSpec]
) -> _Part | None:
    rankings = rankings_between(path, start, stop)
    if rankings is None:
        return None
    scored = []
    for index, question in enumerate(testset):
        ranking = rankings.get(question.id)
        if ranking is None:
            continue
        result = score_ranked(question, ranking, specs)
        line = question_line(result)
        ids = None if plain_ids(ranking) else ranking
        scored.append((index, result.metrics, result.judgments, result.fingerprint, line, ids))
    return _Part(list(rankings), scored)


def received(child: _Child) -> Any:
    """What the child sent, or None when it failed in any way (or sent None: its part was
    unusual)."""
    try:
        with os.fdopen(child.reader, "rb", closefd=False) as pipe:
            part: Any = pickle.load(pipe)
    except Exception:  # a child killed mid-write leaves any kind of truncated pickle
        part = None
    _, status = os.waitpid(child.pid, 0)
    child.done = True
    return part if os.waitstatus_to_exitcode(status) == 0 else None
