"""Score a recorded run → Results: JSON Lines runs (several are repeats of one run) against
a test set or a BEIR folder, and TREC qrels with a TREC run (a large one in parallel parts).

This is ``ragguard score``, ``api.score`` and the seed demo. Nothing here prints: warnings
go to the caller's :class:`~ragguard.pipeline.reporter.Reporter`, and the results (or a dry
run's plans) come back in a :class:`Scored`. Retrieval metrics alone load none of the
generation or judge modules (most of a short run's start-up).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragguard.core.errors import InputError
from ragguard.core.surrogates import SURROGATE
from ragguard.pipeline.passes import prepare_passes
from ragguard.pipeline.reporter import Reporter
from ragguard.results.model import Results
from ragguard.results.records import Run, RunRecord
from ragguard.scoring.labels import corpus_origins
from ragguard.scoring.suite import PreparedPasses, RunPass
from ragguard.testset.model import TestSet

if TYPE_CHECKING:
    from ragguard.judge.setup import GenerationSetup
    from ragguard.judge.usage import Usage as JudgeUsage
    from ragguard.metrics.names import MetricSpec
    from ragguard.metrics.settings import GenerationSettings

PathLike = str | Path


@dataclass(frozen=True)
class GenerationRequest:
    """What the generation metrics of a recorded run are scored with: the parsed ragguard.yml
    whose generation sections apply (``None``: the defaults) and its path, the corpus (chunk
    text for runs of ids), ``use_judge`` (every generation metric by the judge), and
    ``dry_run`` (plan the judge's calls, make none)."""

    raw_config: Mapping[str, Any] | None
    config_source: str
    corpus: PathLike | None = None
    use_judge: bool = False
    dry_run: bool = False

    def settings(self) -> GenerationSettings:
        from ragguard.config.sections.generation import generation_settings

        return generation_settings(
            self.raw_config, self.config_source, judge_override=self.use_judge
        )

    def min_coverage(self) -> float:
        from ragguard.config.sections.suite import min_coverage_of

        return min_coverage_of(self.raw_config, self.config_source)


def prepare_generation(
    specs: Sequence[MetricSpec],
    testset: TestSet,
    records: Mapping[str, RunRecord],
    *,
    raw_config: Mapping[str, Any] | None,
    config_source: str,
    corpus: Mapping[str, str] | str | Path | None = None,
    run_source: str = "run",
    run_lines: Mapping[str, int] | None = None,
    use_judge: bool = False,
    environ: Mapping[str, str] | None = None,
    need_key: bool = True,
    progress: Callable[[int, int], None] | None = None,
    cache_dir: Path | None = None,
) -> GenerationSetup:
    """One run's generation metrics set up from a parsed ragguard.yml: the settings typed as
    :meth:`GenerationRequest.settings` types them (``use_judge``: every generation metric by
    the judge), then :func:`~ragguard.judge.setup.generation_setup`. (:func:`score_recorded`
    sets up every pass of a run at once, through ``prepare_passes``.)"""
    from ragguard.judge.setup import generation_setup

    settings = GenerationRequest(raw_config, config_source, use_judge=use_judge).settings()
    return generation_setup(
        settings,
        specs,
        testset,
        records,
        corpus=corpus,
        run_source=run_source,
        run_lines=run_lines,
        environ=environ,
        need_key=need_key,
        progress=progress,
        cache_dir=cache_dir,
    )


@dataclass(frozen=True)
class Recorded:
    """A test set and its recorded runs, each checked to hold only the test set's questions;
    ``names`` are the run files as given (an input error names them), ``beir`` whether the
    test set is a BEIR folder's."""

    testset: TestSet
    runs: tuple[Run, ...]
    names: tuple[str, ...]
    beir: bool = False


@dataclass(frozen=True)
class Scored:
    """A recorded run scored: the results (``None`` after a dry run, whose ``plans`` say what
    the judge would be asked), the per-question lines of a run scored in parts (to write the
    results file from), and the judge's calls and tokens (``None``: no judge)."""

    results: Results | None
    plans: tuple[str, ...] = ()
    lines: Mapping[int, str] = field(default_factory=dict)
    judge: JudgeUsage | None = None
    runs: int = 1

    def repeats_line(self) -> str | None:
        """``ragguard: 3 runs of 40 questions scored as repeats (120 answers)``, for
        several runs."""
        if self.results is None or self.runs < 2:
            return None
        questions = len(self.results.questions)
        return (
            f"ragguard: {self.runs} runs of {questions} questions scored as repeats "
            f"({self.runs * questions} answers)"
        )


def suite_name(suite: str | None, source: str) -> str:
    """The suite's name: as given, else the test set's file name up to its first dot.

    A command line or a file name with bytes that are not UTF-8 reaches Python as lone
    surrogates, which no results file could hold: refused here, before anything is scored.
    """
    name = suite or Path(source).name.split(".")[0] or "ragguard"
    if SURROGATE.search(name):
        place, what = ("--suite", "the suite name") if suite else (source, "the file name")
        raise InputError(place, f"{what} is not UTF-8 text ({name!a}); give --suite a UTF-8 name")
    return name


def load_recorded(
    testset: PathLike | None,
    runs: Sequence[PathLike],
    reporter: Reporter,
    *,
    beir: PathLike | None = None,
    split: str | None = None,
    include_drafts: bool = False,
) -> Recorded:
    """Read the test set (or the ``beir`` folder's queries and ``split`` qrels) and every
    run (a trace file's traces matched to the questions by their text; what its reader
    skipped goes to the reporter as notes), and check that each run answers only the test
    set's questions (drafted questions left out unless ``include_drafts``, their answers
    not refused). A BEIR split's queries judged with no relevant document are a warning."""
    if testset:
        from ragguard.pipeline.drafts import load_run_testset

        loaded = load_run_testset(testset, reporter, include_drafts=include_drafts)
    else:
        from ragguard.testset.formats.beir import load_beir
        from ragguard.testset.formats.trec import no_relevant_warning

        loaded = load_beir(beir, split)  # type: ignore[arg-type]
        _warn_if(reporter, no_relevant_warning(loaded))
    from ragguard.testset.formats import load_run_file

    texts = {question.id: question.question for question in loaded.questions}
    recorded = tuple(load_run_file(run, texts) for run in runs)
    for run in recorded:
        run.check_known(loaded.known_ids)
        for line in run.notes:
            reporter.note(line)
    return Recorded(loaded, recorded, tuple(str(run) for run in runs), beir=not testset)


def score_recorded(
    recorded: Recorded,
    specs: Sequence[MetricSpec],
    reporter: Reporter,
    *,
    suite: str | None = None,
    generation: GenerationRequest | None = None,
    git: Mapping[str, str | None] | None = None,
    evidence: bool = True,
) -> Scored:
    """Score the recorded runs with ``specs``: retrieval metrics, and generation metrics
    with ``generation`` (``None``: nothing about generation asked, nothing set up).

    Several runs are repeats of one run: every run is set up (and the judge's budget checked
    over all of them) before any is judged, each is scored alone through one judge client,
    and they are combined. Labels matching no chunk are a warning (not for a BEIR test set:
    imported qrels routinely judge documents never retrieved). ``evidence=False`` (as
    ``api.score`` has always scored) judges evidence labels and ``doc_`` metrics by the run's
    chunks and the default ``min_coverage``, not the corpus's chunks and the config's
    ``evidence.min_coverage``.
    """
    loaded = recorded.testset
    name = suite_name(suite, loaded.source)
    corpus = generation.corpus if generation is not None else None
    origins = corpus_origins(loaded, specs, corpus) if evidence else None
    passes = [
        RunPass(run.records, source, run.lines)
        for run, source in zip(recorded.runs, recorded.names, strict=True)
    ]
    if generation is None:
        prepared = prepare_passes(loaded, passes, specs, None, origins=origins)
    else:
        from ragguard.judge.setup import progress_printer

        prepared = prepare_passes(
            loaded,
            passes,
            specs,
            generation.settings(),
            corpus=corpus,
            origins=origins,
            need_key=not generation.dry_run,
            progress=progress_printer(reporter.note),
        )
        if generation.dry_run:
            return Scored(None, plans=_plans(recorded.names, prepared.plans()))
    if not recorded.beir:
        _warn_if(reporter, prepared.unmatched_labels())
    min_coverage = generation.min_coverage() if generation is not None and evidence else None
    results = prepared.score(suite=name, git=git, min_coverage=min_coverage)
    return Scored(results, judge=_judge_usage(prepared), runs=len(passes))


def score_jsonl_run(
    testset: PathLike,
    run: Path,
    specs: Sequence[MetricSpec],
    reporter: Reporter,
    *,
    suite: str | None = None,
    processes: int | None = None,
    git: Mapping[str, str | None] | None = None,
    include_drafts: bool = False,
) -> Scored | None:
    """A large JSON Lines run of retrieval metrics, read and scored in parts, one process a
    part (``processes``: how many; default one per core, at most 8); the results
    :func:`score_recorded` gives, byte for byte. None: one process scores it (a small file,
    one core, ``processes`` 1, anything unusual): call :func:`load_recorded` and
    :func:`score_recorded`, which name any error with its line. Drafted questions are left
    out unless ``include_drafts``."""
    from ragguard.pipeline.drafts import load_run_testset
    from ragguard.scoring.labels import unmatched_warning
    from ragguard.scoring.parallel_jsonl import line_cuts, score_jsonl_in_parts
    from ragguard.testset.formats import is_jsonl_run

    if any(spec.is_generation for spec in specs) or not is_jsonl_run(run):
        return None
    cuts = line_cuts(run, processes)
    if cuts is None:
        return None
    loaded = load_run_testset(testset, reporter, include_drafts=include_drafts)
    name = suite_name(suite, loaded.source)
    scored = score_jsonl_in_parts(loaded, run, cuts, specs, suite=name, git=dict(git or {}))
    if scored is None:
        return None
    seen = scored.seen
    _warn_if(reporter, unmatched_warning(loaded, seen.chunk_ids, seen.docs, seen.answered))
    return Scored(scored.run.results, lines=scored.run.lines)


def score_trec(
    qrels: Path,
    trec_run: Path,
    specs: Sequence[MetricSpec],
    reporter: Reporter,
    *,
    suite: str | None = None,
    generation: GenerationRequest | None = None,
    processes: int | None = None,
    git: Mapping[str, str | None] | None = None,
) -> Scored:
    """TREC qrels and run: rankings of ids only, read and scored without run records; a
    large run in parts, one process a part, when only retrieval is scored (``processes``:
    how many; default one per core, at most 8)."""
    from ragguard.scoring.parallel import planned_parts, score_run_in_parts
    from ragguard.scoring.score import score_rankings
    from ragguard.testset.formats.trec import load_qrels
    from ragguard.testset.formats.trec_runs import load_trec_rankings

    asked = [spec.name for spec in specs if spec.is_generation]
    if asked:
        raise InputError(
            trec_run,
            f"a TREC run has no answers; generation metrics ({', '.join(asked)}) need "
            "the system's answers; drop them from --metrics",
        )
    loaded = load_qrels(qrels)
    name = suite_name(suite, loaded.source)
    cuts = planned_parts(trec_run, processes) if generation is None else None
    if cuts:
        parts = score_run_in_parts(loaded, trec_run, cuts, specs, suite=name, git=git)
        if parts:
            _warn_about_trec(loaded, trec_run, parts.run_queries, reporter)
            return Scored(parts.results, lines=parts.lines)
    rankings = load_trec_rankings(trec_run)
    _warn_about_trec(loaded, trec_run, rankings, reporter)
    config: dict[str, Any] = {}
    origins = None
    if generation is not None:
        prepared = prepare_passes(
            loaded,
            [RunPass({}, str(trec_run))],
            specs,
            generation.settings(),
            corpus=generation.corpus,
            need_key=not generation.dry_run,
        )
        if generation.dry_run:
            return Scored(None, plans=tuple(prepared.plans()))
        config = prepared.first.fingerprint if prepared.first is not None else {}
        origins = corpus_origins(loaded, specs, generation.corpus)
    results = score_rankings(
        loaded, rankings, specs, suite=name, git=git, config=config, origins=origins
    )
    return Scored(results)


def _judge_usage(prepared: PreparedPasses) -> JudgeUsage | None:
    """The judge's calls and tokens over every pass (``None``: no judge)."""
    first = prepared.first
    return first.judge.usage if first is not None and first.judge is not None else None


def _plans(names: Sequence[str], plans: Sequence[str]) -> tuple[str, ...]:
    """Each run's dry-run text, named by its file when there are several."""
    if len(plans) == 1:
        return tuple(plans)
    return tuple(f"{name}: {plan}" for name, plan in zip(names, plans, strict=True))


def _warn_about_trec(
    loaded: TestSet, trec_run: Path, run_queries: Iterable[str], reporter: Reporter
) -> None:
    """Queries judged with no relevant document, and run queries the qrels do not judge."""
    from ragguard.testset.formats.trec import no_relevant_warning, unjudged_warning

    _warn_if(reporter, no_relevant_warning(loaded))
    _warn_if(reporter, unjudged_warning(trec_run, run_queries, loaded))


def _warn_if(reporter: Reporter, warning: str | None) -> None:
    if warning:
        reporter.warn(warning)
