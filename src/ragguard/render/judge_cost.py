"""The one line a report gives to what the judge cost:
``judge: 1,240 calls, 0 cached, 1.1M tokens, $0.42``.

``~`` marks tokens (and the cost from them) that were estimated because the server reported
no ``usage`` for some reply; the cost part is there only with ``judge.price``. No judge, no
line. Every part is ragguard's own numbers: nothing from the evaluated system.
"""

from __future__ import annotations

from ragguard.compare.costs import money
from ragguard.results.judging import JudgeCosts


def judge_cost_line(costs: JudgeCosts | None) -> str:
    """The line for the comment, the job summary and the terminal; "" without a judge."""
    if costs is None:
        return ""
    about = "~" if costs.estimated else ""
    calls = f"{costs.calls:,} call{'s' if costs.calls != 1 else ''}"
    parts = [calls, f"{costs.cached:,} cached", f"{about}{short_count(costs.tokens)} tokens"]
    cost = costs.cost
    if cost is not None:
        parts.append(about + money(cost))
    return "judge: " + ", ".join(parts)


def short_count(count: int) -> str:
    """``812``, ``12.4k``, ``1.1M``: three figures at most past a thousand."""
    if count < 1000:
        return str(count)
    for size, unit in ((1_000, "k"), (1_000_000, "M")):
        shown = f"{count / size:.3g}"
        if float(shown) < 1000:
            return shown + unit
    return f"{count / 1_000_000_000:,.3g}B"
