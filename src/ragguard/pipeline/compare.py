"""Compare a head with its baseline under the gate, and the reports made from the comparison.

The one place a comparison is made: ``ragguard compare`` and ``ragguard power``, `ragguard ci`,
:func:`ragguard.api.compare` and the demo all come here. A baseline is a
:class:`~ragguard.compare.baseline.BaselineFile`: a results file, or a stored baseline with the
commit, branch and time it describes (its provenance), however it was fetched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ragguard.compare import Comparison, compare
from ragguard.compare.baseline import BaselineFile, load_baseline
from ragguard.compare.detectable import Detectable
from ragguard.compare.power import is_repeated, results_power
from ragguard.config.sections.gate import GateRules
from ragguard.core.errors import InputError
from ragguard.results.io import load_results
from ragguard.results.model import Results
from ragguard.testset.model import Question

NO_BASELINE_SOURCE = "noise assumed from this run alone: runs treated as independent (no baseline)"
REPEATS_SOURCE = (
    "noise measured from this run's repeats: the spread between each question's runs (no baseline)"
)
BASELINE_SOURCE = "noise measured from the comparison with the baseline"


def compare_to_baseline(
    baseline: BaselineFile | Results | None, head: Results, rules: GateRules
) -> Comparison:
    """``head`` against ``baseline`` (None: no baseline yet) under ``rules``; a stored
    baseline brings its provenance (which commit, which branch, how old)."""
    if isinstance(baseline, BaselineFile):
        return compare(baseline.results, head, rules, provenance=baseline.provenance(head))
    return compare(baseline, head, rules)


def read_baseline(
    path: Path, head: Results, head_path: Path, *, allow_missing: bool, allow_suite_change: bool
) -> BaselineFile | None:
    """The baseline file ``ragguard compare`` was given, checked against the head: a missing
    file is an error unless ``allow_missing`` (then None: no baseline yet), and so is another
    suite's unless ``allow_suite_change``."""
    if not path.exists():
        if allow_missing:
            return None
        raise InputError(
            path,
            "baseline results not found; check the path, or pass --allow-missing-baseline "
            "for a 'no baseline yet' report",
        )
    stored = load_baseline(path)
    if stored.results.suite != head.suite and not allow_suite_change:
        raise InputError(
            head_path,
            f"suite {head.suite!r}, but the baseline's is {stored.results.suite!r}; compare "
            "results of one suite, or pass --allow-suite-change",
        )
    return stored


def compare_files(
    baseline_path: Path,
    head_path: Path,
    rules: GateRules,
    *,
    allow_missing_baseline: bool = False,
    allow_suite_change: bool = False,
) -> Comparison:
    """Two results files compared, as ``ragguard compare`` compares them."""
    head = load_results(head_path)
    stored = read_baseline(
        baseline_path,
        head,
        head_path,
        allow_missing=allow_missing_baseline,
        allow_suite_change=allow_suite_change,
    )
    return compare_to_baseline(stored, head, rules)


@dataclass(frozen=True)
class Power:
    """What a test set can detect per gated metric, and where the noise was measured."""

    metrics: Sequence[Detectable]
    source: str


def detectable_drops(head: Results, baseline_path: Path | None, rules: GateRules) -> Power:
    """The power of ``head``'s test set: from the comparison with a baseline when given,
    else from the run alone (its repeats when it has them)."""
    if baseline_path is None:
        source = REPEATS_SOURCE if is_repeated(head) else NO_BASELINE_SOURCE
        return Power(results_power(head, rules), source)
    if not baseline_path.exists():
        raise InputError(baseline_path, "baseline results not found; check the path")
    baseline = load_baseline(baseline_path).results
    if baseline.suite != head.suite:
        raise InputError(
            baseline_path,
            f"suite {baseline.suite!r}, but the results' is {head.suite!r}; measure the noise "
            "against a baseline of the same suite",
        )
    comparison = compare(baseline, head, rules)
    return Power(comparison.power, BASELINE_SOURCE)


def report_files(
    comparison: Comparison,
    *,
    comment: Path | None = None,
    summary: Path | None = None,
    junit: Path | None = None,
    json: Path | None = None,
    template: Path | None = None,
    drafts: Sequence[Question] = (),
) -> list[tuple[Path, str]]:
    """The reports asked for, as (path, text): the PR comment, the job summary, JUnit XML and
    the comparison's JSON. Rendered here, written by the caller (all or none). ``drafts``:
    the head test set's drafted questions, which the comment and the summary list."""
    from ragguard.compare.serialise import comparison_json
    from ragguard.render import render_comment, render_summary
    from ragguard.render.junit import comparison_junit

    makers: tuple[tuple[Path | None, Callable[[], str]], ...] = (
        (comment, lambda: render_comment(comparison, template, drafts=drafts)),
        (summary, lambda: render_summary(comparison, template, drafts=drafts)),
        (junit, lambda: comparison_junit(comparison)),
        (json, lambda: comparison_json(comparison)),
    )
    return [(path, make()) for path, make in makers if path is not None]
