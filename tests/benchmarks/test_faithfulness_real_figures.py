"""The RAGTruth figures docs/generation.md states are what benchmarks/faithfulness_real.py
measures, they meet the targets of #29 (held-out response-level F1 >= 0.60 with at most 20 %
of clean answers flagged at the default level, AUROC >= 0.75), and the product's verdicts
(``ragguard score`` in a subprocess) are the shipped model's. Needs
../shared/data/ragtruth-qa-dev (CI has it; ``RAGGUARD_RAGTRUTH_DATA`` points elsewhere)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(
    os.environ.get("RAGGUARD_RAGTRUTH_DATA", ROOT.parent / "shared" / "data" / "ragtruth-qa-dev")
)
DOC = ROOT / "docs" / "generation.md"
WEIGHTS = ROOT / "src" / "ragguard" / "metrics" / "faithfulness_weights.json"

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def printed() -> str:
    if not (DATA / "responses.jsonl").is_file():
        pytest.skip(f"no RAGTruth data at {DATA}")
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "faithfulness_real.py"),
            "--data",
            str(DATA),
            "--repeats",
            "2",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def cells(line: str) -> list[str]:
    return [
        cell.strip().strip("*").replace(" %", "%") for cell in line.strip().strip("|").split("|")
    ]


def held_out_row(printed: str, level: str) -> list[str]:
    line = next(
        row for row in printed.splitlines() if row.startswith(f"| ragguard, held out, {level} (")
    )
    return cells(line)


def test_the_default_level_meets_the_targets(printed):
    default = json.loads(WEIGHTS.read_text(encoding="utf-8"))["default_level"]
    _, precision, recall, f1, auroc, clean = held_out_row(printed, default)
    assert float(f1) >= 0.60
    assert float(clean.rstrip("%")) <= 20.0
    assert float(auroc) >= 0.75
    assert float(precision) > 0.2 and float(recall) > 0.5  # better than flagging everything


def test_the_docs_state_what_is_measured(printed):
    table = DOC.read_text(encoding="utf-8").split("<!-- ragtruth-table -->")[1]
    for level in ("lenient", "balanced", "strict"):
        documented = next(
            cells(line)
            for line in table.splitlines()
            if line.replace("**", "").startswith(f"| ragguard, held out, {level}")
        )
        assert documented[1:] == held_out_row(printed, level)[1:], level


def test_the_product_is_the_shipped_model_and_the_shipped_model_is_the_fit(printed):
    assert "scripts/fit_faithfulness.py --check: shipped file is what the procedure fits" in printed
    default = json.loads(WEIGHTS.read_text(encoding="utf-8"))["default_level"]
    assert f"ragguard score's verdicts are the shipped model's ({default}): True" in printed
