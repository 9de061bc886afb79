"""Gate inside a team's own test suite: one assertion that fails the test as the merge gate
would, with ragguard's report as the message (docs/api.md).

    from ragguard.testing import assert_gate

    def test_rag_quality():
        head = ragguard.api.run("ragguard.yml")
        assert_gate("eval/baseline.json", head)
"""

from __future__ import annotations

from ragguard.api import PathLike, compare, report
from ragguard.compare import WARN, Comparison
from ragguard.results.model import Results


def assert_gate(
    baseline: Results | PathLike | None,
    head: Results | PathLike,
    *,
    config: PathLike | None = None,
    fail_on_warn: bool = False,
) -> Comparison:
    """Raise AssertionError (the terminal report as its message) when the comparison blocks
    the merge (fail, error, incomparable set to fail), or warns with ``fail_on_warn``;
    return the comparison otherwise."""
    comparison = compare(baseline, head, config=config)
    if comparison.blocks or (fail_on_warn and comparison.verdict == WARN):
        raise AssertionError("ragguard gate: " + report(comparison, "terminal"))
    return comparison
