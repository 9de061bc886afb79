"""Every pass of a run set up for scoring before any is judged: the corpus is read once,
each pass's generation inputs are checked (answers, chunk text) and its judge calls planned,
and ``judge.max_calls`` holds over all the passes. The judge client is built here, in the
pipeline, and handed to :class:`~ragguard.scoring.suite.PreparedPasses`: scoring never builds
it.

Before a system is asked anything, :func:`check_judge_key` finds an unset judge API key
for the metrics the run would be scored with, so that a missing key costs no run."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ragguard.metrics.names import ABSTENTION, MetricSpec
from ragguard.results.chunks import Chunk
from ragguard.results.records import corpus_texts
from ragguard.scoring.score import abstention_by_default, specs_for, with_default_abstention
from ragguard.scoring.suite import PreparedPasses, RunPass
from ragguard.testset.model import TestSet

if TYPE_CHECKING:  # the generation modules are imported when generation is set up
    from ragguard.judge.setup import GenerationSetup
    from ragguard.metrics.settings import GenerationSettings

# the ragguard.yml section whose ``method`` a judged metric follows, where not its own name
METHOD_SECTION = {"hallucination_free": "faithfulness"}


def prepare_passes(
    testset: TestSet,
    passes: Sequence[RunPass],
    specs: Sequence[MetricSpec],
    generation: GenerationSettings | None,
    *,
    corpus: str | Path | None = None,
    origins: Mapping[str, Chunk] | None = None,
    need_key: bool = True,
    progress: Callable[[int, int], None] | None = None,
    cache_dir: Path | None = None,
    whole: TestSet | None = None,
) -> PreparedPasses:
    """Set up every pass for scoring with the ``generation`` settings (``None``: retrieval
    only, nothing set up) before any is judged.

    The corpus is read once, by the first pass: from ``origins`` (the corpus's chunks, when
    scoring already read them) or from the ``corpus`` file. Each pass's generation inputs
    are checked and its judge calls planned (:func:`ragguard.judge.setup.generation_setup`);
    with several passes, ``judge.max_calls`` holds over all of them
    (:func:`~ragguard.judge.setup.check_repeats_budget`). ``need_key=False`` is a dry run:
    the judge is built without its API key and no budget is checked. ``progress(done,
    total)`` follows the judged answers; ``cache_dir`` overrides ``judge.cache``.

    The metrics are chosen here, once for every pass: ``specs`` with ``abstention`` when the
    test set marks questions unanswerable and the run has answers
    (:func:`~ragguard.scoring.score.with_default_abstention`), then the agent metrics when
    it has hops or expected tools (:func:`~ragguard.scoring.score.specs_for`). ``whole``:
    the whole test set ``testset`` is a shard of; the metrics are chosen on it, so every
    shard scores the same ones and the parts merge. Abstention then needs the generation
    settings, the defaults when none were given.
    """
    auto = generation.abstention_auto if generation is not None else True
    runs = [run_pass.records for run_pass in passes]
    decided_on = whole if whole is not None else testset
    with_abstention = with_default_abstention(decided_on, specs, runs, auto)
    if generation is None and len(with_abstention) > len(specs):
        from ragguard.metrics.settings import GenerationSettings

        generation = GenerationSettings()
    specs = specs_for(decided_on, with_abstention)
    setups = None
    if generation is not None:
        setups = _set_up(
            testset, passes, specs, generation, corpus, origins, need_key, progress, cache_dir
        )
    return PreparedPasses(testset, tuple(specs), tuple(passes), origins, setups)


def judged_sections(
    testset: TestSet, specs: Sequence[MetricSpec], generation: GenerationSettings
) -> tuple[str, ...]:
    """The ragguard.yml sections (``faithfulness``, ``answer_relevance``, ``abstention``)
    whose ``method: judge`` a run of ``testset`` would use if its system answers: those of
    the metrics :func:`prepare_passes` chooses for a run with answers (``specs``, the
    default abstention, the agent metrics) that apply to some question (abstention to an
    ``answerable: false`` one)."""
    from ragguard.metrics.generation import applicable

    added = abstention_by_default(testset, specs, generation.abstention_auto)
    methods = generation.methods()
    chosen = specs_for(testset, (*specs, MetricSpec(ABSTENTION)) if added else tuple(specs))
    judged = [spec.name for spec in chosen if methods.get(spec.name) == "judge"]
    used = {name for question in testset for name in applicable(question, judged)}
    return tuple(dict.fromkeys(METHOD_SECTION.get(name, name) for name in judged if name in used))


def check_judge_key(
    testset: TestSet,
    specs: Sequence[MetricSpec],
    generation: GenerationSettings | None,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Before the system is asked anything (``ragguard run`` and ``ci``, the API, the demo;
    a recorded run before it is scored): an InputError at ``judge.api_key_env`` when a
    metric the run would be scored with uses the judge (:func:`judged_sections`) and the
    variable holding the judge's key is not set. A dry run (``--estimate``) needs no key
    and does not call this.

    It assumes the system answers: a run whose system then answers nothing (retrieval only)
    would not have asked the judge, but a configured judged metric it could not score is
    still a config to fix before the run."""
    if generation is None or generation.judge is None:
        return
    judged = judged_sections(testset, specs, generation)
    if judged:
        from ragguard.judge.keys import api_key

        api_key(generation.judge, environ, judged=judged)


def _set_up(
    testset: TestSet,
    passes: Sequence[RunPass],
    specs: Sequence[MetricSpec],
    generation: GenerationSettings,
    corpus: str | Path | None,
    origins: Mapping[str, Chunk] | None,
    need_key: bool,
    progress: Callable[[int, int], None] | None,
    cache_dir: Path | None,
) -> tuple[GenerationSetup, ...]:
    from ragguard.judge.setup import check_repeats_budget, generation_setup

    texts: Mapping[str, str] | str | Path | None = corpus
    if origins is not None:
        texts = corpus_texts(origins)
    setups: list[GenerationSetup] = []
    for run_pass in passes:
        setup = generation_setup(
            generation,
            specs,
            testset,
            run_pass.checked(),
            corpus=texts,
            run_source=run_pass.source,
            run_lines=run_pass.lines,
            need_key=need_key,
            progress=progress,
            cache_dir=cache_dir,
        )
        texts = setup.corpus  # read by the first pass
        setups.append(setup)
    if need_key and len(setups) > 1:
        check_repeats_budget(setups[0], [item for setup in setups for item in setup.items])
    return tuple(setups)
