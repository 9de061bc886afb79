"""Calibration: how often the lexical method and the judge agree with human verdicts.

A calibration set (YAML list or JSON Lines) holds items of two levels::

    - id: changed-number-1
      kind: changed number                     # optional group for the per-kind table
      context: {rate-limits: "Each API key may send 100 requests per minute."}
      sentence: Each API key may send 200 requests per minute.
      supported: false                         # the human verdict on the sentence
    - id: answer-7
      question: How do I retry after a 429?    # optional, given to the judge
      context: ["chunk text", "another chunk"] # a list (ids c1, c2, ...) or one string
      answer: Wait for Retry-After seconds. Then retry.
      faithful: true                           # the human verdict: every statement supported

Or the test set carries the verdicts, on the answers of a recorded run: a question's
``meta: {human: {faithful: true, sentences: {s1: true, s3: false}}}`` (see
:func:`ragguard.judge.human_verdicts.items_from_run`).

A method's verdict on an item is "supported" when every statement of the sentence or answer
that it can check is supported. Agreement is reported as accuracy and Cohen's kappa.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragguard.core.errors import InputError, Where
from ragguard.core.sources import iter_jsonl_objects, read_text, type_name
from ragguard.core.yaml_lines import LineDict, LineList, id_as_written, parse_yaml
from ragguard.metrics.faithfulness import DEFAULT_THRESHOLD, lexical_verdicts
from ragguard.metrics.generation import answer_item
from ragguard.metrics.judging import JudgeItem, JudgeOutcome
from ragguard.metrics.text import segment

ITEM_KEYS = ("id", "kind", "question", "context", "sentence", "supported", "answer", "faithful")


@dataclass(frozen=True, slots=True)
class InAnswer:
    """Where a sentence verdict sits: the answer (by question id) and the statement's id."""

    key: str
    text: str
    sentence_id: str


@dataclass(frozen=True)
class CalibrationItem:
    """One human verdict: on a single sentence, or on a whole answer."""

    id: str
    level: str  # "sentence" or "answer"
    text: str
    human: bool
    context: tuple[tuple[str, str], ...]
    kind: str = ""
    question: str = ""
    in_answer: InAnswer | None = None  # a statement of a recorded answer (meta.human)


@dataclass(frozen=True, slots=True)
class Agreement:
    """A method's agreement with the human verdicts over the items it could judge."""

    n: int
    agree: int
    kappa: float
    failed: int = 0

    @property
    def accuracy(self) -> float:
        return self.agree / self.n if self.n else 0.0


def cohen_kappa(pairs: Sequence[tuple[bool, bool]]) -> float:
    """Cohen's kappa of two binary raters. When chance agreement is 1 (both raters used one
    class only), kappa is undefined; ragguard reports 1.0 if they agree on every item, else 0."""
    n = len(pairs)
    if n == 0:
        return 0.0
    observed = sum(1 for a, b in pairs if a == b) / n
    a_yes = sum(1 for a, _ in pairs if a) / n
    b_yes = sum(1 for _, b in pairs if b) / n
    chance = a_yes * b_yes + (1 - a_yes) * (1 - b_yes)
    if chance >= 1.0:
        return 1.0 if observed == 1.0 else 0.0
    return (observed - chance) / (1 - chance)


def agreement(pairs: Sequence[tuple[bool, bool]], failed: int = 0) -> Agreement:
    agree = sum(1 for human, method in pairs if human == method)
    return Agreement(len(pairs), agree, cohen_kappa(pairs), failed)


def lexical_says(item: CalibrationItem, threshold: float = DEFAULT_THRESHOLD) -> bool:
    """The lexical method's verdict: no claim of the sentence or answer is unsupported.
    Statements that are not claims (lead-ins, remarks about the context) count for neither."""
    verdicts = lexical_verdicts(segment(item.text), item.context, threshold, item.question)
    return not any(v.supported is False for v in verdicts)


def lexical_agreement(
    items: Sequence[CalibrationItem], threshold: float = DEFAULT_THRESHOLD
) -> Agreement:
    return agreement([(item.human, lexical_says(item, threshold)) for item in items])


def lexical_agreements(
    items: Sequence[CalibrationItem], threshold: float = DEFAULT_THRESHOLD
) -> dict[str, Agreement]:
    """The lexical method's agreement at each level present: answers, sentences."""
    return {level: lexical_agreement(group, threshold) for level, group in by_level(items).items()}


def judge_items(items: Sequence[CalibrationItem]) -> list[JudgeItem]:
    """The judge calls, with the same statements and ids the scoring sends: one per answer
    (the verdicts on its statements come from that one call, as in scoring) and one per
    standalone sentence."""
    calls: dict[str, JudgeItem] = {}
    for item in items:
        key, text = _judged_text(item)
        if key in calls:
            continue
        segments = segment(text)
        if segments:
            calls[key] = answer_item(key, item.question, segments, item.context)
    return list(calls.values())


def _judged_text(item: CalibrationItem) -> tuple[str, str]:
    if item.in_answer is not None:
        return item.in_answer.key, item.in_answer.text
    return item.id, item.text


def judge_agreements(
    items: Sequence[CalibrationItem],
    judge_many: Callable[[Sequence[JudgeItem]], Mapping[str, JudgeOutcome]],
) -> dict[str, Agreement]:
    """The judge's agreement at each level; items it failed on are counted apart, never as
    agreement. The judge says "supported" when it finds no claim unsupported."""
    outcomes = judge_many(judge_items(items))
    found: dict[str, Agreement] = {}
    for level, group in by_level(items).items():
        pairs, failed = [], 0
        for item in group:
            says = _judge_says(item, outcomes)
            if says is None:
                failed += 1
            else:
                pairs.append((item.human, says))
        found[level] = agreement(pairs, failed)
    return found


def _judge_says(item: CalibrationItem, outcomes: Mapping[str, JudgeOutcome]) -> bool | None:
    """Whether the judge found the item supported; None when it failed on it."""
    outcome = outcomes.get(_judged_text(item)[0])
    if outcome is None or outcome.verdict is None:
        return None
    if item.in_answer is not None:
        judged = outcome.verdict.by_id.get(item.in_answer.sentence_id)
        return True if judged is None else judged.supported  # None: not a claim, not judged
    return all(sentence.supported for sentence in outcome.verdict.sentences)


def by_level(items: Sequence[CalibrationItem]) -> dict[str, list[CalibrationItem]]:
    """Items grouped by level, answers first."""
    groups: dict[str, list[CalibrationItem]] = {}
    for item in sorted(items, key=lambda item: item.level != "answer"):
        groups.setdefault(item.level, []).append(item)
    return groups


def by_kind(items: Sequence[CalibrationItem]) -> dict[str, list[CalibrationItem]]:
    groups: dict[str, list[CalibrationItem]] = {}
    for item in items:
        groups.setdefault(item.kind or "(none)", []).append(item)
    return dict(sorted(groups.items()))


def load_calibration(path: str | Path) -> list[CalibrationItem]:
    """Load a calibration set (.yaml/.yml list, or .jsonl)."""
    path = Path(path)
    text = read_text(path, what="calibration set")
    if path.suffix.lower() in (".yaml", ".yml"):
        data = parse_yaml(text, path)
        if not isinstance(data, LineList):
            raise InputError(path, f"expected a list of items, found {type_name(data)}")
        entries = []
        for index, entry in enumerate(data):
            if not isinstance(entry, LineDict):
                raise InputError(
                    path,
                    f"expected a mapping, found {type_name(entry)}",
                    line=data.item_lines[index],
                )
            entries.append((entry, entry.where(path)))
    elif path.suffix.lower() in (".jsonl", ".ndjson"):
        entries = [(obj, Where(path, n)) for n, obj in iter_jsonl_objects(text, path)]
    else:
        raise InputError(path, "unknown calibration set format; use .yaml or .jsonl")
    items = [calibration_item(entry, where) for entry, where in entries]
    seen: set[str] = set()
    for item, (_, where) in zip(items, entries, strict=True):
        if item.id in seen:
            raise where.error(f"duplicate id {item.id!r}", key="id")
        seen.add(item.id)
    if not items:
        raise InputError(path, "calibration set has no items")
    return items


def calibration_item(entry: Mapping[str, Any], where: Where) -> CalibrationItem:
    for key in entry:
        if key not in ITEM_KEYS:
            raise where.error(f"unknown key; allowed: {', '.join(ITEM_KEYS)}", key=str(key))
    item_id = id_as_written(entry.get("id"))
    if not item_id:
        raise where.error("every item needs an id", key="id")
    has_sentence, has_answer = "sentence" in entry, "answer" in entry
    if has_sentence == has_answer:
        raise where.error("give exactly one of sentence (with supported) or answer (with faithful)")
    level, text_key, verdict_key = (
        ("sentence", "sentence", "supported") if has_sentence else ("answer", "answer", "faithful")
    )
    text = entry.get(text_key)
    if not isinstance(text, str) or not text.strip():
        raise where.error("expected non-empty text", key=text_key)
    human = entry.get(verdict_key)
    if not isinstance(human, bool):
        raise where.error(
            f"the human verdict: true or false, found {type_name(human)}", key=verdict_key
        )
    return CalibrationItem(
        id=item_id,
        level=level,
        text=text,
        human=human,
        context=_context(entry.get("context"), where),
        kind=_optional_text(entry, "kind", where),
        question=_optional_text(entry, "question", where),
    )


def _optional_text(entry: Mapping[str, Any], key: str, where: Where) -> str:
    value = entry.get(key, "")
    if not isinstance(value, str):
        raise where.error(f"expected a string, found {type_name(value)}", key=key)
    return value.strip()


def _context(value: Any, where: Where) -> tuple[tuple[str, str], ...]:
    if value is None:
        raise where.error("is required: the chunks the statement is checked against", key="context")
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list):
        value = {f"c{index}": text for index, text in enumerate(value, start=1)}
    if not isinstance(value, Mapping):
        raise where.error(
            f"expected a mapping of chunk id to text, a list or a string; found {type_name(value)}",
            key="context",
        )
    chunks = []
    for chunk_id, text in value.items():
        if not isinstance(text, str):
            raise where.error(f"text of chunk {chunk_id!r} must be a string", key="context")
        chunks.append((id_as_written(chunk_id) or str(chunk_id), text))
    return tuple(chunks)


def report_lines(
    items: Sequence[CalibrationItem],
    results: Mapping[str, Mapping[str, Agreement]],
    kinds: Mapping[str, Agreement],
) -> list[str]:
    """The calibration table: one row per method and level, then lexical accuracy per kind."""
    sentences = sum(1 for item in items if item.level == "sentence")
    lines = [
        f"{len(items)} items: {sentences} sentence verdicts, {len(items) - sentences} answer verdicts",
        "",
        f"{'method':<10}{'level':<10}{'n':>6}{'agree':>7}{'accuracy':>10}{'kappa':>8}{'failed':>8}",
    ]
    for method, levels in results.items():
        for level, result in levels.items():
            measured = result.n > 0  # none compared: no accuracy or kappa to show, not 0.00
            accuracy = f"{result.accuracy:>10.2f}" if measured else f"{'n/a':>10}"
            kappa = f"{result.kappa:>8.2f}" if measured else f"{'n/a':>8}"
            lines.append(
                f"{method:<10}{level:<10}{result.n:>6}{result.agree:>7}{accuracy}"
                f"{kappa}{result.failed:>8}"
            )
    if kinds:
        lines += ["", "lexical by kind:"]
        for kind, result in kinds.items():
            lines.append(f"  {kind}: {result.agree}/{result.n} = {result.accuracy:.2f}")
    return lines


def unmeasured(levels: Mapping[str, Agreement]) -> int | None:
    """The items a method failed on when it failed on every one (its agreement cannot be
    measured at all), else None."""
    failed = sum(result.failed for result in levels.values())
    compared = sum(result.n for result in levels.values())
    return failed if failed and not compared else None
