"""scripts/fit_faithfulness.py: the regression, the strictness levels' thresholds, and that
the shipped src/ragguard/metrics/faithfulness_weights.json is exactly what the procedure
fits on the RAGTruth development half (#29 items 1 and 2). The data tests need
../shared/data/ragtruth-qa-dev (``RAGGUARD_RAGTRUTH_DATA`` points elsewhere)."""

from __future__ import annotations

import json
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


def _cells(line: str) -> list[str]:
    return [
        cell.strip().strip("*").replace(" %", "%") for cell in line.strip().strip("|").split("|")
    ]


def _doc_rows(marker: str) -> list[list[str]]:
    text = (ROOT / "docs" / "generation.md").read_text(encoding="utf-8")
    block = text.split(f"<!-- {marker} -->")[1].split(f"<!-- /{marker} -->")[0]
    return [_cells(line) for line in block.splitlines() if line.startswith("| ")]


def test_the_documented_held_out_figures_are_what_the_procedure_measures(answers):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import faithfulness_real as benchmark

    held = benchmark.held_out(answers, 5, 0)
    documented = _doc_rows("ragtruth-table")
    levels = _doc_rows("strictness-table")
    for level in fitting.LEVELS:
        answer_row, sentence_row, _ = benchmark.level_rows(held, level, 5)
        measured, sentence = _cells(answer_row), _cells(sentence_row)
        response = next(r for r in documented if r[0].startswith(f"ragguard, held out, {level}"))
        assert response[1:] == measured[1:], level
        sentences = [r for r in documented if r[0] == f"ragguard, held out, {level}"]
        assert sentences and sentences[0][1:] == sentence[1:], level
        spread = measured[0].split("(", 1)[1].rstrip(")")
        assert spread.replace("fold F1", "F1") in response[0].replace("folds: ", ""), level
        shipped = fitting.rendered({"about": fitting.ABOUT, **fitting.fit(answers)})
        threshold = f"{json.loads(shipped)['levels'][level]:.4f}"
        (documented_level,) = [r for r in levels if r[0].split()[0].strip("`") == level]
        assert documented_level[1:6] == [threshold, *measured[1:4], measured[5]], level
        assert documented_level[6] == sentence[3], level
