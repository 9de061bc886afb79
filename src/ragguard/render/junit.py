"""JUnit XML of a comparison, so any CI's test view shows the gate.

One testsuite per comparison: a testcase per metric rule (``metric.hit_rate@3``), one per
gate check (error rate, comparable settings, critical questions) and one per question
(``question.<id>``). A question that fails the per-question rule is a failure, its message
saying whether it newly fails; a question the system or judge could not answer is an error.
Warnings pass, with the warning in ``system-out``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ragguard.compare import (
    ERROR,
    FAIL,
    FAILED_STATUSES,
    INCOMPARABLE,
    NEWLY_FAILING,
    PASSING,
    REMOVED,
    WARN,
    Comparison,
    QuestionDiff,
    RuleMiss,
)
from ragguard.metrics.names import ABSTENTION
from ragguard.render.questions import answered_unanswerable_text

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: object, limit: int = 2000) -> str:
    """Text that XML 1.0 can carry, cut at ``limit`` characters."""
    flat = _XML_INVALID.sub("", str(text))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def comparison_junit(comparison: Comparison) -> str:
    """The comparison as a JUnit XML document (deterministic: fixed order, no timestamps)."""
    suite = ET.Element("testsuite", name=f"ragguard.{_clean(comparison.suite, 200)}")
    _gate_cases(suite, comparison)
    for metric in comparison.metrics:
        case = _case(suite, f"metric.{metric.name}", "metrics")
        notes = "; ".join(metric.notes)
        if metric.only_in is not None:
            _child(case, "system-out", f"only in the {metric.only_in}; not compared")
        elif metric.verdict == FAIL:
            _child(case, "failure", notes, message=_clean(notes, 500), type="regression")
        elif metric.verdict == WARN:
            _child(case, "system-out", f"warning: {notes}")
    for question in comparison.questions:
        if question.kind != REMOVED:
            _question_case(suite, question)
    counts = {
        "tests": len(suite),
        "failures": sum(1 for case in suite if case.find("failure") is not None),
        "errors": sum(1 for case in suite if case.find("error") is not None),
        "skipped": 0,
    }
    for key, value in counts.items():
        suite.set(key, str(value))
    root = ET.Element("testsuites", name="ragguard")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _gate_cases(suite: ET.Element, comparison: Comparison) -> None:
    by_tier = {
        tier: [r for r in comparison.reasons if r.tier == tier] for tier in (ERROR, INCOMPARABLE)
    }
    case = _case(suite, "gate.error_rate", "gate")
    if by_tier[ERROR]:
        _child(case, "error", by_tier[ERROR][0].text, message=by_tier[ERROR][0].text, type="error")
    case = _case(suite, "gate.comparable_settings", "gate")
    if by_tier[INCOMPARABLE]:
        detail = "\n".join(f"{d.key}: {d.baseline} -> {d.head}" for d in comparison.setting_diffs)
        kind = "failure" if comparison.blocks else "system-out"
        _child(case, kind, detail, message=by_tier[INCOMPARABLE][0].text, type="incomparable")
    newly = [q for q in comparison.of_kind(NEWLY_FAILING) if q.critical]
    critical = [q for q in newly if not q.flaky_failure]
    case = _case(suite, "gate.critical_questions", "gate")
    if critical and comparison.rules.critical_blocks:
        ids = ", ".join(q.id for q in critical)
        _child(
            case, "failure", ids, message=f"critical questions newly fail: {ids}", type="critical"
        )
    elif len(newly) > len(critical) and comparison.rules.critical_blocks:
        flaky = ", ".join(f"{q.id} ({q.decided_by.line()})" for q in newly if q.decided_by)
        _child(case, "system-out", f"flaky critical questions, not regressions: {flaky}")


def _question_case(suite: ET.Element, question: QuestionDiff) -> None:
    case = _case(suite, f"question.{question.id}", "questions")
    if question.head_status in FAILED_STATUSES:
        _child(
            case,
            "error",
            question.error or "",
            message=f"{question.head_status}: {question.error or 'no detail'}",
            type=question.head_status or "error",
        )
    elif question.kind not in (PASSING, "fixed") and (question.misses or question.hallucinated):
        detail = "\n".join(
            [_miss_line(miss) for miss in question.misses]
            + [f"unsupported: {s.text}" for s in question.hallucinated]
        )
        message = (
            "newly failing"
            if question.kind == NEWLY_FAILING
            else f"failing ({question.kind.replace('_', ' ')})"
        )
        _child(case, "failure", detail, message=message, type=question.kind)


def _miss_line(miss: RuleMiss) -> str:
    """A rule the question misses, plain (``abstention``: the why in words)."""
    if miss.metric == ABSTENTION:
        return f"{miss.metric}: {answered_unanswerable_text(markdown=False)}"
    return f"{miss.metric}: {miss.head} (needs >= {miss.threshold:g})"


def _case(suite: ET.Element, name: str, classname: str) -> ET.Element:
    return ET.SubElement(
        suite, "testcase", name=_clean(name, 300), classname=f"ragguard.{classname}", time="0"
    )


def _child(case: ET.Element, tag: str, text: str, **attributes: str) -> None:
    element = ET.SubElement(case, tag, {k: _clean(v, 500) for k, v in attributes.items()})
    element.text = _clean(text)
