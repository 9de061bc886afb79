"""The http adapter: POST (or GET) each question to your service and map its JSON reply.

::

    system:
      http: http://127.0.0.1:8000/ask
      method: POST
      headers: {Authorization: "Bearer ${RAG_API_TOKEN}"}
      body: {query: "{question}", top_k: 5}
      response: {retrieved: /contexts, id: doc_id, text: content, score: score, answer: /answer}

Header values take ``${NAME}`` from the environment; those values are secrets: they are
never written to results or logs, and are masked in any error message.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter as _PoolAdapter

from ragguard.config.model import SystemConfig
from ragguard.core.sources import ascii_int, parse_json_value, type_name
from ragguard.core.yaml_lines import expands_beyond
from ragguard.system.base import (
    Answer,
    SystemFailure,
    TransientFailure,
    answer_from_output,
    fill_template,
    fill_text,
    format_seconds,
    placeholders,
)
from ragguard.testset.model import Question

METHODS = ("POST", "GET")
RESPONSE_KEYS = ("retrieved", "id", "text", "score", "doc", "answer", "usage", "steps")
DEFAULT_RESPONSE = {
    "retrieved": "retrieved",
    "id": "id",
    "text": "text",
    "score": "score",
    "doc": "doc",
    "answer": "answer",
    "usage": "usage",
    "steps": "steps",
}
DEFAULT_BODY = {"question": "{question}", "id": "{id}", "tags": "{tags}"}
DEFAULT_PARAMS = {"question": "{question}", "id": "{id}"}
SNIPPET = 200
_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class PathMissing(LookupError):
    """A response path that does not lead to a value."""


@dataclass(frozen=True)
class ResponseMapping:
    """Where the retrieved chunks and the answer are in the reply (JSON pointer or dotted)."""

    retrieved: str = "retrieved"
    id: str = "id"
    text: str | None = "text"
    score: str | None = "score"
    doc: str | None = "doc"  # the chunk's document, for evidence labels
    answer: str | None = "answer"
    answer_required: bool = False
    usage: str | None = "usage"  # the answer's tokens and cost (usage.py), when present
    steps: str | None = "steps"  # an agent's retrievals and tool calls (steps.py), when present

    def extract(self, document: Any) -> dict[str, Any]:
        output: dict[str, Any] = {}
        if self.steps is not None:
            with contextlib.suppress(PathMissing):
                output["steps"] = lookup(document, self.steps)
        try:
            items = lookup(document, self.retrieved)
        except PathMissing:
            if output.get("steps") is None:
                raise
            items = None  # the union of the retrieval steps
        if items is not None and not isinstance(items, list):
            raise SystemFailure(
                f"response: {self.retrieved!r} is {type_name(items)}; expected a list of chunks"
            )
        if items is not None:
            output["retrieved"] = [self._chunk(item) for item in items]
        if self.answer is not None:
            try:
                output["answer"] = lookup(document, self.answer)
            except PathMissing:
                if self.answer_required:
                    raise
        if self.usage is not None:
            with contextlib.suppress(PathMissing):
                output["usage"] = lookup(document, self.usage)
        return output

    def _chunk(self, item: Any) -> Any:
        if not isinstance(item, (dict, list)):
            return item
        chunk = {"id": lookup(item, self.id)}
        for key, path in (("text", self.text), ("score", self.score), ("doc", self.doc)):
            if path is not None:
                with contextlib.suppress(PathMissing):
                    chunk[key] = lookup(item, path)
        return chunk


def lookup(document: Any, path: str) -> Any:
    """Follow a JSON pointer (``/a/0/b``) or a dotted path (``a.0.b``); ``""`` is the root."""
    if path in ("", "/", "."):
        return document
    parts = (
        [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]
        if path.startswith("/")
        else path.split(".")
    )
    value = document
    for part in parts:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and (index := ascii_int(part)) is not None:
            if not 0 <= index < len(value):
                raise PathMissing(f"response has no value at {path!r}")
            value = value[index]
        else:
            raise PathMissing(f"response has no value at {path!r}")
    return value


MAX_TEMPLATE_VALUES = 10_000  # the body and params are filled per question


class HttpAdapter:
    """One HTTP request per question, through a per-thread pooled session."""

    def __init__(
        self,
        url: str,
        *,
        method: str = "POST",
        headers: Mapping[str, str] | None = None,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        response: ResponseMapping | None = None,
        secrets: tuple[str, ...] = (),
        pool_size: int = 10,
    ) -> None:
        self.url = url
        self.method = method
        self.headers = dict(headers or {})
        self.body = body if body is not None else (DEFAULT_BODY if method == "POST" else None)
        self.params = (
            params if params is not None else (DEFAULT_PARAMS if method == "GET" else None)
        )
        self.response = response or ResponseMapping()
        self.secrets = tuple(secret for secret in secrets if secret)
        self.pool_size = pool_size
        self._local = threading.local()

    @classmethod
    def from_config(cls, system: SystemConfig, root: Path) -> HttpAdapter:
        del root  # nothing to resolve on disk
        url = system.target
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise system.error(f"expected an http:// or https:// URL, found {url!r}", key="http")
        options = system.options
        method = options.get("method", "POST")
        if not isinstance(method, str) or method.upper() not in METHODS:
            raise system.error(f"expected POST or GET, found {method!r}", key="method")
        headers, secrets = _headers(options.get("headers"), system)
        params = options.get("params")
        if params is not None and not isinstance(params, Mapping):
            raise system.error(f"expected a mapping, found {type_name(params)}", key="params")
        if method.upper() == "GET" and options.get("body") is not None:
            raise system.error("a GET request has no body; use params", key="body")
        for key in ("body", "params"):
            if expands_beyond(options.get(key), MAX_TEMPLATE_VALUES):
                raise system.error(
                    f"the template expands to over {MAX_TEMPLATE_VALUES:,} values (YAML aliases?); "
                    "it is filled for every question: keep it small",
                    key=key,
                )
        return cls(
            url,
            method=method.upper(),
            headers=headers,
            body=options.get("body"),
            params=params,
            response=_response_mapping(options.get("response"), system),
            secrets=secrets,
            pool_size=system.run.concurrency,
        )

    def identity(self) -> dict[str, Any]:
        return {"kind": "http", "target": self.url, "method": self.method}

    def ask(self, question: Question, timeout: float) -> Answer:
        values = placeholders(question)
        try:
            reply = self._session().request(
                self.method,
                fill_text(self.url, values, quote=_quote),
                headers=self.headers,
                json=fill_template(self._body_for(question), values)
                if self.body is not None
                else None,
                params=fill_template(self.params, values) if self.params is not None else None,
                timeout=(timeout, timeout),
            )
        except requests.ConnectionError as exc:
            raise TransientFailure(self._mask(f"connection failed: {_short(exc)}")) from None
        except requests.Timeout:
            raise SystemFailure(f"timed out after {format_seconds(timeout)}") from None
        except requests.RequestException as exc:
            raise SystemFailure(self._mask(f"request failed: {_short(exc)}")) from None
        return self._answer(reply)

    def _body_for(self, question: Question) -> Any:
        """The body template; the default one sends a turn's history too."""
        if self.body is DEFAULT_BODY and question.conversation is not None:
            return {**DEFAULT_BODY, "history": "{history}"}
        return self.body

    def _answer(self, reply: requests.Response) -> Answer:
        status = f"HTTP {reply.status_code}{' ' + reply.reason if reply.reason else ''}"
        if reply.status_code == 429:
            raise TransientFailure(
                f"{status} (rate limited)", retry_after=retry_after_seconds(reply.headers)
            )
        if reply.status_code >= 500:
            raise TransientFailure(self._mask(f"{status}: {_snippet(reply.text)}"))
        if reply.status_code >= 300:
            raise SystemFailure(self._mask(f"{status}: {_snippet(reply.text)}"))
        try:
            document = parse_json_value(reply.text)
        except ValueError as exc:
            raise SystemFailure(
                self._mask(f"response is not valid JSON ({exc}): {_snippet(reply.text)}")
            ) from None
        try:
            output = self.response.extract(document)
        except PathMissing as exc:
            raise SystemFailure(str(exc)) from None
        return answer_from_output(output, "response")

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = _SecretKeepingSession(self.secrets)
            pool = _PoolAdapter(pool_connections=1, pool_maxsize=self.pool_size, max_retries=0)
            session.mount("http://", pool)
            session.mount("https://", pool)
            session.trust_env = False
            self._local.session = session
        return session

    def _mask(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text


class _SecretKeepingSession(requests.Session):
    """A session that follows redirects but keeps header secrets on the configured origin.

    requests drops ``Authorization`` when a redirect changes the host or port, but forwards
    every other header, so an ``X-Api-Key: ${KEY}`` would go on to wherever the service
    redirects. Any header holding a secret is dropped when the redirect leaves the origin.
    """

    def __init__(self, secrets: tuple[str, ...]) -> None:
        super().__init__()
        self.secrets = secrets

    def rebuild_auth(self, prepared_request: Any, response: requests.Response) -> None:
        super().rebuild_auth(prepared_request, response)
        if _origin(prepared_request.url) == _origin(response.request.url):
            return
        for name, value in list(prepared_request.headers.items()):
            if any(secret in value for secret in self.secrets):
                del prepared_request.headers[name]


def _origin(url: str | None) -> tuple[str, str, int | None]:
    parts = urlsplit(url or "")
    default_port = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, parts.hostname or "", parts.port or default_port


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The wait a ``Retry-After`` header asks for: delta-seconds or an HTTP date."""
    value = headers.get("Retry-After")
    if value is None:
        return None
    value = value.strip()
    seconds = ascii_int(value)
    if seconds is not None and seconds >= 0:
        return float(seconds)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _headers(value: Any, system: SystemConfig) -> tuple[dict[str, str], tuple[str, ...]]:
    if value is None:
        return {}, ()
    if not isinstance(value, Mapping):
        raise system.error(f"expected a mapping, found {type_name(value)}", key="headers")
    headers: dict[str, str] = {}
    secrets: list[str] = []
    for name, raw in value.items():
        if not isinstance(raw, (str, int)) or isinstance(raw, bool):
            raise system.error(f"value must be a string, found {type_name(raw)}", key="headers")

        def substitute(match: re.Match[str], header: str = str(name)) -> str:
            variable = match.group(1)
            secret = os.environ.get(variable)
            if secret is None:
                raise system.error(
                    f"header {header!r} needs the environment variable {variable}, which is "
                    "not set; export it (in CI: from a secret)",
                    key="headers",
                )
            secrets.append(secret)
            return secret

        headers[str(name)] = _ENV.sub(substitute, str(raw))
    return headers, tuple(secrets)


def _response_mapping(value: Any, system: SystemConfig) -> ResponseMapping:
    if value is None:
        return ResponseMapping()
    if not isinstance(value, Mapping):
        raise system.error(f"expected a mapping, found {type_name(value)}", key="response")
    for key, path in value.items():
        if key not in RESPONSE_KEYS:
            raise system.error(
                f"unknown key {key!r}; allowed: {', '.join(RESPONSE_KEYS)}", key="response"
            )
        nullable = key in ("text", "score", "doc", "answer", "usage", "steps")
        if not (isinstance(path, str) or (path is None and nullable)):
            raise system.error(
                f"{key}: expected a JSON pointer (/a/b) or dotted path (a.b), found {path!r}",
                key="response",
            )
    merged = {**DEFAULT_RESPONSE, **value}
    return ResponseMapping(
        retrieved=merged["retrieved"],
        id=merged["id"],
        text=merged["text"],
        score=merged["score"],
        doc=merged["doc"],
        answer=merged["answer"],
        answer_required="answer" in value and value["answer"] is not None,
        usage=merged["usage"],
        steps=merged["steps"],
    )


def _quote(text: str) -> str:
    return requests.utils.quote(text, safe="")


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    if not flat:
        return "(empty body)"
    return flat if len(flat) <= SNIPPET else flat[: SNIPPET - 1] + "…"


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"
