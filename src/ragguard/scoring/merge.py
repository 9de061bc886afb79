"""Shards merged: the results of `ragguard run --shard i/n` (or the matrix jobs' parts)
put back together into the results of the whole run. Merging checks that the parts are of
one run (same suite, metrics, config, test set and commit) and cover the test set exactly
once, then rebuilds the results an unsharded run would have written: the questions in
test-set order and the summary recomputed over all of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ragguard.core.errors import InputError
from ragguard.results.judging import combined_costs
from ragguard.results.model import QuestionResult, Results, run_count
from ragguard.scoring.score import summarize


def merge_parts(parts: Sequence[tuple[Path, Results]]) -> Results:
    """Merge shard results into the results of the unsharded run, or refuse in one line."""
    if not parts:
        raise InputError("merge", "no part files given; pass the shard results files")
    first_path, first = parts[0]
    for path, part in parts:
        _check_same_run(first_path, first, path, part)
    _check_each_shard_once(parts)
    placed = _place_questions(parts)
    questions = tuple(placed)
    latest = max(part.created_at for _, part in parts)
    return replace(
        first,
        created_at=latest,
        questions=questions,
        summary=summarize(questions, first.metrics),
        shard=None,
        judge=combined_costs(part.judge for _, part in parts),  # part after part
    )


def _check_same_run(first_path: Path, first: Results, path: Path, part: Results) -> None:
    if part.shard is None:
        raise InputError(path, "is not a shard's results (no shard marker); run with --shard i/n")
    assert first.shard is not None
    checks = (
        ("config fingerprint", first.config_fingerprint, part.config_fingerprint),
        ("test set fingerprint", first.testset_fingerprint, part.testset_fingerprint),
        ("suite", first.suite, part.suite),
        ("metrics", ",".join(first.metrics), ",".join(part.metrics)),
        ("shard count", str(first.shard.count), str(part.shard.count)),
        ("test set size", str(first.shard.testset_size), str(part.shard.testset_size)),
        ("git commit", str(first.git.get("sha")), str(part.git.get("sha"))),
        ("runs per question (system.repeat)", _repeat_of(first), _repeat_of(part)),
    )
    for what, expected, found in checks:
        if expected != found:
            raise InputError(
                path,
                f"{what} {found} differs from {first_path}'s {expected}; "
                "merge only the parts of one run",
            )


def _check_each_shard_once(parts: Sequence[tuple[Path, Results]]) -> None:
    """A file named twice, or two files holding the same shard, refused at the second."""
    seen: dict[int, Path] = {}
    for path, part in parts:
        assert part.shard is not None
        index, count = part.shard.index, part.shard.count
        other = seen.setdefault(index, path)
        if other is path:
            continue
        if Path(other) == Path(path):
            raise InputError(path, "is given twice; pass each shard's results once")
        raise InputError(
            path,
            f"is shard {index} of {count}, as {other} is; pass each shard's results once",
        )


def _repeat_of(results: Results) -> str:
    """How many times the part asked its questions (``system.repeat``; "1" when empty)."""
    return str(run_count(results.questions[0])) if results.questions else "1"


def _place_questions(parts: Sequence[tuple[Path, Results]]) -> list[QuestionResult]:
    """The questions of all parts in test-set order; a gap or an overlap is refused."""
    size = parts[0][1].shard.testset_size  # type: ignore[union-attr]
    count = parts[0][1].shard.count  # type: ignore[union-attr]
    slots: list[QuestionResult | None] = [None] * size
    owner: list[Path | None] = [None] * size
    where_id: dict[str, Path] = {}
    for path, part in parts:
        assert part.shard is not None
        for position, question in zip(part.shard.positions, part.questions, strict=True):
            if owner[position] is not None or question.id in where_id:
                other = owner[position] or where_id[question.id]
                raise InputError(
                    path,
                    f"question {question.id!r} is also in {other}; each shard must be given once",
                )
            slots[position], owner[position] = question, path
            where_id[question.id] = path
    if None in slots:
        present = _indexes(parts)
        missing = [str(i) for i in range(1, count + 1) if i not in present]
        gap = slots.index(None)
        shards = f"shard(s) {', '.join(missing)} of {count}" if missing else "a shard"
        raise InputError(
            "merge",
            f"the parts cover {size - slots.count(None)} of {size} questions "
            f"(first gap at position {gap + 1}); {shards} missing: pass every part",
        )
    return [question for question in slots if question is not None]


def _indexes(parts: Sequence[tuple[Path, Results]]) -> set[int]:
    return {part.shard.index for _, part in parts if part.shard is not None}
