"""Fit the offline faithfulness model and write src/ragguard/metrics/faithfulness_weights.json.

The data: RAGTruth QA, development half (``--data``, default ``../shared/data/ragtruth-qa-dev``;
docs/generation.md, "Measured on real answers"). Every claim of every answer becomes the
findings of :func:`ragguard.metrics.faithfulness.findings_of` (the model's inputs) and a label:
hallucinated when a span the annotators marked overlaps it.

The procedure, all of it deterministic and plain Python (no numpy), so that the test
``tests/scripts/test_fit_faithfulness.py`` can run it and compare with the shipped file:

1. A logistic regression on the claims that no hard check fails, over the missing share
   (1 - support share) and the findings (L2 penalty :data:`PENALTY` on the weights, not the
   bias), fitted by Newton's method from zero. Each finding's weight divided by the missing
   share's is its penalty, in units of the share (:class:`ragguard.metrics.faithfulness_model.Model`).
2. An answer's score is its lowest claim's. Per strictness level, the threshold on that
   score that flags the most answers while flagging at most the level's share of the clean
   answers (:data:`LEVELS`).

    python scripts/fit_faithfulness.py            # writes the shipped file
    python scripts/fit_faithfulness.py --check    # exits 1 when the shipped file differs
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from ragguard.metrics.claims import claim_of, not_a_claim  # noqa: E402
from ragguard.metrics.faithfulness import analyse_context, findings_of  # noqa: E402
from ragguard.metrics.faithfulness_model import FEATURES, WEIGHTS_FILE  # noqa: E402
from ragguard.metrics.text import segment  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "ragtruth-qa-dev"
PENALTY = 1.0
ITERATIONS = 30
# Strictness level -> the largest share of clean answers it may flag (on the data it is fitted on).
LEVELS = {"lenient": 0.10, "balanced": 0.20, "strict": 0.30}
DEFAULT_LEVEL = "lenient"  # the best held-out F1 and fewest clean flagged: docs/generation.md
DIGITS = 4
ABOUT = (
    "scripts/fit_faithfulness.py on RAGTruth QA (development half); "
    "docs/generation.md, 'Measured on real answers'"
)


@dataclass(frozen=True)
class Claim:
    """One claim: its support share and findings, whether a hard check failed it, its label."""

    id: str
    share: float
    values: tuple[float, ...]
    ruled_out: bool
    hallucinated: bool


@dataclass(frozen=True)
class LabelledAnswer:
    """One answer: its question group, the human flag and its claims."""

    id: str
    group: str
    hallucinated: bool
    claims: tuple[Claim, ...]


def load_answers(data: Path) -> list[LabelledAnswer]:
    """Every answer of the data with its claims' findings and labels."""
    sources = {}
    for line in (data / "sources.jsonl").read_text(encoding="utf-8").splitlines():
        source = json.loads(line)
        sources[source["source_id"]] = source
    answers = []
    for line in (data / "responses.jsonl").read_text(encoding="utf-8").splitlines():
        response = json.loads(line)
        answers.append(labelled_answer(response, sources[response["source_id"]]))
    return answers


def labelled_answer(response: dict[str, Any], source: dict[str, Any]) -> LabelledAnswer:
    context = tuple(
        (f"{response['source_id']}-p{n}", text)
        for n, text in enumerate(source["passages"], start=1)
    )
    analysed = analyse_context(context, source["question"])
    text = response["response"]
    segments = segment(text)
    spans = statement_spans(text, [s.text for s in segments])
    claims = []
    for seg, span in zip(segments, spans, strict=True):
        claim = None if not_a_claim(seg.text) else claim_of(seg.text)
        if claim is None or span is None:
            continue
        found, _ = findings_of(seg.text, claim, analysed)
        values = found.values()
        hit = any(lab["start"] < span[1] and lab["end"] > span[0] for lab in response["labels"])
        ruled_out = found.ruled_out is not None
        features = tuple(values[name] for name in FEATURES)
        claims.append(Claim(seg.id, found.share, features, ruled_out, hit))
    return LabelledAnswer(
        response["id"], response["source_id"], bool(response["labels"]), tuple(claims)
    )


def statement_spans(response: str, texts: Sequence[str]) -> list[tuple[int, int] | None]:
    """Character spans of the statements in the answer (segmentation joins list lines)."""
    spans: list[tuple[int, int] | None] = []
    position = 0
    for text in texts:
        pattern = re.compile(r"\s*".join(re.escape(word) for word in text.split()))
        found = pattern.search(response, position) or pattern.search(response)
        spans.append((found.start(), found.end()) if found else None)
        position = found.end() if found else position
    return spans


# -- the regression ------------------------------------------------------------------------


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def fit_logistic(rows: Sequence[Sequence[float]], labels: Sequence[bool]) -> list[float]:
    """[bias, weights...] of an L2-penalised logistic regression, by Newton's method."""
    size = len(rows[0]) + 1
    beta = [0.0] * size
    design = [(1.0, *row) for row in rows]
    for _ in range(ITERATIONS):
        gradient = [0.0] * size
        hessian = [[0.0] * size for _ in range(size)]
        for x, y in zip(design, labels, strict=True):
            p = _sigmoid(sum(b * v for b, v in zip(beta, x, strict=True)))
            residual = p - (1.0 if y else 0.0)
            curvature = p * (1.0 - p)
            for i in range(size):
                gradient[i] += residual * x[i]
                for j in range(i + 1):
                    hessian[i][j] += curvature * x[i] * x[j]
        for i in range(size):
            for j in range(i):
                hessian[j][i] = hessian[i][j]
        for i in range(1, size):
            gradient[i] += PENALTY * beta[i]
            hessian[i][i] += PENALTY
        step = _solve(hessian, gradient)
        beta = [b - s for b, s in zip(beta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-10:
            break
    return beta


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix @ x = vector (Gaussian elimination, partial pivoting)."""
    n = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, n):
            factor = rows[r][col] / rows[col][col]
            for c in range(col, n + 1):
                rows[r][c] -= factor * rows[col][c]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (rows[i][n] - sum(rows[i][j] * x[j] for j in range(i + 1, n))) / rows[i][i]
    return x


# -- the model and its thresholds ----------------------------------------------------------


def claim_score(penalties: Sequence[float], claim: Claim) -> float:
    """The claim's score as the product computes it (Model.score)."""
    if claim.ruled_out:
        return 0.0
    adjusted = claim.share - sum(p * v for p, v in zip(penalties, claim.values, strict=True))
    return min(1.0, max(0.0, adjusted))


def answer_score(model: dict[str, Any], answer: LabelledAnswer) -> float:
    """The lowest score of the answer's claims (1 without a claim: nothing to flag)."""
    penalties = [model["penalties"][name] for name in FEATURES]
    return min((claim_score(penalties, c) for c in answer.claims), default=1.0)


def level_threshold(clean_scores: Sequence[float], share: float) -> float:
    """The threshold flagging the most answers (score below it) while flagging at most
    ``share`` of the clean ones: halfway between the last clean score it may flag and the
    next."""
    ranked = sorted(clean_scores)
    allowed = math.floor(share * len(ranked))
    above = ranked[allowed] if allowed < len(ranked) else 1.0
    below = ranked[allowed - 1] if allowed > 0 else 0.0
    cut = above if above == below else (above + below) / 2
    if cut <= 0:  # more clean answers than allowed score 0: flag those and no more
        cut = min((score for score in ranked if score > 0), default=1.0) / 2
    return round(cut, DIGITS + 2)


def fit(answers: Sequence[LabelledAnswer]) -> dict[str, Any]:
    """The model's plain data, fitted on ``answers``: the regression's weights over the
    missing share (1 - share) and the findings, as penalties in units of the share."""
    claims = [c for answer in answers for c in answer.claims if not c.ruled_out]
    rows = [(1.0 - c.share, *c.values) for c in claims]
    beta = fit_logistic(rows, [c.hallucinated for c in claims])
    missing = beta[1]
    model: dict[str, Any] = {
        "penalties": {
            name: round(b / missing, DIGITS) for name, b in zip(FEATURES, beta[2:], strict=True)
        },
    }
    clean = [answer_score(model, a) for a in answers if not a.hallucinated]
    model["levels"] = {name: level_threshold(clean, share) for name, share in LEVELS.items()}
    model["default_level"] = DEFAULT_LEVEL
    return model


def shipped_data(data: Path) -> dict[str, Any]:
    """What faithfulness_weights.json holds: the fit on every answer, and where from."""
    return {"about": ABOUT, **fit(load_answers(data))}


def rendered(model: dict[str, Any]) -> str:
    return json.dumps(model, indent=2, sort_keys=False) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--check", action="store_true", help="compare with the shipped file")
    options = parser.parse_args()
    text = rendered(shipped_data(options.data))
    if options.check:
        same = WEIGHTS_FILE.read_text(encoding="utf-8") == text
        print("shipped file is what the procedure fits" if same else "shipped file differs")
        sys.exit(0 if same else 1)
    WEIGHTS_FILE.write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
