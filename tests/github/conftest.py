"""Fixtures for the GitHub edge: the fake GitHub on loopback and clients pointed at it.

There is deliberately no ``__init__.py`` here: a package ``tests/github`` would be imported as
``github`` and shadow PyGithub. pytest puts this folder on ``sys.path``, so the fake is imported
as ``fake_github``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_github import FakeGitHub, Repo
from github_fixtures import REPOSITORY, fast_settings
from openapi_contract import OpenAPIContract

from ragguard.github import GitHubClient


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
def client(fake: FakeGitHub) -> GitHubClient:
    return GitHubClient(fast_settings(fake))
