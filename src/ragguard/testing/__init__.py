"""Gate inside a team's own test suite: one assertion that fails the test as the merge gate
would, its message the verdict and reasons first, then ragguard's report (docs/api.md).

    from ragguard.testing import assert_gate

    def test_rag_quality(rag_results):
        assert_gate("eval/baseline.json", rag_results)

The pytest plugin beside it (:mod:`ragguard.testing.plugin`, registered by the package's
``pytest11`` entry point) registers the ``rag`` marker and the ``rag_results`` fixture.
Nothing is imported from the rest of ragguard until a gate is asked for: pytest loads the
plugin in every run of a project that has ragguard installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragguard.api import PathLike
    from ragguard.compare import Comparison
    from ragguard.results.model import Results

REASONS_IN_FIRST_LINE = 3


def assert_gate(
    baseline: Results | PathLike | None,
    head: Results | PathLike,
    *,
    config: PathLike | None = None,
    fail_on_warn: bool = False,
) -> Comparison:
    """Raise AssertionError when the comparison blocks the merge (fail, error, incomparable
    set to fail), or warns with ``fail_on_warn``; return the comparison otherwise. The
    message's first line is the verdict and its reasons (what pytest's short summary
    shows), then the terminal report; this function's frame is hidden from the traceback."""
    __tracebackhide__ = True
    from ragguard.api import compare
    from ragguard.compare import WARN

    comparison = compare(baseline, head, config=config)
    if comparison.blocks or (fail_on_warn and comparison.verdict == WARN):
        raise AssertionError(gate_message(comparison))
    return comparison


def gate_message(comparison: Comparison) -> str:
    """``FAIL: reason; reason; …`` on the first line, a blank line, then the report."""
    from ragguard.api import report
    from ragguard.render.text import printable
    from ragguard.render.verdict import ordered_reasons

    reasons = [
        f"{printable(r.subject, 80)}: {r.text}" if r.subject else r.text
        for r in ordered_reasons(comparison)
    ]
    shown = "; ".join(reasons[:REASONS_IN_FIRST_LINE])
    if len(reasons) > REASONS_IN_FIRST_LINE:
        shown += f"; and {len(reasons) - REASONS_IN_FIRST_LINE} more (below)"
    verdict = comparison.reported_verdict.upper()
    first = f"{verdict}: {shown}" if shown else verdict
    return f"{first}\n\n{report(comparison, 'terminal')}"
