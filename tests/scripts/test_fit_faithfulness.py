"""scripts/fit_faithfulness.py: the regression, the strictness levels' thresholds, and that
the shipped src/ragguard/metrics/faithfulness_weights.json is exactly what the procedure
fits on the RAGTruth development half (#29 items 1 and 2). The data tests need
../shared/data/ragtruth-qa-dev (``RAGGUARD_RAGTRUTH_DATA`` points elsewhere)."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import fit_faithfulness as fitting  # noqa: E402

DATA = Path(
    os.environ.get("RAGGUARD_RAGTRUTH_DATA", ROOT.parent / "shared" / "data" / "ragtruth-qa-dev")
)


def _penalised_gradient(beta: list[float], rows: list[tuple[float, ...]], labels: list[bool]):
    gradient = [0.0] * len(beta)
    for row, label in zip(rows, labels, strict=True):
        x = (1.0, *row)
        p = 1 / (1 + math.exp(-sum(b * v for b, v in zip(beta, x, strict=True))))
        for i, v in enumerate(x):
            gradient[i] += (p - label) * v
    penalty = [0.0] + [fitting.PENALTY * b for b in beta[1:]]
    return [g + p for g, p in zip(gradient, penalty, strict=True)]


def test_the_regression_reaches_the_optimum_of_its_penalised_likelihood():
    rows = [(0.1, 0.0), (0.2, 1.0), (0.9, 0.0), (0.8, 1.0), (0.7, 0.0), (0.3, 0.0), (0.95, 1.0)]
    labels = [False, False, True, True, False, False, True]
    beta = fitting.fit_logistic(rows, labels)
    assert max(abs(g) for g in _penalised_gradient(beta, rows, labels)) < 1e-8
    assert beta[1] > 0  # more missing, more risk
    assert fitting.fit_logistic(rows, labels) == beta  # deterministic


def test_solve():
    assert fitting._solve([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0]) == pytest.approx([0.8, 1.4])


def test_a_level_flags_at_most_its_share_of_the_clean_answers():
    clean = [0.9, 0.5, 0.1, 0.3, 0.7, 0.2, 0.8, 0.6, 0.4, 1.0]
    threshold = fitting.level_threshold(clean, 0.2)  # 2 of 10: those scoring 0.1 and 0.2
    assert threshold == pytest.approx(0.25)
    assert sum(score < threshold for score in clean) == 2


def test_a_level_below_the_clean_answers_scoring_0_flags_those_and_no_more():
    clean = [0.0, 0.0, 0.0, 0.4, 0.6, 0.8, 1.0, 1.0, 1.0, 1.0]
    threshold = fitting.level_threshold(clean, 0.1)  # 1 of 10 cannot be had: three score 0
    assert threshold == pytest.approx(0.2)
    assert sum(score < threshold for score in clean) == 3


@pytest.fixture(scope="module")
def answers() -> list[fitting.LabelledAnswer]:
    if not (DATA / "responses.jsonl").is_file():
        pytest.skip(f"no RAGTruth data at {DATA}")
    return fitting.load_answers(DATA)


def test_the_shipped_model_is_what_the_procedure_fits_on_the_data(answers):
    shipped = fitting.WEIGHTS_FILE.read_text(encoding="utf-8")
    fitted = {"about": fitting.ABOUT, **fitting.fit(answers)}
    assert fitting.rendered(fitted) == shipped
