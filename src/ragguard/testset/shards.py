"""Sharded runs: split a test set by a hash of each question id (merging the parts back is
:mod:`ragguard.scoring.merge`).

A question's shard is ``sha256(id) mod n``, so it depends on nothing but the id and n:
adding or removing other questions never moves it (a split by position would reshuffle
every shard). A conversation's turns go by the conversation's id, so they stay together and
are asked in order.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace

from ragguard.core.errors import InputError
from ragguard.results.model import Results, ShardInfo
from ragguard.testset.model import Question, TestSet

SHARD_PATTERN = re.compile(r"\s*([0-9]{1,9})\s*/\s*([0-9]{1,9})\s*", re.ASCII)


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` of ``count`` (1-based, as a job matrix numbers them)."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, question: Question) -> bool:
        return shard_of(question.conversation or question.id, self.count) == self.index


def parse_shard(text: str) -> Shard:
    """``"2/3"`` -> ``Shard(2, 3)``; anything else is a one-line input error."""
    match = SHARD_PATTERN.fullmatch(text)
    if not match:
        raise InputError("--shard", f"{text!r} is not i/n; write e.g. --shard 1/3")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise InputError("--shard", f"{text!r}: i must be between 1 and n, e.g. --shard 1/{count}")
    return Shard(index, count)


def shard_of(question_id: str, count: int) -> int:
    """The 1-based shard of a question id among ``count`` shards."""
    digest = hashlib.sha256(question_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


@dataclass(frozen=True)
class ShardSelection:
    """A shard's questions, as a test set, and where each sits in the whole test set."""

    testset: TestSet
    info: ShardInfo
    whole_fingerprint: str
    # the whole test set: the metrics it brings (abstention, agent metrics) are chosen on
    # it, so every shard scores the same metrics and the parts merge
    whole: TestSet | None = None


def select_shard(testset: TestSet, shard: Shard) -> ShardSelection:
    picked = [
        (position, question)
        for position, question in enumerate(testset.questions)
        if shard.holds(question)
    ]
    questions: tuple[Question, ...] = tuple(question for _, question in picked)
    part = TestSet(questions, source=testset.source)
    info = ShardInfo(shard.index, shard.count, len(testset), tuple(p for p, _ in picked))
    return ShardSelection(part, info, testset.fingerprint, testset)


def mark_shard(results: Results, selection: ShardSelection) -> Results:
    """A shard's results: the whole test set's fingerprint, and the shard marker."""
    return replace(results, testset_fingerprint=selection.whole_fingerprint, shard=selection.info)
