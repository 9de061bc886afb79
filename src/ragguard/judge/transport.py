"""The judge client's HTTP session: a connection pool that fits its concurrency, and the
proxies and CA bundle of the environment read once."""

from __future__ import annotations

import email.utils
from typing import Any

import requests
from requests.adapters import HTTPAdapter


def environment_settings(session: requests.Session, url: str) -> dict[str, Any]:
    """Proxies and CA bundle from the environment, read once (requests would re-read the
    whole environment on every request); the session then stops reading it."""
    found = session.merge_environment_settings(url, {}, None, None, None)
    session.trust_env = False
    return {"proxies": found.get("proxies") or {}, "verify": found.get("verify", True)}


def pooled_session(concurrency: int) -> requests.Session:
    """A session whose connection pool fits the concurrency."""
    session = requests.Session()
    adapter = HTTPAdapter(pool_connections=1, pool_maxsize=max(concurrency, 1))
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def retry_after_seconds(value: str, now: float) -> float | None:
    """Seconds from a Retry-After header: a number of seconds or an HTTP date (None: no
    header, or one that is neither)."""
    value = value.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - now)


def auth_headers(api_key: str, api_version: str | None) -> dict[str, str]:
    """The key's header: Azure's ``api-key`` when an API version is set, else a bearer token
    (none without a key)."""
    if not api_key:
        return {}
    if api_version:
        return {"api-key": api_key}
    return {"Authorization": f"Bearer {api_key}"}


def version_params(api_version: str | None) -> dict[str, str]:
    """The ``api-version`` query of Azure OpenAI (none otherwise)."""
    return {"api-version": api_version} if api_version else {}
