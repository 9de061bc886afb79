"""Score a run pass by pass: a live run of the system and a recorded run alike.

A run has one pass, or N with ``system.repeat`` N (or N recorded runs scored as repeats).
:func:`ragguard.pipeline.passes.prepare_passes` sets up every pass before any is judged (the
judge is an edge, so the pipeline builds it and hands it in). :meth:`PreparedPasses.score` then scores
each pass as one run is scored, through the first pass's judge client (whose usage so counts
every pass; an answer given again is judged from the reply cache), and combines the passes
(:func:`ragguard.scoring.repeats.combine_repeats`). Nothing here prints: a warning is
returned as a line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ragguard.results.chunks import Chunk
from ragguard.results.judging import JudgeCosts
from ragguard.results.model import Results
from ragguard.results.records import RunRecord
from ragguard.scoring.labels import unmatched_label_warning
from ragguard.scoring.repeats import combine_repeats
from ragguard.scoring.score import score_run
from ragguard.testset.model import TestSet

if TYPE_CHECKING:  # the generation modules are imported when generation is set up
    from ragguard.judge.setup import GenerationSetup
    from ragguard.metrics.names import MetricSpec

SYSTEM_OUTPUT = "the system's output"


@dataclass(frozen=True)
class RunPass:
    """One pass of a run to score: its records, and what an input error names as their
    source (the run file and its line numbers, or the system's output).

    ``answered_only``: only the records the system answered are checked for what generation
    metrics need (a live run: a failed question is already an error, not bad input); a
    recorded file's every entry is.
    """

    records: Mapping[str, RunRecord]
    source: str = SYSTEM_OUTPUT
    lines: Mapping[str, int] | None = None
    answered_only: bool = False

    def checked(self) -> Mapping[str, RunRecord]:
        if not self.answered_only:
            return self.records
        return {qid: record for qid, record in self.records.items() if not record.error}


@dataclass(frozen=True)
class PreparedPasses:
    """A run's passes, each set up for scoring (``setups`` is ``None`` when nothing about
    generation was asked: retrieval metrics only, no generation module loaded)."""

    testset: TestSet
    specs: tuple[MetricSpec, ...]
    passes: tuple[RunPass, ...]
    origins: Mapping[str, Chunk] | None
    setups: tuple[GenerationSetup, ...] | None

    @property
    def first(self) -> GenerationSetup | None:
        """The first pass's setup, whose judge client (``first.judge``) judges every pass."""
        return self.setups[0] if self.setups is not None else None

    def plans(self) -> list[str]:
        """A dry run's text for each pass: the judge calls and tokens it would need."""
        return [setup.dry_run_text() for setup in self.setups or ()]

    def unmatched_labels(self) -> str | None:
        """The line naming labels that match no chunk (:mod:`ragguard.scoring.labels`),
        over every pass: a label retrieved in any pass matches."""
        texts = self.first.corpus if self.first is not None else None
        corpus_ids = frozenset(texts) if texts is not None else None
        first, *later = (run_pass.records for run_pass in self.passes)
        return unmatched_label_warning(
            self.testset, first, self.origins, corpus_ids, later_passes=later
        )

    def score(
        self,
        *,
        suite: str,
        config: Mapping[str, Any] | None = None,
        git: Mapping[str, str | None] | None = None,
        min_coverage: float | None = None,
    ) -> Results:
        """Score every pass and combine them; ``config`` is recorded in ``Results.config``
        beside each pass's generation fingerprint."""
        first = self.first
        judge = first.judge if first is not None else None  # one client: counts every pass
        setups = self.setups or (None,) * len(self.passes)
        scored = []
        for run_pass, setup in zip(self.passes, setups, strict=True):
            fingerprint: Mapping[str, Any] = {}
            generation: dict[str, Any] = {}
            if setup is not None:
                fingerprint = setup.fingerprint
                generation = replace(setup, judge=judge).score_kwargs()
            results = score_run(
                self.testset,
                run_pass.records,
                self.specs,
                suite=suite,
                config={**(config or {}), **fingerprint},
                git=git,
                origins=self.origins,
                min_coverage=min_coverage,
                **generation,
            )
            scored.append(results)
        return with_judge_costs(combine_repeats(scored), first)


def with_judge_costs(results: Results, setup: GenerationSetup | None) -> Results:
    """The results with what judging them cost: every answer the judge client judged over
    the passes, priced at ``judge.price`` (unchanged when no judge was used)."""
    if setup is None or setup.judge is None:
        return results
    settings = setup.judge.settings
    price = (settings.price.input, settings.price.output) if settings.price else None
    return replace(results, judge=JudgeCosts(setup.judge.charges(), price))


def results_settings(identity: dict[str, Any]) -> dict[str, Any]:
    """``Results.config``: what makes two runs comparable — which system was measured.

    The system's tunable knobs (k, chunking, prompts) are left out on purpose: changing them
    is what a pull request does, and its results must stay comparable with the baseline.
    """
    return {"system": dict(identity)}
