"""The Python API: what the CLI does, as functions a team calls from its own code or tests.

``load`` reads a results file (or a stored baseline), ``score`` scores a recorded run,
``run`` runs a suite's system and scores it (``ragguard run``), ``compare`` compares two
results under a suite's gate (``ragguard compare``), and ``report`` renders a comparison as
the terminal text, the PR comment or the job summary. Bad input raises
:class:`ragguard.errors.InputError` with the same one-line message the CLI prints.
See docs/api.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from ragguard.compare import Comparison
from ragguard.config.load import DEFAULT_CONFIG_NAME
from ragguard.core.errors import InputError
from ragguard.results.model import Results

PathLike = str | Path


def load(path: PathLike) -> Results:
    """A results file (``ragguard.results/1``) or a stored baseline (``ragguard.baseline/1``)."""
    from ragguard.compare.baseline import load_baseline

    return load_baseline(path).results


def score(
    testset: PathLike,
    run: PathLike,
    metrics: Sequence[str] | str | None = None,
    *,
    corpus: PathLike | None = None,
    suite: str | None = None,
    config: PathLike | None = None,
    include_drafts: bool = False,
) -> Results:
    """Score a recorded run (JSON Lines) against a test set, as ``ragguard score`` does
    (drafted questions left out unless ``include_drafts``, as ``--include-drafts``).

    ``metrics``: names or one comma-separated string (default: the documented retrieval set).
    Generation metrics use the methods of ``config``'s sections (offline by default); a judge
    configured there needs its API key in the environment.
    """
    from ragguard.config.load import load_generation_config
    from ragguard.metrics.names import DEFAULT_METRICS, MetricNameError, parse_metric_list
    from ragguard.pipeline.reporter import SilentReporter
    from ragguard.pipeline.score import GenerationRequest, load_recorded, score_recorded

    try:
        specs = parse_metric_list(
            metrics if isinstance(metrics, str) else tuple(metrics or DEFAULT_METRICS)
        )
    except MetricNameError as exc:
        raise InputError("metrics", str(exc)) from None
    reporter = SilentReporter()
    recorded = load_recorded(testset, (run,), reporter, include_drafts=include_drafts)
    raw_config, source = load_generation_config(config)
    scored = score_recorded(
        recorded,
        specs,
        reporter,
        suite=suite,
        generation=GenerationRequest(raw_config, source, corpus),
        evidence=False,
    )
    assert scored.results is not None  # no dry run
    return scored.results


def run(
    config: PathLike = DEFAULT_CONFIG_NAME,
    *,
    log: PathLike | None = None,
    repeat: int | None = None,
    include_drafts: bool = False,
) -> Results:
    """Run the suite's system over its test set and score it, as ``ragguard run`` does (the
    run records are not written; the system's stderr goes to ``log`` when given). ``repeat``
    overrides ``system.repeat`` as ``--repeat`` does: every question asked that many times;
    ``include_drafts`` asks the drafted questions too, as ``--include-drafts``."""
    import sys

    from ragguard.config.load import load_config
    from ragguard.config.model import with_repeat
    from ragguard.config.sections.system import REPEAT_EXPECTED, is_whole_repeat
    from ragguard.pipeline.evaluate import evaluate
    from ragguard.pipeline.reporter import SilentReporter

    if repeat is not None and not is_whole_repeat(repeat):
        raise InputError("repeat", f"{REPEAT_EXPECTED}, found {repeat!r}")
    loaded = with_repeat(load_config(config), repeat)
    evaluation = evaluate(
        loaded,
        SilentReporter(progress_stream=sys.stderr),
        system_log=Path(log) if log is not None else None,
        failures_in_log=False,
        include_drafts=include_drafts,
    )
    return evaluation.results


def compare(
    baseline: Results | PathLike | None,
    head: Results | PathLike,
    *,
    config: PathLike | Literal[False] | None = None,
) -> Comparison:
    """Compare ``head`` with ``baseline`` (None: no baseline yet) under a suite's gate rules:
    ``config``'s ``gate:`` section; by default ./ragguard.yml when there is one, as the CLI
    reads it; ``False`` for the documented defaults."""
    from ragguard.compare.baseline import load_baseline
    from ragguard.config.load import load_gate_rules, local_config
    from ragguard.config.sections.gate import default_gate_rules
    from ragguard.pipeline.compare import compare_to_baseline

    if config is None:
        config = local_config()
    rules = default_gate_rules() if not config else load_gate_rules(config)
    head_results = head if isinstance(head, Results) else load(head)
    stored = (
        baseline if baseline is None or isinstance(baseline, Results) else load_baseline(baseline)
    )
    return compare_to_baseline(stored, head_results, rules)


def report(
    comparison: Comparison,
    kind: Literal["terminal", "comment", "summary"] = "terminal",
    testset: PathLike | None = None,
) -> str:
    """The comparison as the CLI prints it, as the PR comment, or as the job summary; with
    ``testset`` (the head's test set), the comment and the summary list its drafted
    questions as awaiting review, as `ragguard ci` lists them."""
    from ragguard.pipeline.drafts import awaiting_review
    from ragguard.render import comparison_terminal, render_comment, render_summary

    drafts = awaiting_review(testset) if testset is not None else ()

    renderers: dict[str, Callable[[], str]] = {
        "terminal": lambda: comparison_terminal(comparison),
        "comment": lambda: render_comment(comparison, drafts=drafts),
        "summary": lambda: render_summary(comparison, drafts=drafts),
    }
    if kind not in renderers:
        raise InputError("report", f"unknown kind {kind!r}; use terminal, comment or summary")
    return renderers[kind]()
