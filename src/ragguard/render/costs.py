"""The cost and latency rows of a report: lower is better, so a rise reads as worse.

A row is shown in the comment only when its metric failed a budget or moved: tokens and cost
by COST_MIN_SHARE of the baseline; latency by the latency line's own threshold (the line
above the table always shows latency that moved, so latency rows appear only for metrics
with a budget). The full report shows every tokens and cost row, and budgeted latency rows.

The table is headed COST_HEADER and each row says what its value is of (``cost_label``):
``tokens``, ``cost`` and ``steps`` are means per answer, ``judge_cost`` the whole run's
total, the latency percentiles are of the answers' latencies (their names say so).
"""

from __future__ import annotations

from ragguard.compare import FAIL, Comparison, MetricComparison
from ragguard.compare.costs import cost_text
from ragguard.metrics.names import JUDGE_COST, LATENCY_METRICS, higher_is_better
from ragguard.render.text import MINUS, code_name, p_phrase, p_text, small_duration

COST_HEADER = "cost and latency (lower is better)"
COST_MIN_SHARE = 0.05
LATENCY_MIN_SECONDS = 0.05
LATENCY_MIN_SHARE = 0.2


def cost_label(name: str) -> str:
    """What a cost row's value is of, after its name: `` per answer``, `` per run`` or ""."""
    if name in LATENCY_METRICS:
        return ""
    return " per run" if name == JUDGE_COST else " per answer"


def cost_rows(comparison: Comparison, compact: bool) -> list[dict[str, str]]:
    """The table's rows, already escaped (names are ragguard's own)."""
    return [
        _row(m, _budgeted(m, comparison))
        for m in comparison.costs
        if _listed(m, comparison) and (not compact or m.verdict == FAIL or cost_moved(m))
    ]


def _listed(metric: MetricComparison, comparison: Comparison) -> bool:
    if metric.verdict == FAIL or metric.name not in LATENCY_METRICS:
        return True
    return _budgeted(metric, comparison)


def _budgeted(metric: MetricComparison, comparison: Comparison) -> bool:
    rule = comparison.rules.rule_for(metric.name)
    return rule.max is not None or rule.max_increase is not None


def cost_moved(metric: MetricComparison) -> bool:
    """Moved enough to be news: see the module's docstring."""
    if metric.delta is None or metric.baseline is None:
        return False
    change = abs(metric.delta)
    if metric.name in LATENCY_METRICS:
        return change >= LATENCY_MIN_SECONDS and change >= LATENCY_MIN_SHARE * metric.baseline
    return change > 0 and change >= COST_MIN_SHARE * metric.baseline


def cost_change(metric: MetricComparison) -> str:
    """``▲ +0.31s (+24%), worse``; the arrow is the direction, the word says which is good."""
    if metric.delta is None or metric.baseline is None:
        return "–"
    if metric.delta == 0:
        return "= 0"
    amount = _visible_amount(metric.name, abs(metric.delta))
    up = metric.delta > 0
    sign = "+" if up else MINUS
    share = f" ({sign}{_share(abs(metric.delta) / metric.baseline)})" if metric.baseline > 0 else ""
    better = up == higher_is_better(metric.name)
    return f"{'▲' if up else '▼'} {sign}{amount}{share}, {'better' if better else 'worse'}"


def _visible_amount(name: str, change: float) -> str:
    """A change in the metric's unit, or, where that rounds it to nothing (a head slower by
    microseconds on every question), in one that shows it."""
    amount = cost_text(name, change)
    if amount != cost_text(name, 0.0):
        return amount
    if name in LATENCY_METRICS:
        return small_duration(change)
    return f"{change:.2g}" + (" tokens" if name == "tokens" else "")


def _share(share: float) -> str:
    return f"{share:.0%}" if share >= 0.005 else "<1%"


def cost_terminal_rows(comparison: Comparison) -> list[list[str]]:
    """Every cost metric as plain-text cells, for ``ragguard compare``'s table."""
    return [
        [
            metric.name + cost_label(metric.name),
            "" if metric.baseline is None else cost_text(metric.name, metric.baseline),
            "" if metric.head is None else cost_text(metric.name, metric.head),
            cost_change(metric),
            "" if metric.p_value is None else p_text(metric.p_value),
            metric.verdict if _budgeted(metric, comparison) else "no budget",
        ]
        for metric in comparison.costs
    ]


def _row(metric: MetricComparison, budgeted: bool) -> dict[str, str]:
    verdict = "❌ over budget" if metric.verdict == FAIL else "✅ within budget"
    return {
        "name": code_name(metric.name) + cost_label(metric.name),
        "baseline": "–" if metric.baseline is None else cost_text(metric.name, metric.baseline),
        "head": "–" if metric.head is None else cost_text(metric.name, metric.head),
        "change": cost_change(metric),
        "p": "–" if metric.p_value is None else p_phrase(metric.p_value),
        "verdict": verdict if budgeted else "no budget",
    }
