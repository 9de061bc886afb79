"""Settings for talking to GitHub, read from the Actions environment, and the PyGithub client.

Every GitHub call goes through PyGithub: its requester follows pagination, and its
``GithubRetry`` (a urllib3 ``Retry``) retries 5xx answers, connection errors, and both kinds of
rate limit (secondary: ``Retry-After`` or a fixed wait; primary: until ``X-RateLimit-Reset``).
The waits are settings so that tests against the local fake stay fast, while the defaults are
what GitHub asks of integrations (writes spaced by a second).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from urllib3.util.retry import Retry

import github
from github import Auth, GithubRetry

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"


@dataclass(frozen=True)
class GitHubSettings:
    """Where GitHub is, who we are there, and how patiently we talk to it."""

    token: str
    repository: str
    api_url: str = DEFAULT_API_URL
    server_url: str = DEFAULT_SERVER_URL
    event_name: str = ""
    run_id: str | None = None
    timeout: int = 15
    retries: int = 6
    backoff_factor: float = 1.0
    backoff_max: float = 60.0
    secondary_rate_wait: float = 60.0
    max_rate_limit_wait: float | None = 600.0
    seconds_between_requests: float | None = 0.25
    seconds_between_writes: float | None = 1.0
    per_page: int = 100
    comment_author: str | None = None

    @property
    def run_url(self) -> str | None:
        """The link to this workflow run, for the commit status and the comment."""
        if not self.run_id:
            return None
        return f"{self.server_url.rstrip('/')}/{self.repository}/actions/runs/{self.run_id}"


def settings_from_env(env: Mapping[str, str], token: str | None = None) -> GitHubSettings:
    """Read GitHub Actions' variables; ``token`` (the action's input) wins over GITHUB_TOKEN.

    Raises ValueError naming the missing variable, for the CLI to report in one line.
    """
    token = token or env.get("GITHUB_TOKEN", "")
    if not token:
        raise ValueError("GITHUB_TOKEN: no token; pass the github-token input or set GITHUB_TOKEN")
    repository = env.get("GITHUB_REPOSITORY", "")
    if repository.count("/") != 1:
        raise ValueError(f"GITHUB_REPOSITORY: expected owner/name, got {repository!r}")
    return GitHubSettings(
        token=token,
        repository=repository,
        api_url=_http_url(env, "GITHUB_API_URL", DEFAULT_API_URL),
        server_url=_http_url(env, "GITHUB_SERVER_URL", DEFAULT_SERVER_URL),
        event_name=env.get("GITHUB_EVENT_NAME", ""),
        run_id=env.get("GITHUB_RUN_ID") or None,
    )


def _http_url(env: Mapping[str, str], name: str, default: str) -> str:
    """An http(s) URL with a host from ``env[name]``, else the default; ValueError names it."""
    value = env.get(name) or default
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{name}: expected an http(s) URL such as {default}, got {value!r}")
    return value


# PyGithub retries GET and POST; PATCH (editing the sticky comment, idempotent) is added so a
# 5xx, reset or timeout there is retried too. 429 is retried with or without Retry-After.
RETRIED_METHODS = Retry.DEFAULT_ALLOWED_METHODS | {"GET", "POST", "PATCH"}
RETRIED_STATUSES = [*range(500, 600), 429]


def make_retry(settings: GitHubSettings) -> GithubRetry:
    """PyGithub's retry policy with our limits: 5xx, 429, resets, timeouts and rate limits.

    Every wait is bounded: backoff by ``backoff_max``, a rate limit's reset by
    ``max_rate_limit_wait`` (longer fails at once), and a ``Retry-After`` header by
    ``max_rate_limit_wait`` too where the installed urllib3 can cap it.
    """
    options: dict[str, object] = {}
    if settings.max_rate_limit_wait is not None and _can_cap_retry_after():
        options["retry_after_max"] = settings.max_rate_limit_wait
    return GithubRetry(
        total=settings.retries,
        backoff_factor=settings.backoff_factor,
        backoff_max=settings.backoff_max,
        secondary_rate_wait=settings.secondary_rate_wait,
        max_rate_limit_wait=settings.max_rate_limit_wait,
        raise_on_status=False,
        allowed_methods=RETRIED_METHODS,
        status_forcelist=RETRIED_STATUSES,
        **options,
    )


def _can_cap_retry_after() -> bool:
    return "retry_after_max" in inspect.signature(Retry.__init__).parameters


def connect(settings: GitHubSettings) -> github.Github:
    """A lazy PyGithub client: objects are not fetched until an attribute needs them."""
    return github.Github(
        auth=Auth.Token(settings.token),
        base_url=settings.api_url.rstrip("/"),
        timeout=settings.timeout,
        retry=make_retry(settings),
        per_page=settings.per_page,
        seconds_between_requests=settings.seconds_between_requests,
        seconds_between_writes=settings.seconds_between_writes,
        lazy=True,
    )
