"""GitHub failures as one-line errors the CLI can print, plus the cases it acts on."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import requests

from github import GithubException

NOT_ACCESSIBLE = "Resource not accessible by integration"


class GitHubError(Exception):
    """A GitHub call failed after PyGithub's retries; the message is one line."""

    def __init__(self, action: str, status: int | None, message: str) -> None:
        self.action = action
        self.status = status
        self.message = message
        code = f" ({status})" if status is not None else ""
        super().__init__(f"GitHub: {action} failed{code}: {message}")


class ReadOnlyTokenError(GitHubError):
    """The token may read but not write (a fork's pull request): publish through an artifact."""


class BaselineConflictError(GitHubError):
    """Other writers kept moving a baseline file for every attempt we made."""


class UntrustedEventError(Exception):
    """A baseline write was asked for from an event that runs a pull request's code."""


def exception_message(exc: GithubException) -> str:
    data = exc.data
    if isinstance(data, dict) and data.get("message"):
        return " ".join(str(data["message"]).split())
    return " ".join(str(data or exc).split())[:300]


def is_read_only(exc: GithubException) -> bool:
    """A 403 that is not a rate limit: the token lacks write access to this resource."""
    return exc.status == 403 and "rate limit" not in exception_message(exc).lower()


@contextmanager
def github_call(action: str, *, write: bool = False) -> Iterator[None]:
    """Translate PyGithub and transport failures of ``action`` into GitHubError."""
    try:
        yield
    except GithubException as exc:
        message = exception_message(exc)
        if write and is_read_only(exc):
            raise ReadOnlyTokenError(action, exc.status, message) from exc
        raise GitHubError(action, exc.status, message) from exc
    except requests.RequestException as exc:
        raise GitHubError(action, None, f"{type(exc).__name__}: {exc}") from exc
    except (KeyError, TypeError) as exc:
        # The answer lacked what GitHub's API documents: a redirect (PyGithub hands a 302 or
        # 307 on as an empty object) or something that is not GitHub at GITHUB_API_URL.
        raise GitHubError(
            action,
            None,
            f"the answer is not what GitHub's API documents ({type(exc).__name__}: {exc}); "
            "check GITHUB_API_URL",
        ) from exc
