"""The judge client against a real local OpenAI-compatible server on loopback.

Every failure mode ends in its documented state: a verdict, or an outcome with an error
(which scoring turns into ``judge_error``); never an exception, never a silent pass.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI

from ragguard.core.errors import InputError
from ragguard.judge.cache import ReplyCache
from ragguard.judge.client import JudgeClient, JudgeItem
from ragguard.metrics.settings import JudgeSettings
from ragguard.metrics.text import segment

PASSAGE = (
    "Each API key may send 100 requests per minute. Extra requests return status 429 with a "
    "Retry-After header."
)
ANSWER = (
    "You can send 100 requests per minute per API key. Extra requests return status 429. "
    "Limits reset every hour."
)
KEY = "sk-test-secret-0123456789"


def item(key: str = "q1", answer: str = ANSWER) -> JudgeItem:
    return JudgeItem(key, "How many requests?", segment(answer), (("rate-limits", PASSAGE),))


class Sleeps(list):
    """An injectable sleep that records instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client(server: FakeOpenAI, tmp_path: Path | None = None, **overrides) -> JudgeClient:
    settings = JudgeSettings(
        base_url=server.base_url,
        model="judge-model",
        api_key_env="JUDGE_KEY",
        cache_dir=tmp_path / "cache" if tmp_path else None,
        **{"max_retries": 3, **overrides},
    )
    return JudgeClient(settings, api_key=KEY, sleep=Sleeps())


def sentences(outcome) -> list[tuple[str, bool, str | None]]:
    return [(s.id, s.supported, s.evidence) for s in outcome.verdict.sentences]


EXPECTED = [("s1", True, "rate-limits"), ("s2", True, "rate-limits"), ("s3", False, None)]


def test_correct_reply_one_call_with_the_documented_request():
    with FakeOpenAI() as server:
        judge = client(server, seed=7, max_tokens=300)
        outcome = judge.judge(item())
        assert outcome.error is None
        assert sentences(outcome) == EXPECTED
        assert (outcome.verdict.relevance, outcome.verdict.declined) == (4, False)
        assert server.calls == 1
        request = server.requests[0]
        assert request.path == "/v1/chat/completions"
        assert request.headers["Authorization"] == f"Bearer {KEY}"
        body = request.body
        assert body["model"] == "judge-model"
        assert (body["temperature"], body["seed"], body["max_tokens"]) == (0.0, 7, 300)
        assert body["response_format"] == {"type": "json_object"}
        prompt = body["messages"][1]["content"]
        assert "s3: Limits reset every hour." in prompt
        assert "[chunk rate-limits]" in prompt
        usage = judge.usage
        assert (usage.requests, usage.prompt_tokens, usage.completion_tokens) == (1, 100, 20)


def test_json_mode_can_be_turned_off_and_a_fenced_reply_is_accepted():
    with FakeOpenAI(default="fenced") as server:
        outcome = client(server, json_mode=False).judge(item())
        assert sentences(outcome) == EXPECTED
        assert "response_format" not in server.requests[0].body
        assert server.calls == 1


def test_429_waits_for_retry_after_seconds():
    with FakeOpenAI(script=["429"], retry_after=7) as server:
        judge = client(server)
        outcome = judge.judge(item())
        assert sentences(outcome) == EXPECTED
        assert server.calls == 2
        assert len(judge._sleep) == 1 and 6.0 < judge._sleep[0] <= 7.0
        assert judge.usage.retries == 1


def test_429_waits_for_retry_after_http_date():
    with FakeOpenAI(script=["429-date"], retry_after=30) as server:
        judge = client(server)
        assert sentences(judge.judge(item())) == EXPECTED
        assert server.calls == 2
        assert len(judge._sleep) == 1 and 27.0 <= judge._sleep[0] <= 30.0


def test_429_beyond_the_longest_wait_fails_the_answer():
    with FakeOpenAI(default="429", retry_after=3600) as server:
        outcome = client(server).judge(item())
        assert outcome.verdict is None
        assert "Retry-After 3600s" in outcome.error
        assert server.calls == 1


def test_500s_are_retried_with_exponential_backoff_and_jitter():
    with FakeOpenAI(script=["500", "503", "500"]) as server:
        judge = client(server)
        assert sentences(judge.judge(item())) == EXPECTED
        assert server.calls == 4
        first, second, third = judge._sleep
        assert 0.25 <= first <= 0.5 and 0.5 <= second <= 1.0 and 1.0 <= third <= 2.0


def test_persistent_500_ends_in_a_judge_error_after_max_retries():
    with FakeOpenAI(default="500") as server:
        judge = client(server, max_retries=2)
        outcome = judge.judge(item())
        assert outcome.verdict is None
        assert outcome.error == "judge: HTTP 500; gave up after 3 attempts"
        assert server.calls == 3
        assert judge.usage.errors == 1


def test_timeout_is_retried_then_fails():
    with FakeOpenAI(default="hang", hang_seconds=1.0) as server:
        outcome = client(server, timeout=0.2, max_retries=1).judge(item())
        assert outcome.verdict is None
        assert outcome.error == "judge: timed out after 0.2s; gave up after 2 attempts"
        assert server.calls == 2


def test_slow_reply_within_the_timeout_is_fine():
    with FakeOpenAI(default="slow", slow_seconds=0.2) as server:
        assert sentences(client(server, timeout=5.0).judge(item())) == EXPECTED


def test_connection_refused_is_retried_then_fails():
    server = FakeOpenAI()
    server.start()
    settings_url = server.base_url
    server.stop()
    judge = JudgeClient(
        JudgeSettings(base_url=settings_url, model="m", max_retries=2, cache_dir=None),
        sleep=Sleeps(),
    )
    outcome = judge.judge(item())
    assert outcome.verdict is None
    assert outcome.error.startswith("judge: connection failed (ConnectionError)")
    assert len(judge._sleep) == 2


@pytest.mark.parametrize(
    "behaviour", ["truncated", "non_json", "missing_id", "extra_id", "duplicate_id", "bad_evidence"]
)
def test_an_invalid_reply_is_asked_again_once(behaviour):
    with FakeOpenAI(script=[behaviour]) as server:
        judge = client(server)
        outcome = judge.judge(item())
        assert sentences(outcome) == EXPECTED
        assert server.calls == 2
        reask = server.requests[1].body["messages"]
        assert [m["role"] for m in reask] == ["system", "user", "assistant", "user"]
        assert reask[3]["content"].startswith("That reply was not valid: ")
        assert judge.usage.reasks == 1


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        ("truncated", "not JSON"),
        ("non_json", "not JSON"),
        ("missing_id", "no verdict for sentence id s3"),
        ("extra_id", "unknown sentence id s99"),
        ("duplicate_id", "sentence id s1 appears twice"),
        ("bad_evidence", '"evidence" of s1 must be a given chunk id or null'),
    ],
)
def test_two_invalid_replies_make_a_judge_error(behaviour, reason):
    with FakeOpenAI(default=behaviour) as server:
        outcome = client(server).judge(item())
        assert outcome.verdict is None
        assert outcome.error.startswith("judge: invalid reply twice; last: ")
        assert reason in outcome.error
        assert server.calls == 2


def test_a_response_that_is_not_a_completion_fails_the_answer():
    with FakeOpenAI(default="envelope") as server:
        outcome = client(server).judge(item())
        assert outcome.error == "judge: the server's response is not a chat completion"
        assert server.calls == 1


def test_a_lone_surrogate_in_the_response_fails_the_answer_and_is_not_cached(tmp_path):
    """docs/formats.md, "Decisions the formats leave open": refused where the response is
    parsed, so no reply holding one reaches the cache or the results."""
    with FakeOpenAI(default="lone_surrogate") as server:
        outcome = client(server, tmp_path).judge(item())
        assert outcome.verdict is None
        assert outcome.error.startswith(
            "judge: the server's response is not a chat completion: lone surrogate \\ud800 in "
            "a string (column "
        )
        assert server.calls == 1
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_401_stops_every_further_call():
    with FakeOpenAI(default="401") as server:
        judge = client(server, concurrency=1)
        outcomes = judge.judge_many([item("a"), item("b"), item("c")])
        assert server.calls == 1
        assert outcomes["a"].error.startswith("judge: HTTP 401; check the key in JUDGE_KEY")
        for key in "bc":
            assert outcomes[key].verdict is None
            assert outcomes[key].error.startswith(
                "judge: not called: an earlier call failed with HTTP 401"
            )


def test_redirects_are_not_followed():
    with FakeOpenAI(default="redirect") as server:
        outcome = client(server).judge(item())
        assert outcome.error.startswith("judge: HTTP 307 redirect to http://127.0.0.1:9/")
        assert server.calls == 1


def test_max_calls_budget_caps_requests():
    with FakeOpenAI() as server:
        judge = client(server, max_calls=2, concurrency=1)
        outcomes = judge.judge_many([item("a"), item("b"), item("c")])
        assert server.calls == 2
        assert outcomes["c"].error == "judge: call budget exhausted (judge.max_calls = 2)"
        assert outcomes["a"].verdict is not None


def test_azure_style_key_header_and_api_version():
    with FakeOpenAI() as server:
        judge = client(server, api_version="2024-06-01")
        assert judge.judge(item()).verdict is not None
        request = server.requests[0]
        assert request.query == {"api-version": ["2024-06-01"]}
        assert request.headers["api-key"] == KEY
        assert "Authorization" not in request.headers


def test_no_key_sends_no_auth_header():
    with FakeOpenAI() as server:
        judge = JudgeClient(JudgeSettings(server.base_url, "m", cache_dir=None))
        assert judge.judge(item()).verdict is not None
        assert "Authorization" not in server.requests[0].headers


def test_key_comes_from_the_named_environment_variable():
    settings = JudgeSettings("http://127.0.0.1:9/v1", "m", api_key_env="JUDGE_KEY")
    with pytest.raises(InputError, match="environment variable JUDGE_KEY is not set"):
        JudgeClient.from_environment(settings, {})
    assert JudgeClient.from_environment(settings, {"JUDGE_KEY": KEY})._api_key == KEY
    assert KEY not in repr(JudgeClient.from_environment(settings, {"JUDGE_KEY": KEY}))


def test_concurrency_limit_is_reached_and_never_exceeded():
    barrier = threading.Barrier(4)
    with FakeOpenAI(barrier=barrier) as server:
        judge = client(server, concurrency=4)
        outcomes = judge.judge_many([item(f"q{i}") for i in range(8)])
        # The barrier only opens when 4 requests are in flight together: had the client
        # sent fewer at once, the waits would time out (BrokenBarrierError -> 500s).
        assert not barrier.broken
        assert all(outcome.verdict is not None for outcome in outcomes.values())
        assert server.max_in_flight == 4
        assert server.calls == 8


def test_cache_makes_the_second_run_free_and_never_stores_the_key(tmp_path):
    items = [item("a"), item("b", "Extra requests return status 429.")]
    with FakeOpenAI() as server:
        first = client(server, tmp_path).judge_many(items)
        assert server.calls == 2
        second_client = client(server, tmp_path)
        second = second_client.judge_many(items)
        assert server.calls == 2
        assert second_client.usage.cached == 2 and second_client.usage.requests == 0
        assert {k: sentences(v) for k, v in second.items()} == {
            k: sentences(v) for k, v in first.items()
        }
        changed = client(server, tmp_path).judge_many([item("a", ANSWER + " Retry later.")])
        assert server.calls == 3
        assert changed["a"].verdict is not None
    stored = [path.read_text() for path in (tmp_path / "cache").rglob("*.json")]
    assert len(stored) == 3
    assert not any(KEY in text for text in stored)


def test_errors_are_not_cached(tmp_path):
    with FakeOpenAI(script=["non_json", "non_json"]) as server:
        assert client(server, tmp_path).judge(item()).verdict is None
        assert client(server, tmp_path).judge(item()).verdict is not None
        assert server.calls == 3


def test_a_corrupt_cache_file_is_a_miss(tmp_path):
    with FakeOpenAI() as server:
        client(server, tmp_path).judge(item())
        (path,) = (tmp_path / "cache").rglob("*.json")
        path.write_text("{not json")
        assert client(server, tmp_path).judge(item()).verdict is not None
        assert server.calls == 2


def test_a_cached_reply_with_a_lone_surrogate_escape_is_a_miss(tmp_path):
    """Read as every JSON input is (docs/formats.md, "Decisions the formats leave open")."""
    with FakeOpenAI() as server:
        client(server, tmp_path).judge(item())
        (path,) = (tmp_path / "cache").rglob("*.json")
        entry = json.loads(path.read_text(encoding="utf-8"))
        reply = json.loads(entry["content"])
        entry["content"] = json.dumps({**reply, "note": "half \ud800"}, ensure_ascii=False)
        path.write_text(json.dumps(entry), encoding="utf-8")  # the file escapes it: \ud800
        assert client(server, tmp_path).judge(item()).verdict is not None
        assert server.calls == 2


def test_plan_counts_calls_and_tokens_without_calling(tmp_path):
    with FakeOpenAI() as server:
        judge = client(server, tmp_path)
        judge.judge(item("a"))
        plan = client(server, tmp_path).plan([item("a"), item("b", "Other answer here.")])
        assert (plan.answers, plan.cached, plan.calls) == (2, 1, 1)
        assert plan.prompt_tokens > 100 and plan.completion_tokens == 15 + 20
        assert server.calls == 1


def test_cache_key_ignores_the_key_and_url(tmp_path):
    cache = ReplyCache(tmp_path)
    with FakeOpenAI() as one, FakeOpenAI() as two:
        JudgeClient(JudgeSettings(one.base_url, "m", cache_dir=tmp_path), api_key="k1").judge(
            item()
        )
        JudgeClient(
            JudgeSettings(two.base_url, "m", cache_dir=tmp_path), api_key="k2", cache=cache
        ).judge(item())
        assert (one.calls, two.calls) == (1, 0)


def test_progress_is_reported_once_per_answer():
    from ragguard.judge.setup import progress_printer

    seen: list[tuple[int, int]] = []
    lines: list[str] = []
    printer = progress_printer(lines.append, clock=lambda: 0.0)
    with FakeOpenAI() as server:
        settings = JudgeSettings(server.base_url, "m", cache_dir=None, concurrency=3)

        def both(done: int, total: int) -> None:
            seen.append((done, total))
            printer(done, total)

        JudgeClient(settings, progress=both).judge_many([item(f"q{i}") for i in range(5)])
    assert sorted(seen) == [(i, 5) for i in range(1, 6)]
    assert lines == ["judge: 5/5 answers"]  # no time passed: the last line only


def test_judge_progress_is_throttled_by_time_not_by_count():
    from ragguard.judge.setup import progress_printer

    now = [0.0]
    lines: list[str] = []
    printer = progress_printer(lines.append, every=10.0, clock=lambda: now[0])
    for done, at in ((1, 2.0), (2, 9.9), (3, 10.0), (4, 12.0), (5, 20.5), (6, 21.0)):
        now[0] = at
        printer(done, 6)
    assert lines == ["judge: 3/6 answers", "judge: 5/6 answers", "judge: 6/6 answers"]
