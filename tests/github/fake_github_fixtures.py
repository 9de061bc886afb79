"""The fake GitHub as pytest fixtures, shared by every folder that talks to it.

Registered once by tests/conftest.py (``pytest_plugins``), which also puts the helper folders
(github, judge, ci, e2e) on ``sys.path``: they have no ``__init__.py``, because a package
``tests/github`` would be imported as ``github`` and shadow PyGithub.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_github import FakeGitHub, Repo
from github_fixtures import REPOSITORY
from openapi_contract import OpenAPIContract


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
    """The fake's repository (``REPOSITORY``)."""
    return fake.repos[REPOSITORY]


@pytest.fixture
def fake_repo(repo: Repo) -> Repo:
    """The same repository, under the name the ci, security and e2e tests use."""
    return repo
