"""The decision on one statement: the support share, less what else the checks found.

The checks of :mod:`ragguard.metrics.faithfulness` each find one kind of trouble with a
statement. Its **support share** (the rarity-weighted share of its content words found in the
best evidence) is the main one; a few more **findings** explain themselves and move the
score, by penalties learned from human-labelled answers (a logistic regression on RAGTruth QA,
development half; ``scripts/fit_faithfulness.py`` fits it, the numbers ship as plain data in
``faithfulness_weights.json``):

- ``unseen``: the share of its content words that no retrieved chunk uses at all;
- ``name``: a capitalised name (not the first word) that neither a chunk nor the question holds;

Each finding is 0 on a claim that has nothing of it, so a claim with none scores its share.

Two checks are rules, not weights: a quantity no chunk holding the evidence contains, and a
clause that matches the context's word for word with the opposite polarity. Either makes the
score 0 and is the reason shown.

The statement is supported when its score reaches the threshold, set by the strictness level
(docs/generation.md, "Strictness") or by an explicit ``threshold``. The reason of a statement
that is not shows every finding that lowered its score: ``name X not in the context``, ``not in
the context: words the evidence lacks``, followed by ``(in no chunk)`` or ``(in no chunk:
those of them no chunk uses)``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragguard.metrics.text import stems

MISSING_WORDS = "not in the context: "
_SHOWN = 3
WEIGHTS_FILE = Path(__file__).with_name("faithfulness_weights.json")
FEATURES = ("unseen", "name")

# A capitalised word that does not start a sentence and is not the tail of a compound
# ("Retry-After").
_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)(?<![-\w])[A-Z][a-zA-Z]+\b")


@dataclass(frozen=True, slots=True)
class Findings:
    """What the lexical checks found on one claim."""

    share: float
    unseen: float
    number: str | None = None
    contradiction: str | None = None
    names: tuple[str, ...] = ()
    missing_words: tuple[str, ...] = ()
    unseen_words: tuple[str, ...] = ()

    @property
    def ruled_out(self) -> str | None:
        """The hard check that fails the claim whatever the weights: a number no chunk holds,
        or a clause the context negates (the data holds too few of these to weigh them)."""
        return self.number or self.contradiction

    def values(self) -> dict[str, float]:
        """The findings as the model's inputs, by feature name."""
        return {
            "unseen": self.unseen,
            "name": float(bool(self.names)),
        }


@dataclass(frozen=True, slots=True)
class Model:
    """Penalties on the support share, in its units, and the strictness levels' thresholds.

    A logistic regression's decision ``bias + w_missing * (1 - share) + sum(w_f * f) > c`` is
    ``share - sum(w_f / w_missing * f) < threshold``: the fitted weights divided by the
    weight of the missing share are penalties subtracted from the share, and the verdict stays
    a threshold on one score (0 to 1, like the share it adjusts)."""

    penalties: Mapping[str, float]
    levels: Mapping[str, float]
    default_level: str

    def score(self, findings: Findings) -> float:
        """The support share less the penalties, within [0, 1]; 0 when a hard check fails."""
        if findings.ruled_out:
            return 0.0
        values = findings.values()
        adjusted = findings.share - sum(self.penalties[n] * values[n] for n in FEATURES)
        return min(1.0, max(0.0, adjusted))

    def threshold(self, level: str | None = None) -> float:
        """The score a statement needs at a strictness level (the default level: None)."""
        return self.levels[level or self.default_level]


@functools.cache
def shipped_model() -> Model:
    """The model fitted by scripts/fit_faithfulness.py, read once."""
    return model_from(json.loads(WEIGHTS_FILE.read_text(encoding="utf-8")))


def model_from(data: Mapping[str, Any]) -> Model:
    """A model from the plain data of faithfulness_weights.json."""
    return Model(
        penalties={name: float(data["penalties"][name]) for name in FEATURES},
        levels={name: float(value) for name, value in data["levels"].items()},
        default_level=str(data["default_level"]),
    )


def missing_names(text: str, known: Callable[[str], bool]) -> tuple[str, ...]:
    """Capitalised words after the first that name something the context never names
    (``known``: whether the context or the question has a stem; a stopword such as "After"
    names nothing)."""
    found = []
    for word in _NAME.findall(text.strip().lstrip("*-+#0123456789.) ")):
        stemmed = stems(word)
        if stemmed and not all(map(known, stemmed)) and word not in found:
            found.append(word)
    return tuple(found)


def reasons(findings: Findings, model: Model) -> list[str]:
    """Why a claim is not supported, as a reader sees them: a failed hard check alone; else a
    name no chunk holds (when names count against a claim) and the words the evidence lacks,
    marking those no chunk uses at all (when such words count against it)."""
    if findings.ruled_out:
        return [findings.ruled_out]
    shown = []
    if findings.names and model.penalties["name"] > 0:
        shown.append(f"name {', '.join(findings.names[:_SHOWN])} not in the context")
    if findings.missing_words:
        unseen = findings.unseen_words if model.penalties["unseen"] > 0 else ()
        shown.append(
            MISSING_WORDS + ", ".join(findings.missing_words) + _unseen_note(unseen, findings)
        )
    return shown


def _unseen_note(unseen: tuple[str, ...], findings: Findings) -> str:
    """Which missing words no chunk uses at all (the ``unseen`` finding)."""
    if not unseen:
        return ""
    if set(unseen) >= set(findings.missing_words) - {"..."}:
        return " (in no chunk)"
    return f" (in no chunk: {', '.join(unseen)})"
