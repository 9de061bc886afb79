"""The LLM judge over an OpenAI-compatible ``/chat/completions`` endpoint, through requests.

Works with OpenAI, Azure OpenAI (``api_version`` set: ``api-key`` header and ``api-version``
query), Ollama, vLLM and LiteLLM. One call per answer; the reply is parsed strictly and asked
for once more when invalid; after that the answer is a judge error, never a pass.

Transport: retries with exponential backoff and jitter on connection errors, timeouts and
5xx; a 429 waits for its Retry-After (seconds or an HTTP date; every worker waits) and is
retried. 401, 403 and 404 stop all further calls (the configuration is wrong). Redirects are
not followed, so the key only ever goes to ``base_url``. A ``max_calls`` budget caps the
requests sent. Replies are cached on disk by a hash of the request, so an unchanged answer
costs nothing the next time. Each answer judged by ``judge_many`` leaves its calls and their
tokens (the reply's ``usage``, else estimated: usage.py) in :meth:`JudgeClient.charges`, for
the results' judge cost. ``sleep``, ``clock`` and ``rng`` are injectable for tests.

:class:`JudgeClient` is the scoring's :class:`~ragguard.metrics.judging.Judge`; the items it
takes and the outcomes it returns are the metrics' types (re-exported here).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import requests

from ragguard.core.sources import parse_json_value
from ragguard.core.surrogates import LoneSurrogate
from ragguard.judge import transport
from ragguard.judge.cache import ReplyCache, cache_key
from ragguard.judge.keys import api_key
from ragguard.judge.prompts import ReplyError, build_messages, parse_reply, reask_message
from ragguard.judge.usage import (
    COMPLETION_TOKENS_BASE,
    COMPLETION_TOKENS_PER_SENTENCE,
    Plan,
    Tally,
    Usage,
    estimate_prompt_tokens,
    estimate_tokens,
    reported_tokens,
)
from ragguard.metrics.judging import JudgeItem, JudgeOutcome, JudgeVerdict
from ragguard.metrics.settings import JudgeSettings
from ragguard.results.judging import JudgeCharge

BACKOFF_BASE = 0.5
BACKOFF_CAP = 30.0
MAX_RETRY_AFTER = 300.0
FATAL_STATUSES = (401, 403, 404)


class _Retry(Exception):
    def __init__(self, message: str, delay: float) -> None:
        super().__init__(message)
        self.delay = delay


class _CallFailed(Exception):
    def __init__(self, message: str, fatal: bool = False) -> None:
        super().__init__(message)
        self.fatal = fatal


@dataclass(frozen=True)
class ChatReply:
    """A chat request's reply text, or why there is none."""

    content: str | None
    error: str = ""
    cached: bool = False


@dataclass
class _State:
    lock: threading.Lock = field(default_factory=threading.Lock)
    usage: Usage = field(default_factory=Usage)
    resume_at: float = 0.0
    fatal: str | None = None
    charges: list[JudgeCharge] = field(default_factory=list)


class JudgeClient:
    """Judges answers; safe to call from many threads (``judge_many`` does)."""

    def __init__(
        self,
        settings: JudgeSettings,
        *,
        api_key: str | None = None,
        session: requests.Session | None = None,
        cache: ReplyCache | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        self.settings = settings
        self._progress = progress
        self._api_key = api_key
        self.cache = cache if cache is not None else ReplyCache(settings.cache_dir)
        self._sleep = sleep
        self._clock = clock
        self._rng = rng or random.Random()
        self._state = _State()
        if session is None:
            session = transport.pooled_session(settings.concurrency)
            self._transport = transport.environment_settings(session, settings.chat_url)
        else:
            self._transport = {}
        self._session = session

    @classmethod
    def from_environment(
        cls, settings: JudgeSettings, environ: Mapping[str, str] | None = None, **kwargs: Any
    ) -> JudgeClient:
        """A client whose key comes from the variable named by ``api_key_env``."""
        return cls(settings, api_key=api_key(settings, environ), **kwargs)

    def __repr__(self) -> str:
        return f"JudgeClient(model={self.settings.model!r}, url={self.settings.chat_url!r})"

    @property
    def usage(self) -> Usage:
        with self._state.lock:
            return Usage(**vars(self._state.usage))

    def charges(self) -> tuple[JudgeCharge, ...]:
        """Each answer ``judge_many`` judged: its calls and tokens, in the order judged."""
        with self._state.lock:
            return tuple(self._state.charges)

    def request_body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        settings = self.settings
        body: dict[str, Any] = {
            "model": settings.model,
            "messages": messages,
            "temperature": settings.temperature,
            "max_tokens": settings.max_tokens,
        }
        if settings.seed is not None:
            body["seed"] = settings.seed
        if settings.json_mode:
            body["response_format"] = {"type": "json_object"}
        return body

    def _first_body(self, item: JudgeItem) -> dict[str, Any]:
        return self.request_body(
            build_messages(item.question, item.segments, item.context, item.not_claims)
        )

    def plan(self, items: Sequence[JudgeItem]) -> Plan:
        """Count calls and estimate tokens without calling anything."""
        calls = cached = prompt = completion = 0
        for item in items:
            body = self._first_body(item)
            if self._cached_verdict(cache_key(body), item) is not None:
                cached += 1
                continue
            calls += 1
            prompt += estimate_prompt_tokens(body["messages"])
            completion += COMPLETION_TOKENS_BASE + COMPLETION_TOKENS_PER_SENTENCE * len(
                item.sentence_ids
            )
        return Plan(len(items), calls, cached, prompt, completion, self.settings.price)

    def judge_many(self, items: Sequence[JudgeItem]) -> dict[str, JudgeOutcome]:
        """Judge every item, ``concurrency`` at a time; every item gets an outcome."""
        if not items:
            return {}
        workers = min(self.settings.concurrency, len(items))
        done = 0

        def judge_and_report(item: JudgeItem) -> tuple[JudgeOutcome, JudgeCharge]:
            nonlocal done
            judged = self._judge_charged(item)
            if self._progress is not None:
                with self._state.lock:
                    done += 1
                    count = done
                self._progress(count, len(items))
            return judged

        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="judge") as pool:
            judged = list(pool.map(judge_and_report, items))
        with self._state.lock:
            self._state.charges.extend(charge for _, charge in judged)
        return {item.key: outcome for item, (outcome, _) in zip(items, judged, strict=True)}

    def judge(self, item: JudgeItem) -> JudgeOutcome:
        """Judge one answer: from the cache, or by a call (and at most one re-ask)."""
        return self._judge_charged(item)[0]

    def _judge_charged(self, item: JudgeItem) -> tuple[JudgeOutcome, JudgeCharge]:
        """The answer's outcome and what it cost: a cached verdict nothing, else the calls
        made for it and their tokens."""
        body = self._first_body(item)
        key = cache_key(body)
        verdict = self._cached_verdict(key, item)
        if verdict is not None:
            self._count(answers=1, cached=1)
            return JudgeOutcome(verdict, cached=True), JudgeCharge(item.key, cached=True)
        tally = Tally()
        outcome = self._ask(item, body, key, tally)
        self._count(answers=1, errors=0 if outcome.verdict else 1)
        return outcome, tally.charge(item.key)

    def chat(self, messages: list[dict[str, str]], keep: Callable[[str], bool]) -> ChatReply:
        """One request outside judging (drafting questions): from the cache, or a call; a
        reply ``keep`` accepts is cached. Counted as an answer, a failure as a judge error."""
        body = self.request_body(messages)
        key = cache_key(body)
        entry = self.cache.get(key)
        if entry is not None and isinstance(entry.get("content"), str):
            self._count(answers=1, cached=1)
            return ChatReply(entry["content"], cached=True)
        try:
            content = self._call(body, Tally())
        except _CallFailed as failure:
            self._count(answers=1, errors=1)
            return ChatReply(None, f"judge: {failure}")
        if keep(content):
            self.cache.put(key, {"model": self.settings.model, "content": content})
        self._count(answers=1)
        return ChatReply(content)

    def _cached_verdict(self, key: str, item: JudgeItem) -> JudgeVerdict | None:
        entry = self.cache.get(key)
        content = entry.get("content") if entry else None
        if not isinstance(content, str):
            return None
        try:
            return parse_reply(content, item.sentence_ids, item.chunk_ids)
        except ReplyError:
            return None

    def _ask(self, item: JudgeItem, body: dict[str, Any], key: str, tally: Tally) -> JudgeOutcome:
        reason = ""
        for ask in range(2):
            try:
                content = self._call(body, tally)
            except _CallFailed as failure:
                return JudgeOutcome(None, f"judge: {failure}")
            try:
                verdict = parse_reply(content, item.sentence_ids, item.chunk_ids)
            except ReplyError as exc:
                reason = str(exc)
                if ask == 0:
                    self._count(reasks=1)
                    messages = [*body["messages"], {"role": "assistant", "content": content}]
                    messages.append(reask_message(reason, item.sentence_ids))
                    body = {**body, "messages": messages}
                continue
            self.cache.put(key, {"model": self.settings.model, "content": content})
            return JudgeOutcome(verdict)
        return JudgeOutcome(None, f"judge: invalid reply twice; last: {reason}")

    def _call(self, body: dict[str, Any], tally: Tally) -> str:
        """POST one request, retrying transient failures; the reply's message content (the
        requests sent and the reply's tokens counted in ``tally``)."""
        attempts = self.settings.max_retries + 1
        for attempt in range(1, attempts + 1):
            self._wait_for_rate_limit()
            self._reserve_request()
            tally.calls += 1
            try:
                return self._attempt(body, attempt, tally)
            except _Retry as retry:
                if attempt == attempts:
                    tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
                    raise _CallFailed(f"{retry}; gave up after {tries}") from None
                self._count(retries=1)
                if retry.delay > 0:
                    self._sleep(retry.delay)
        raise AssertionError("unreachable")

    def _attempt(self, body: dict[str, Any], attempt: int, tally: Tally) -> str:
        """One request: the message content, or :class:`_Retry` / :class:`_CallFailed`."""
        try:
            response = self._session.post(
                self.settings.chat_url,
                json=body,
                headers=transport.auth_headers(self._api_key, self.settings.api_version),
                params=transport.version_params(self.settings.api_version),
                timeout=self.settings.timeout,
                allow_redirects=False,
                **self._transport,
            )
        except requests.Timeout:
            raise _Retry(
                f"timed out after {self.settings.timeout:g}s", self._backoff(attempt)
            ) from None
        except requests.RequestException as exc:
            raise _Retry(
                f"connection failed ({type(exc).__name__})", self._backoff(attempt)
            ) from None
        status = response.status_code
        if status == 429:
            self._note_rate_limit(response, attempt)
            raise _Retry("HTTP 429 (rate limited)", 0.0)
        if status >= 500:
            raise _Retry(f"HTTP {status}", self._backoff(attempt))
        if status != 200:
            raise self._refused(response)
        return self._content(response, body, tally)

    def _note_rate_limit(self, response: requests.Response, attempt: int) -> None:
        """Make every worker wait for Retry-After (or the backoff when there is none)."""
        wait = self._retry_after(response)
        if wait is not None and wait > MAX_RETRY_AFTER:
            raise _CallFailed(
                f"HTTP 429 with Retry-After {wait:.0f}s, more than the "
                f"{MAX_RETRY_AFTER:.0f}s ragguard waits"
            )
        wait = self._backoff(attempt) if wait is None else wait
        with self._state.lock:
            self._state.resume_at = max(self._state.resume_at, self._clock() + wait)

    def _refused(self, response: requests.Response) -> _CallFailed:
        status = response.status_code
        if 300 <= status < 400:
            target = self._redacted(response.headers.get("Location", "?"))
            return _CallFailed(
                f"HTTP {status} redirect to {target}; set judge.base_url to the final URL "
                "(redirects are not followed so the key goes nowhere else)",
                fatal=True,
            )
        hint = {
            401: f"; check the key in {self.settings.api_key_env or 'judge.api_key_env'}",
            403: "; the key may not be allowed to use this model",
            404: "; check judge.base_url and judge.model",
        }.get(status, "")
        detail = " ".join(self._redacted(response.text).split())[:200]
        fatal = status in FATAL_STATUSES
        message = f"HTTP {status}{hint}: {detail}" if detail else f"HTTP {status}{hint}"
        if fatal:
            with self._state.lock:
                self._state.fatal = self._state.fatal or message
        return _CallFailed(message, fatal=fatal)

    def _content(self, response: requests.Response, body: dict[str, Any], tally: Tally) -> str:
        """The reply's message content; its tokens from ``usage``, else estimated."""
        try:
            data = parse_json_value(response.text)  # a lone surrogate escape refused here
            content = data["choices"][0]["message"]["content"]
        except LoneSurrogate as exc:
            raise _CallFailed(f"the server's response is not a chat completion: {exc}") from None
        except (ValueError, KeyError, IndexError, TypeError):
            raise _CallFailed("the server's response is not a chat completion") from None
        text = content if isinstance(content, str) else ""
        usage = data.get("usage") if isinstance(data, dict) else None
        reported = reported_tokens(usage)
        counted = reported or (estimate_prompt_tokens(body["messages"]), estimate_tokens(text))
        tally.count_reply(counted, estimated=reported is None)
        self._count(
            prompt_tokens=counted[0], completion_tokens=counted[1], estimated=reported is None
        )
        return text

    def _redacted(self, text: str) -> str:
        """``text`` without the key (a proxy's error page may echo the header it was sent)."""
        return text.replace(self._api_key, "***") if self._api_key else text

    def _backoff(self, attempt: int) -> float:
        """Exponential backoff with jitter: base * 2^(attempt-1), capped, times 0.5 to 1."""
        ceiling = min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1))
        with self._state.lock:
            factor = 0.5 + self._rng.random() / 2
        return ceiling * factor

    def _retry_after(self, response: requests.Response) -> float | None:
        return transport.retry_after_seconds(response.headers.get("Retry-After", ""), self._clock())

    def _wait_for_rate_limit(self) -> None:
        with self._state.lock:
            wait = self._state.resume_at - self._clock()
        if wait > 0:
            self._sleep(wait)

    def _reserve_request(self) -> None:
        """Count a request about to be sent, refusing it when stopped or over budget."""
        budget = self.settings.max_calls
        with self._state.lock:
            if self._state.fatal:
                raise _CallFailed(f"not called: an earlier call failed with {self._state.fatal}")
            if budget is not None and self._state.usage.requests >= budget:
                raise _CallFailed(f"call budget exhausted (judge.max_calls = {budget})")
            self._state.usage.requests += 1

    def _count(self, **amounts: int) -> None:
        with self._state.lock:
            for name, amount in amounts.items():
                setattr(self._state.usage, name, getattr(self._state.usage, name) + amount)
