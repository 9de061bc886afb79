"""The plain-text report of a comparison that ``ragguard compare`` prints."""

from __future__ import annotations

from tabulate import tabulate

from ragguard.compare import FAILED_STATUSES, Comparison
from ragguard.compare.model import NO_BASELINE, PASS
from ragguard.render.agents import hop_lines, hop_text, tool_text
from ragguard.render.costs import COST_HEADER, cost_terminal_rows
from ragguard.render.judge_cost import judge_cost_line
from ragguard.render.power import too_small_lines
from ragguard.render.questions import (
    answered_unanswerable,
    answered_unanswerable_text,
    errored_runs_text,
    failing_questions,
    plain_rank_change,
)
from ragguard.render.repeats import repeat_lines
from ragguard.render.text import adjusted_note, fmt, p_text, printable, signed
from ragguard.render.verdict import coverage_line, ordered_reasons
from ragguard.testset.conversations import turn_number


def comparison_terminal(comparison: Comparison) -> str:
    """The plain-text report ``ragguard compare`` prints."""
    unmeasured = comparison.reported_verdict == NO_BASELINE  # nothing compared: no row says pass
    lines = [
        f"ragguard compare · suite {printable(comparison.suite)}: {comparison.reported_verdict.upper()}"
        + (" (no baseline yet)" if comparison.baseline_missing and not unmeasured else ""),
        printable(coverage_line(comparison), 300),
        *repeat_lines(comparison.repeats, lambda i: printable(i, 80)),
        "",
    ]
    rows = [
        [
            printable(m.name, 40),
            fmt(m.baseline),
            fmt(m.head),
            signed(m.delta) if m.only_in is None else f"only in {m.only_in}",
            "" if m.low is None else f"[{signed(m.low)}, {signed(m.high)}]",
            "" if m.p_value is None else p_text(m.p_value) + adjusted_note(m.p_value, m.p_adjusted),
            NO_BASELINE if unmeasured and m.verdict == PASS else m.verdict,
        ]
        for m in comparison.metrics
    ]
    lines.append(
        tabulate(
            rows,
            headers=["metric", "baseline", "head", "delta", "95% CI", "p", "verdict"],
            tablefmt="simple",
            disable_numparse=True,
        )
    )
    if comparison.costs:
        headers = [COST_HEADER, "baseline", "head", "change", "p", "budget"]
        lines += [
            "",
            tabulate(
                cost_terminal_rows(comparison),
                headers=headers,
                tablefmt="simple",
                disable_numparse=True,
            ),
        ]
    if comparison.reasons:
        lines.append("")
        for reason in ordered_reasons(comparison):
            subject = f"{printable(reason.subject, 80)}: " if reason.subject else ""
            lines.append(f"{reason.tier}: {subject}{reason.text}")
    for diff in comparison.setting_diffs:
        lines.append(
            f"  setting {printable(diff.key, 80)}: {printable(diff.baseline, 60)} -> "
            f"{printable(diff.head, 60)}"
        )
    too_small = too_small_lines(comparison.power, lambda name: printable(name, 40))
    if too_small:
        lines += ["", *too_small]
    failing = failing_questions(comparison)
    if failing and not comparison.baseline_missing:
        lines += ["", f"newly failing ({len(failing)}):"]
        for question in failing:
            notes = ["critical"] if question.critical else []
            if question.conversation is not None:
                turn = turn_number(question.id)
                notes.append(f"turn {turn} of {printable(question.conversation, 60)}")
            critical = f" ({', '.join(notes)})" if notes else ""
            if question.decided_by is not None:
                critical += f" ({question.decided_by.line()})"
            lines.append(
                f"  {printable(question.id, 80)}{critical}: {printable(question.question, 100)}"
            )
            if question.rank_change is not None:
                lines.append(f"    retrieval: {plain_rank_change(question.rank_change)}")
            for change in question.hops:
                lines.append(f"    {hop_text(change, baseline=True, markdown=False)}")
            if question.tools is not None:
                lines.append(f"    tools: {tool_text(question.tools, True, markdown=False)}")
            if question.unlabelled:
                unlabelled = question.unlabelled
                names = ", ".join(printable(chunk, 60) for chunk in unlabelled.chunks[:3])
                lines.append(f"    unlabelled, new in the top {unlabelled.k}: {names}")
            for sentence in question.hallucinated[:3]:
                lines.append(f"    unsupported: {printable(sentence.text, 120)}")
            if answered_unanswerable(question):
                lines.append(f"    {answered_unanswerable_text(markdown=False)}")
            if question.head_status in FAILED_STATUSES:
                lines.append(f"    {question.head_status}: {printable(question.error or '', 120)}")
            elif errored_runs_text(question):
                lines.append(f"    {printable(errored_runs_text(question), 160)}")
    lines += hop_lines(comparison.hops)
    spent = judge_cost_line(comparison.judge, comparison.recheck_judge)
    if spent:
        lines += ["", spent]
    return "\n".join(lines) + "\n"
