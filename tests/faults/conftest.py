"""Fixtures for the fault-injection tests: a small suite run by `ragguard ci`.

The fake GitHub (``fake``, ``repo``) comes from tests/github/fake_github_fixtures.py, and the
fake judge from tests/judge, both put in reach by tests/conftest.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from faults_fixtures import write_suite


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A suite whose system is a recorded run (eval/run.jsonl) that answers both questions."""
    return write_suite(tmp_path / "repo")
