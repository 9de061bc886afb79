"""The one line a report gives to what the judge cost:
``judge: 1,240 calls, 0 cached, 1.1M tokens, $0.42``.

The totals are everything the judge cost for the report: the head run and, in `ragguard ci`,
the reruns of its rechecks, whose share follows in parentheses when they were judged
(``judge: 1,260 calls, 3 cached, 1.1M tokens, $0.43 (of which rechecks: 20 calls, 3 cached,
12.4k tokens, $0.01)``). ``~`` marks tokens (and the cost from them) that were estimated
because the server reported no ``usage`` for some reply; the cost part is there only with
``judge.price``. No judge, no line. Every part is ragguard's own numbers: nothing from the
evaluated system.
"""

from __future__ import annotations

from ragguard.compare.costs import money
from ragguard.results.judging import JudgeCosts, combined_costs


def judge_cost_line(costs: JudgeCosts | None, rechecks: JudgeCosts | None = None) -> str:
    """The line for the comment and the job summary: ``costs`` (the head run's) and
    ``rechecks`` (its rechecks' reruns') summed; "" without a judge."""
    spent = combined_costs((costs, rechecks))
    if spent is None:
        return ""
    line = "judge: " + _parts(spent)
    if rechecks is not None and rechecks.judged:
        line += f" (of which rechecks: {_parts(rechecks)})"
    return line


def _parts(costs: JudgeCosts) -> str:
    """``1,240 calls, 0 cached, 1.1M tokens, $0.42``."""
    about = "~" if costs.estimated else ""
    calls = f"{costs.calls:,} call{'s' if costs.calls != 1 else ''}"
    parts = [calls, f"{costs.cached:,} cached", f"{about}{short_count(costs.tokens)} tokens"]
    cost = costs.cost
    if cost is not None:
        parts.append(about + money(cost))
    return ", ".join(parts)


def short_count(count: int) -> str:
    """``812``, ``12.4k``, ``1.1M``: three figures at most past a thousand."""
    if count < 1000:
        return str(count)
    for size, unit in ((1_000, "k"), (1_000_000, "M")):
        shown = f"{count / size:.3g}"
        if float(shown) < 1000:
            return shown + unit
    return f"{count / 1_000_000_000:,.3g}B"
