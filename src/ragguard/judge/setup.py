"""Wiring generation metrics for a command: settings, corpus, judge client, dry-run plan.

The generation settings come typed from the config (:attr:`Config.generation
<ragguard.config.model.Config.generation>` for ``ragguard run``; the generation sections of
``ragguard score``'s ``--config``, :class:`~ragguard.pipeline.score.GenerationRequest`):
nothing here reads ragguard.yml. :func:`generation_setup` checks a pass's inputs and builds
the judge; pass :meth:`GenerationSetup.score_kwargs` to ``score_run``. Input problems (a chunk without text, no answers at all, a budget too small,
a missing API key) are :class:`InputError` before anything is spent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragguard.core.errors import InputError
from ragguard.metrics.generation import judge_items, missing_text
from ragguard.metrics.judging import JudgeItem
from ragguard.metrics.names import MetricSpec
from ragguard.metrics.settings import GenerationSettings
from ragguard.results.records import RunRecord, load_corpus
from ragguard.testset.model import TestSet

PROGRESS_EVERY_SECONDS = 10.0  # as a run's progress lines (system/progress.py)

if TYPE_CHECKING:  # the client (and requests) is imported when a judge is built
    from ragguard.judge.client import JudgeClient
    from ragguard.judge.usage import Plan


@dataclass
class GenerationSetup:
    """Everything ``score_run`` needs for the generation metrics of one scoring pass."""

    settings: GenerationSettings
    corpus: dict[str, str] | None
    items: list[JudgeItem]
    judge: JudgeClient | None
    plan: Plan | None
    fingerprint: dict[str, Any]

    def score_kwargs(self) -> dict[str, Any]:
        return {"generation": self.settings, "judge": self.judge, "corpus": self.corpus}

    def dry_run_text(self) -> str:
        if self.plan is None:
            return "judge dry run: no generation metric uses the judge; no calls to make\n"
        budget = self.settings.judge.max_calls if self.settings.judge else None
        over = ""
        if budget is not None and self.plan.calls > budget:
            over = f"\nmore than judge.max_calls = {budget}: the run would stop before calling"
        return self.plan.line() + over + "\n"


def progress_printer(
    write: Callable[[str], None],
    *,
    every: float = PROGRESS_EVERY_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[int, int], None]:
    """A progress callback writing ``judge: 20/200 answers`` each time ``every`` seconds have
    passed since the last line (or the start), and once at the end: throttled by time alone,
    like a run's progress lines."""
    last = [clock()]

    def report(done: int, total: int) -> None:
        now = clock()
        if done == total or now - last[0] >= every:
            last[0] = now
            write(f"judge: {done}/{total} answers")

    return report


def generation_setup(
    settings: GenerationSettings,
    specs: Sequence[MetricSpec],
    testset: TestSet,
    records: Mapping[str, RunRecord],
    *,
    corpus: Mapping[str, str] | str | Path | None = None,
    run_source: str = "run",
    run_lines: Mapping[str, int] | None = None,
    environ: Mapping[str, str] | None = None,
    need_key: bool = True,
    progress: Callable[[int, int], None] | None = None,
    cache_dir: Path | None = None,
) -> GenerationSetup:
    """Check the inputs for the requested generation metrics and build the judge client.

    ``need_key=False`` (a dry run) builds the client without reading the API key.
    ``progress(done, total)`` is called after each judged answer (see :func:`progress_printer`).
    ``cache_dir`` overrides ``judge.cache`` (the action's cache-dir input, ``--cache-dir``).
    """
    if cache_dir is not None and settings.judge is not None:
        settings = replace(settings, judge=replace(settings.judge, cache_dir=cache_dir))
    names = [spec.name for spec in specs if spec.is_generation]
    texts = load_corpus(corpus) if isinstance(corpus, (str, Path)) else corpus
    corpus_map = dict(texts) if texts is not None else None
    if names:
        _check_answers(records, run_source)
    if "faithfulness" in names or "hallucination_free" in names:
        check_chunk_text(records, corpus_map, run_source, run_lines or {})
    items = judge_items(testset.questions, records, names, settings, corpus_map)
    judge = plan = None
    if items and settings.judge is not None:
        from ragguard.judge.client import JudgeClient

        if need_key:
            judge = JudgeClient.from_environment(settings.judge, environ, progress=progress)
        else:
            judge = JudgeClient(settings.judge)
        plan = judge.plan(items)
        budget = settings.judge.max_calls
        if need_key and budget is not None and plan.calls > budget:
            raise InputError(
                settings.judge.source,
                f"this run needs {plan.calls} judge calls ({plan.cached} answers cached), more "
                f"than max_calls = {budget}; raise judge.max_calls or score fewer questions",
                key="judge.max_calls",
            )
    return GenerationSetup(settings, corpus_map, items, judge, plan, settings.fingerprint(names))


def check_repeats_budget(first: GenerationSetup, items: Sequence[JudgeItem]) -> None:
    """``judge.max_calls`` over all the runs of a repeated run (``items``: every run's), before
    any is judged; ``first`` is the first run's setup, whose client judges them all.

    An answer given in several runs is one call (the later ones are answered from the reply
    cache), so the plan counts each distinct item once.
    """
    judge_settings = first.settings.judge
    if first.judge is None or judge_settings is None or judge_settings.max_calls is None:
        return
    plan = first.judge.plan(list(dict.fromkeys(items)))
    if plan.calls > judge_settings.max_calls:
        raise InputError(
            judge_settings.source,
            f"this run needs {plan.calls} judge calls over its {len(items)} answers in all "
            f"passes ({plan.cached} distinct answers cached), more than max_calls = "
            f"{judge_settings.max_calls}; raise judge.max_calls, lower repeat or score fewer "
            "questions",
            key="judge.max_calls",
        )


def _check_answers(records: Mapping[str, RunRecord], source: str) -> None:
    answered = [record for record in records.values() if not record.error]
    if answered and all(record.answer is None for record in answered):
        raise InputError(
            source,
            "no entry has an answer; generation metrics (faithfulness, answer_relevance, "
            "answer_f1, abstention) need the system's answers; drop them from --metrics",
        )


def check_chunk_text(
    records: Mapping[str, RunRecord],
    corpus: Mapping[str, str] | None,
    source: str,
    lines: Mapping[str, int],
) -> None:
    """Refuse a retrieved chunk with no text in the run and none in the corpus: faithfulness
    would judge the answer against an empty context (``score``, ``run`` and ``calibrate``)."""
    missing = missing_text(records, corpus)
    if missing:
        question_id, chunk_id = missing
        where = "in the corpus" if corpus is not None else "(no --corpus given)"
        raise InputError(
            source,
            f"retrieved chunk {chunk_id!r} of question {question_id!r} has no text, and none "
            f"{where}; faithfulness needs the chunks' text: record it in the run or pass a "
            "corpus",
            line=lines.get(question_id),
            key="retrieved",
        )
