"""Fixtures for the fault-injection tests: the fake GitHub and a small suite run by `ragguard ci`.

The fakes live beside the tests of their edges (tests/github, tests/judge); their folders are
put on ``sys.path`` here (there is deliberately no ``tests/github/__init__.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
for folder in ("github", "judge"):
    if str(TESTS / folder) not in sys.path:
        sys.path.insert(0, str(TESTS / folder))

from fake_github import FakeGitHub, Repo  # noqa: E402
from faults_fixtures import REPOSITORY, write_suite  # noqa: E402
from openapi_contract import OpenAPIContract  # noqa: E402


@pytest.fixture(scope="session")
def contract() -> OpenAPIContract:
    return OpenAPIContract.load()


@pytest.fixture
def fake(contract: OpenAPIContract) -> Iterator[FakeGitHub]:
    """A started fake GitHub with one repository; fails the test on any non-conforming request."""
    server = FakeGitHub(contract=contract).start()
    server.add_repo(REPOSITORY)
    try:
        yield server
    finally:
        server.stop()
    server.assert_clean()


@pytest.fixture
def repo(fake: FakeGitHub) -> Repo:
    return fake.repos[REPOSITORY]


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A suite whose system is a recorded run (eval/run.jsonl) that answers both questions."""
    return write_suite(tmp_path / "repo")
