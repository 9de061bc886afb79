"""The comment's note on the gate: whose gate rules judged a pull request (the target
branch's, its own by ``gate.rules_from``, or its own on the first setup), against which
baseline, and what the pull request changes of the gate, its ``baseline:`` section and its
questions (those changes take effect once merged)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragguard.compare import REMOVED, Comparison
from ragguard.config.sections.gate import GateRules, GateSource, MetricRule
from ragguard.render.text import and_more, escape_markdown

RULE_FIELDS = ("min", "warn_min", "max_drop", "warn_drop", "alpha")
LISTED_IDS = 5  # question ids named in the change line before "and N more"


def gate_changes(trusted: GateRules, proposed: GateRules) -> tuple[str, ...]:
    """Each difference of ``proposed`` from ``trusted``, as ``what before → after``."""
    changes = [
        *_rule_changes("", trusted.default, proposed.default),
        *_changed("max_error_rate", trusted.max_error_rate, proposed.max_error_rate),
        *_changed("on_incomparable", trusted.on_incomparable, proposed.on_incomparable),
        *_changed("on_removed", trusted.on_removed, proposed.on_removed),
        *_changed("rules_from", trusted.rules_from, proposed.rules_from),
        *_changed("critical", trusted.critical_blocks, proposed.critical_blocks),
    ]
    for name in sorted({*trusted.metrics, *proposed.metrics}):
        changes += _rule_changes(f"{name} ", trusted.rule_for(name), proposed.rule_for(name))
    if trusted.per_question != proposed.per_question:
        changes.append(
            f"per_question {_per_question(trusted.per_question)} → "
            f"{_per_question(proposed.per_question)}"
        )
    return tuple(changes)


def question_changes(comparison: Comparison) -> tuple[str, ...]:
    """The questions a pull request removes, relabels or unmarks as critical, as phrases
    with their ids (an unmarked question stays critical until the change is merged)."""
    removed = [q.id for q in comparison.of_kind(REMOVED)]
    relabelled = [q.id for q in comparison.relabelled]
    unmarked = [q.id for q in comparison.unmarked_critical]
    phrases = []
    if removed:
        phrases.append(f"removes {_counted(len(removed), 'question')} ({_ids(removed)})")
    if relabelled:
        phrases.append(f"relabels {_counted(len(relabelled), 'question')} ({_ids(relabelled)})")
    if unmarked:
        phrases.append(
            f"unmarks {_counted(len(unmarked), 'critical question')} ({_ids(unmarked)}), "
            f"which {'stays' if len(unmarked) == 1 else 'stay'} critical until merged"
        )
    return tuple(phrases)


def gate_note(
    source: GateSource,
    comparison: Comparison,
    baseline: str = "",
    option_changes: Sequence[str] = (),
) -> str:
    """The comment's top lines: whose gate rules judged, against which baseline (``baseline``,
    markdown), and what the pull request changes of the gate (and of ``option_changes``:
    the ``baseline:`` section, from :func:`baseline_changes`)."""
    branch = escape_markdown(source.branch or "the target branch", 100)  # no code span: a
    # branch name may hold a backtick
    at = f" at `{source.commit[:12]}`" if source.commit else ""
    against = f" Compared with {baseline}." if baseline else ""
    rule_changes = (
        (*gate_changes(source.rules, source.proposed), *option_changes)
        if source.origin == "target" and source.proposed is not None
        else ()
    )
    changes = [escape_markdown(c, 200) for c in rule_changes] + list(question_changes(comparison))
    if source.origin == "pull-request":
        head = (
            f"> Judged by this pull request's own gate rules: {branch}'s ragguard.yml{at} "
            "sets `gate.rules_from: pull-request`."
        )
    elif source.origin == "no-target":
        head = (
            f"> {branch} has no ragguard.yml{at}: this pull request's own gate rules apply "
            "(the first setup)."
        )
    else:
        head = f"> Judged by {branch}'s gate rules (ragguard.yml{at}), not this pull request's."
    lines = [head + against]
    if changes:
        lines += [">", "> **This pull request changes the gate:** " + "; ".join(changes) + "."]
    if rule_changes:
        lines.append("> The rule changes take effect once merged.")
    return "\n".join(lines) + "\n\n"


def baseline_changes(trusted: Any, proposed: Any) -> tuple[str, ...]:
    """What the pull request changes of where the baseline comes from (two CiOptions)."""
    return tuple(
        change
        for key, name in (
            ("baseline_store", "baseline.store"),
            ("baseline_branch", "baseline.branch"),
            ("baseline_file", "baseline.file"),
            ("rerun", "baseline.rerun"),
        )
        for change in _changed(name, getattr(trusted, key), getattr(proposed, key))
    )


def _rule_changes(prefix: str, before: MetricRule, after: MetricRule) -> list[str]:
    return [
        change
        for name in RULE_FIELDS
        for change in _changed(prefix + name, getattr(before, name), getattr(after, name))
    ]


def _changed(what: str, before: object, after: object) -> list[str]:
    return [] if before == after else [f"{what} {_value(before)} → {_value(after)}"]


def _value(value: object) -> str:
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _per_question(rule: Mapping[str, float] | None) -> str:
    if rule is None:
        return "default"
    return "{" + ", ".join(f"{name}: {value:g}" for name, value in rule.items()) + "}"


def _counted(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _ids(ids: list[str]) -> str:
    return and_more([escape_markdown(i, 80) for i in ids[:LISTED_IDS]], len(ids))
