"""Fixtures shared by the ci tests."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from test_ci_glue import AUTH, CONFIG, GOOD_RUN, RATE, TESTSET
from test_ci_rechecks import SYSTEM


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """The checkout of test_ci_glue.py's suite: ragguard.yml, the test set of two questions
    and their recorded run."""
    root = tmp_path / "repo"
    (root / "eval").mkdir(parents=True)
    (root / "ragguard.yml").write_text(CONFIG)
    (root / "eval" / "testset.yaml").write_text(TESTSET)
    (root / "eval" / "run.jsonl").write_text(GOOD_RUN)
    return root


@pytest.fixture
def live_suite(tmp_path: Path) -> tuple[Path, str]:
    """A suite whose system is a python function (module name unique per test: imports
    are cached for the process)."""
    root = tmp_path / "repo"
    (root / "eval").mkdir(parents=True)
    module = f"rag_{uuid.uuid4().hex}"
    source = SYSTEM.replace("RATE)", f"{RATE!r})").replace("AUTH)", f"{AUTH!r})")
    (root / f"{module}.py").write_text(source)
    (root / "mode").write_text("good")
    (root / "eval" / "testset.yaml").write_text(TESTSET)
    return root, module
