"""What answers cost, compared: latency percentiles, tokens and cost per answer, and budgets.

These metrics are lower-is-better (metrics/names.py ``higher_is_better``): a positive delta is
worse. Per question, the latency is the system's time for the answer (``latency_ms``, shown in
seconds) and the tokens and cost come from the ``usage`` the system reported (usage.py). Only
answered questions count: an error or a missing answer has no cost worth comparing (and a
timeout's latency is the timeout).

* ``latency_p50`` / ``latency_p95``: the percentile over the paired questions on each side;
  their p-value is the paired sign-flip test on the per-question latencies (a percentile's
  shift has no paired test of its own; a slower system is slower on most questions).
* ``judge_cost``: what the judge cost over the head run (results.json ``judge.cost``, at
  ``judge.price``), a run's total beside the baseline's; only a ``max`` budget.
* ``tokens`` / ``cost`` / ``steps``: the mean per answer (``steps``: how many steps an
  agent's run took, docs/agents.md), with the same paired test and a bootstrap interval of
  the mean paired change.

Budgets (config/sections/gate.py): ``max`` fails a head value above it; ``max_increase``
fails a significant rise of more than that share of the baseline.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ragguard.compare.metrics import bootstrap_for  # the per-n cache the quality metrics share
from ragguard.compare.model import EPSILON, FAIL, PASS, MetricComparison
from ragguard.config.sections.gate import GateRules, MetricRule
from ragguard.metrics.names import JUDGE_COST, LATENCY_METRICS
from ragguard.metrics.stats import PairedTest, mean, paired_test, percentile
from ragguard.results.model import STATUS_ERROR, STATUS_MISSING, QuestionResult, Results

Pairs = Sequence[tuple[QuestionResult, QuestionResult]]
_NOT_ANSWERED = (STATUS_ERROR, STATUS_MISSING)


def latency_seconds(question: QuestionResult) -> float | None:
    if question.status in _NOT_ANSWERED or question.latency_ms is None:
        return None
    return question.latency_ms / 1000.0


def answer_tokens(question: QuestionResult) -> float | None:
    usage = question.usage
    return usage.tokens if usage is not None and question.status not in _NOT_ANSWERED else None


def answer_cost(question: QuestionResult) -> float | None:
    usage = question.usage
    return usage.cost if usage is not None and question.status not in _NOT_ANSWERED else None


def answer_steps(question: QuestionResult) -> float | None:
    agent = question.agent
    if agent is None or agent.steps is None or question.status in _NOT_ANSWERED:
        return None
    return float(agent.steps)


PER_QUESTION: dict[str, Callable[[QuestionResult], float | None]] = {
    "latency_p50": latency_seconds,
    "latency_p95": latency_seconds,
    "tokens": answer_tokens,
    "cost": answer_cost,
    "steps": answer_steps,
}


def summarise(name: str, values: Sequence[float]) -> float:
    """The metric over per-question values: a percentile for latency, else the mean."""
    if name == "latency_p50":
        return percentile(values, 50)
    if name == "latency_p95":
        return percentile(values, 95)
    return mean(values)


def head_values(name: str, results: Results) -> list[float]:
    of = PER_QUESTION[name]
    return [v for v in map(of, results.questions) if v is not None]


def cost_comparisons(
    baseline: Results | None, head: Results, pairs: Pairs, rules: GateRules
) -> tuple[MetricComparison, ...]:
    """Every cost metric the head reports, compared with the baseline when both have it."""
    found = []
    tests: dict[object, PairedTest] = {}  # one test per per-question value (p50 and p95 share)
    for name in PER_QUESTION:
        values = head_values(name, head)
        if not values:
            continue
        if baseline is None:
            found.append(_head_only(name, values, rules.rule_for(name)))
        else:
            found.append(_compared(name, values, pairs, rules.rule_for(name), tests))
    judged = judge_cost_comparison(baseline, head, rules.rule_for(JUDGE_COST))
    return tuple(found) + ((judged,) if judged is not None else ())


def judge_cost_comparison(
    baseline: Results | None, head: Results, rule: MetricRule
) -> MetricComparison | None:
    """``judge_cost``: what judging the head run cost at ``judge.price``, beside the
    baseline's (a run's total: no paired test, only the ``max`` budget); None when the head
    has no priced judge cost."""
    value = head.judge.cost if head.judge is not None else None
    if value is None:
        return None
    old = baseline.judge.cost if baseline is not None and baseline.judge is not None else None
    delta = value - old if old is not None else None
    verdict, notes = budget_verdict(JUDGE_COST, old, value, delta, None, rule)
    n = len(head.judge.judged) if head.judge is not None else 0
    return MetricComparison(
        JUDGE_COST,
        n,
        old,
        value,
        delta=delta,
        verdict=verdict,
        notes=notes,
        only_in="head" if baseline is not None and old is None else None,
        head_overall=value,
    )


def _head_only(name: str, values: Sequence[float], rule: MetricRule) -> MetricComparison:
    value = summarise(name, values)
    verdict, notes = budget_verdict(name, None, value, None, None, rule)
    return MetricComparison(
        name, len(values), None, value, verdict=verdict, notes=notes, head_overall=value
    )


def _compared(
    name: str,
    values: Sequence[float],
    pairs: Pairs,
    rule: MetricRule,
    tests: dict[object, PairedTest],
) -> MetricComparison:
    of = PER_QUESTION[name]
    both = [(of(b), of(h)) for b, h in pairs]
    paired = [(b, h) for b, h in both if b is not None and h is not None]
    head_overall = summarise(name, values)
    if not paired:
        verdict, notes = budget_verdict(name, None, head_overall, None, None, rule)
        return MetricComparison(
            name,
            len(values),
            None,
            head_overall,
            verdict=verdict,
            notes=notes,
            only_in="head",
            head_overall=head_overall,
        )
    before, after = [b for b, _ in paired], [h for _, h in paired]
    if of not in tests:
        # the paired tests are one-sided for a drop; a cost is worse when it rises, so the
        # sides are swapped: a drop from head to baseline is a rise from baseline to head
        tests[of] = paired_test(after, before, binary=False)
    test = tests[of]
    old, new = summarise(name, before), summarise(name, after)
    low = high = None
    if name not in LATENCY_METRICS:
        interval = bootstrap_for(len(paired)).interval([h - b for b, h in paired])
        low, high = interval.low, interval.high
    verdict, notes = budget_verdict(name, old, new, new - old, test.p_value, rule)
    return MetricComparison(
        name=name,
        n=len(paired),
        baseline=old,
        head=new,
        delta=new - old,
        low=low,
        high=high,
        p_value=test.p_value,
        test=test.method,
        verdict=verdict,
        notes=notes,
        head_overall=head_overall,
    )


def budget_verdict(
    name: str,
    baseline: float | None,
    head: float | None,
    delta: float | None,
    p_value: float | None,
    rule: MetricRule,
) -> tuple[str, tuple[str, ...]]:
    """pass or fail for one cost metric under its budgets, with the notes that explain a fail."""
    notes: list[str] = []
    if head is not None and rule.max is not None and head > rule.max + EPSILON:
        notes.append(f"{cost_text(name, head)} is over the budget max {cost_text(name, rule.max)}")
    if (
        rule.max_increase is not None
        and baseline is not None
        and delta is not None
        and p_value is not None
        and delta > EPSILON
    ):
        share = delta / baseline if baseline > 0 else float("inf")
        significant = rule.alpha is None or p_value < rule.alpha
        if significant and share > rule.max_increase + EPSILON:
            why = f"p < alpha {rule.alpha:g}" if rule.alpha is not None else "alpha off"
            rise = f"{share:.0%}" if share != float("inf") else "from 0"
            notes.append(
                f"rose {rise}, {cost_text(name, baseline)} → {cost_text(name, head)} "
                f"(more than max_increase {rule.max_increase:.0%}; {why})"
            )
    return (FAIL, tuple(notes)) if notes else (PASS, ())


def cost_text(name: str, value: float) -> str:
    """A cost metric's value with its unit: ``1.24s``, ``812 tokens``, ``0.0031``."""
    if name in LATENCY_METRICS:
        return f"{value:.2f}s"
    if name == "tokens":
        return f"{value:,.0f} tokens"
    if name == "steps":
        return f"{value:.3g} steps"
    if name == JUDGE_COST:
        return money(value)
    return f"{value:.4g}"


def money(value: float) -> str:
    """A judge cost: ``$0.42``, ``$1,204.10``; under a cent two figures, ``$0.000054``."""
    if value <= 0 or value >= 0.01:
        return f"${value:,.2f}"
    decimals = 1 - math.floor(math.log10(value))  # two significant figures, no exponent
    return f"${value:.{decimals}f}"
