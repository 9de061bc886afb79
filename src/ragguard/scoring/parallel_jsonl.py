"""Scoring a large JSON Lines run in parts, one process a part, as a TREC run is
(:mod:`ragguard.scoring.parallel`).

A recorded run of retrieval metrics alone spends its time reading the file (parsing each
line's JSON and building its records) and scoring. The file is cut at line ends into parts of
about equal size; a forked child reads, checks, scores and encodes each part but the first,
which this process does meanwhile, and sends back, per question it scored, its position, the fields
of its result that the test set does not hold (:func:`~ragguard.scoring.score.sent_fields`),
its results line, and its ids unless the line holds them plainly; with the labels its part's
rankings could match (for the warning about labels that match no chunk). Sending whole
results back cost about as much as the second process saved.

The result is the single-process result, byte for byte (tests/test_parallel_jsonl.py). Any
doubt goes back to the single-process path, which reads the whole file again and names any
error with its line: a part that is not valid (bad JSON, an unknown id, a second entry for
a question, within a part or across two), a child that fails or is killed, no fork, one core,
a small file.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ragguard.core.bulk import collector_paused
from ragguard.core.sources import BOM
from ragguard.metrics.names import ABSTENTION, MetricSpec
from ragguard.results.layout import plain_ids, question_line
from ragguard.results.model import QuestionResult
from ragguard.results.records import RunRecord, parse_run_jsonl
from ragguard.scoring.labels import seen_labels
from ragguard.scoring.parallel import (
    ScoredRun,
    forked_parts,
    ids_of_line,
    planned_parts,
    received,
)
from ragguard.scoring.score import (
    abstention_by_default,
    has_answer,
    received_result,
    results_of,
    score_question,
    sent_fields,
    specs_for,
)
from ragguard.testset.model import Question, TestSet

ANSWER_KEY = b'"answer"'


@dataclass(frozen=True)
class SeenLabels:
    """What the labels-that-match-nothing warning needs of a run: the relevant chunk ids and
    evidence documents some ranking holds, and the questions answered without an error."""

    chunk_ids: frozenset[str]
    docs: frozenset[str]
    answered: frozenset[str]
    answers: bool = False  # some entry answered without an error carries an answer


@dataclass(frozen=True)
class _Part:
    ids: list[str]  # every record's question id in the part
    # position, the result's own fields (score.sent_fields), its results line, and its ids
    # unless the line holds them plainly (then read from the line, as a TREC part's are)
    scored: list[tuple[int, tuple[object, ...], str, tuple[str, ...] | None]]
    seen: SeenLabels


@dataclass(frozen=True)
class ScoredJsonl:
    run: ScoredRun
    seen: SeenLabels


def line_cuts(path: Path, processes: int | None) -> list[int] | None:
    """Byte offsets of the parts, each after a line end (the start, the cuts, the end), or
    None when one process does it (see :func:`~ragguard.scoring.parallel.planned_parts`)."""
    return planned_parts(path, processes, cut=_cut_at_line_ends)


def _cut_at_line_ends(path: Path, parts: int) -> list[int]:
    size = path.stat().st_size
    cuts = [0]
    with path.open("rb") as file:
        for part in range(1, parts):
            file.seek(max(size * part // parts, cuts[-1]))
            file.readline()  # to the end of the line the cut fell in
            if file.tell() >= size:
                break
            if file.tell() > cuts[-1]:
                cuts.append(file.tell())
    return [*cuts, size]


def score_jsonl_in_parts(
    testset: TestSet,
    path: Path,
    cuts: Sequence[int],
    specs: Sequence[MetricSpec],
    *,
    suite: str,
    git: dict[str, str | None] | None = None,
    created_at: str | None = None,
) -> ScoredJsonl | None:
    """The run scored in the parts ``cuts`` gives, or None when the single-process path must
    do it. Retrieval (and agent) metrics only, without a corpus; and ``abstention`` where the
    single-process path adds it by default (``scoring.score.with_default_abstention``): where
    the test set marks questions unanswerable and the file may hold answers, the parts score
    it, and where the parts' answers say otherwise than the file's bytes, one process does."""
    default = abstention_by_default(testset, specs, True)
    guessed = default and _may_hold_answers(path)
    specs = specs_for(testset, (*specs, MetricSpec(ABSTENTION)) if guessed else specs)
    try:
        scored = _score_in_parts(testset, path, cuts, specs, suite, git, created_at)
    except (MemoryError, OSError):  # OSError: the system refused a fork or a pipe
        return None
    if scored is not None and default and scored.seen.answers != guessed:
        return None
    return scored


def _may_hold_answers(path: Path) -> bool:
    """Whether the file's bytes hold an ``"answer"`` key (a guess the parts then check)."""
    with path.open("rb") as file:
        tail = b""
        while block := file.read(1 << 20):
            if ANSWER_KEY in tail + block:
                return True
            tail = block[-len(ANSWER_KEY) :]
    return False


def _score_in_parts(
    testset: TestSet,
    path: Path,
    cuts: Sequence[int],
    specs: tuple[MetricSpec, ...],
    suite: str,
    git: dict[str, str | None] | None,
    created_at: str | None,
) -> ScoredJsonl | None:
    def work(start: int, stop: int) -> _Part | None:
        return _score_part(testset, path, start, stop, specs)

    sys.stdout.flush()
    sys.stderr.flush()
    with collector_paused(), forked_parts(work, cuts[1:]) as children:
        own = work(cuts[0], cuts[1])
        parts = [own, *(received(child) for child in children)]
        if not all(isinstance(part, _Part) for part in parts):
            return None
        done: list[_Part] = parts  # type: ignore[assignment]
        ids = [question_id for part in done for question_id in part.ids]
        if len(set(ids)) != len(ids):
            return None  # a question's second entry: the single path names its line
        scored = _received_questions(testset, done)
        questions = tuple(
            scored[index][0] if index in scored else _scored(question, None, specs)
            for index, question in enumerate(testset)
        )
    lines = {index: line for index, (_, line) in scored.items()}
    names = tuple(spec.name for spec in specs)
    results = results_of(questions, names, suite, _settings(specs), git, created_at)
    seen = SeenLabels(
        frozenset().union(*(part.seen.chunk_ids for part in done)),
        frozenset().union(*(part.seen.docs for part in done)),
        frozenset().union(*(part.seen.answered for part in done)),
        any(part.seen.answers for part in done),
    )
    return ScoredJsonl(ScoredRun(results, lines, tuple(ids)), seen)


def _scored(
    question: Question, record: RunRecord | None, specs: Sequence[MetricSpec]
) -> QuestionResult:
    """The question scored as ``score_run`` scores it: its generation metrics (here only
    ``abstention``, added by default) with the default settings."""
    result = score_question(question, record, specs)
    wanted = [spec.name for spec in specs if spec.is_generation]
    if not wanted:
        return result
    from ragguard.metrics.generation import with_generation
    from ragguard.metrics.settings import GenerationSettings

    return with_generation(result, question, record, wanted, GenerationSettings())


def _settings(specs: Sequence[MetricSpec]) -> dict[str, object]:
    """The results' settings, as ``score_run`` records those of the generation metrics."""
    from ragguard.metrics.settings import GenerationSettings

    wanted = [spec.name for spec in specs if spec.is_generation]
    return GenerationSettings().fingerprint(wanted) if wanted else {}


def _received_questions(
    testset: TestSet, parts: Sequence[_Part]
) -> dict[int, tuple[QuestionResult, str]]:
    """Every part's questions rebuilt, with their lines, by position."""
    scored: dict[int, tuple[QuestionResult, str]] = {}
    for part in parts:
        for index, fields, line, ids in part.scored:
            retrieved = ids_of_line(line) if ids is None else ids
            scored[index] = (received_result(testset.questions[index], fields, retrieved), line)
    return scored


def _score_part(
    testset: TestSet, path: Path, start: int, stop: int, specs: Sequence[MetricSpec]
) -> _Part | None:
    """One part read, checked and scored; None when anything in it is not as expected."""
    try:
        with path.open("rb") as file:
            file.seek(start)
            data = file.read(stop - start)
        text = (data.removeprefix(BOM) if start == 0 else data).decode("utf-8")
        if not text.strip():
            return _Part([], [], SeenLabels(frozenset(), frozenset(), frozenset()))
        run = parse_run_jsonl(text, path)
        run.check_known(testset.known_ids)
    except Exception:  # any error: the single-process path reads it again and names it
        return None
    records = run.records
    scored = []
    for index, question in enumerate(testset):
        record = records.get(question.id)
        if record is not None:
            result = _scored(question, record, specs)
            ids = None if plain_ids(result.retrieved) else tuple(result.retrieved)
            scored.append((index, sent_fields(result), question_line(result), ids))
    chunk_ids, docs = seen_labels(records, None, None)
    labels = {chunk for question in testset for chunk in question.relevant}
    evidence = {item.doc for question in testset for item in question.evidence}
    answered = frozenset(qid for qid, record in records.items() if not record.error)
    seen = SeenLabels(
        frozenset(chunk_ids & labels), frozenset(docs & evidence), answered, has_answer(records)
    )
    return _Part(list(records), scored, seen)
