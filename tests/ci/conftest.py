"""Fixtures for `ragguard ci`: the fake GitHub (from tests/github) and the real event payloads."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ci_fixtures import REPOSITORY
from fake_github import FakeGitHub, Repo
from openapi_contract import OpenAPIContract


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
