"""JudgeClient.chat, the plain request drafting makes: the same transport, cache and usage
counters as judging; only replies the caller keeps are cached."""

from __future__ import annotations

from pathlib import Path

from fake_openai import FakeOpenAI

from ragguard.judge.client import JudgeClient
from ragguard.metrics.settings import JudgeSettings

MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "say hi"}]


def client(url: str, cache: Path) -> JudgeClient:
    settings = JudgeSettings(base_url=url, model="m", max_retries=0, cache_dir=cache)
    return JudgeClient(settings)


def test_a_kept_reply_is_cached_and_counted(tmp_path: Path) -> None:
    with FakeOpenAI(default="echo") as server:
        judge = client(server.base_url, tmp_path)
        first = judge.chat(MESSAGES, lambda content: True)
        again = judge.chat(MESSAGES, lambda content: True)
        assert server.calls == 1
    assert (first.content, first.cached) == ("echo: say hi", False)
    assert (again.content, again.cached) == ("echo: say hi", True)
    usage = judge.usage
    assert (usage.answers, usage.requests, usage.cached, usage.errors) == (2, 1, 1, 0)
    assert usage.prompt_tokens == 100  # the fake server's usage block, counted once


def test_a_reply_not_kept_is_asked_again(tmp_path: Path) -> None:
    with FakeOpenAI(default="echo") as server:
        judge = client(server.base_url, tmp_path)
        judge.chat(MESSAGES, lambda content: False)
        judge.chat(MESSAGES, lambda content: False)
        assert server.calls == 2


def test_a_failed_call_is_an_error_not_an_exception(tmp_path: Path) -> None:
    with FakeOpenAI(default="500") as server:
        reply = client(server.base_url, tmp_path).chat(MESSAGES, lambda content: True)
    assert reply.content is None
    assert reply.error == "judge: HTTP 500; gave up after 1 attempt"
