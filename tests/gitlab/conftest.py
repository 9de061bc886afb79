"""The fake GitLab, started for a test and stopped after it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_gitlab import FakeGitLab, FakeGitLabServer


@pytest.fixture
def gitlab() -> Iterator[FakeGitLabServer]:
    server = FakeGitLabServer(FakeGitLab()).start()
    try:
        yield server
    finally:
        server.stop()
    server.fake.assert_clean()
