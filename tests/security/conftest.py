"""Fixtures for the security tests: the fake GitHub and the helpers of tests/ci, tests/judge."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
for folder in ("github", "ci", "judge", "e2e"):
    if str(TESTS / folder) not in sys.path:
        sys.path.insert(0, str(TESTS / folder))

from ci_fixtures import REPOSITORY  # noqa: E402
from fake_github import FakeGitHub, Repo  # noqa: E402
from openapi_contract import OpenAPIContract  # noqa: E402


@pytest.fixture(scope="session")
def contract() -> OpenAPIContract:
    return OpenAPIContract.load()


@pytest.fixture
def fake(contract: OpenAPIContract) -> Iterator[FakeGitHub]:
    server = FakeGitHub(contract=contract).start()
    server.add_repo(REPOSITORY)
    try:
        yield server
    finally:
        server.stop()
    server.assert_clean()


@pytest.fixture
def fake_repo(fake: FakeGitHub) -> Repo:
    return fake.repos[REPOSITORY]
