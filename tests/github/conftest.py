"""Fixtures for the GitHub edge: clients pointed at the fake GitHub.

The fake itself (``fake``, ``repo``) comes from fake_github_fixtures.py, registered for every
folder by tests/conftest.py. There is deliberately no ``__init__.py`` here: a package
``tests/github`` would be imported as ``github`` and shadow PyGithub.
"""

from __future__ import annotations

import pytest
from fake_github import FakeGitHub
from github_fixtures import fast_settings

from ragguard.github import GitHubClient


@pytest.fixture
def client(fake: FakeGitHub) -> GitHubClient:
    return GitHubClient(fast_settings(fake))
