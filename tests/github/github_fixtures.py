"""Helpers shared by the GitHub tests (fixtures themselves live in conftest.py)."""

from __future__ import annotations

from dataclasses import replace

from fake_github import APP_TOKEN, FakeGitHub

from ragguard.github import GitHubSettings

REPOSITORY = "octo-org/octo-repo"


def fast_settings(fake: FakeGitHub, **overrides: object) -> GitHubSettings:
    """Settings for the fake: PyGithub's real retry machinery, with its waits cut to nothing."""
    settings = GitHubSettings(
        token=APP_TOKEN,
        repository=REPOSITORY,
        api_url=fake.url,
        event_name="push",
        run_id="42",
        timeout=5,
        retries=4,
        backoff_factor=0.0,
        secondary_rate_wait=0.0,
        max_rate_limit_wait=5.0,
        seconds_between_requests=None,
        seconds_between_writes=None,
    )
    return replace(settings, **overrides)  # type: ignore[arg-type]
