"""The http adapter against a real HTTP server on loopback, started and stopped by the test."""

from __future__ import annotations

import socket
import threading
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from ragguard.config.model import RunSettings
from ragguard.core.errors import InputError
from ragguard.system import build_adapter
from ragguard.system.http import HttpAdapter, ResponseMapping, lookup, retry_after_seconds
from ragguard.system.pool import run_questions
from ragguard.testset.load import load_testset

MAPPED = """\
http: {url}/ask
headers: {{Authorization: "Bearer ${{RAG_TOKEN}}", X-Team: docs}}
body: {{query: "{{question}}", qid: "{{id}}", id: "{{id}}", labels: "{{tags}}", k: 5}}
response:
  retrieved: data.results
  id: doc_id
  text: content
  answer: /answer
"""


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> str:
    secret = "s3cret-token-value"
    monkeypatch.setenv("RAG_TOKEN", secret)
    return secret


def test_post_with_body_template_secret_header_and_response_mapping(
    rag_server, make_config, run_suite, token: str
) -> None:
    config = make_config(MAPPED.format(url=rag_server.url))
    outcome = run_suite(config)
    assert outcome.errors == 0
    record = outcome.records["rate"]
    assert record.retrieved_ids == ["authentication", "rate-limits"]
    assert record.retrieved[0].text == "Use a bearer token."
    assert record.retrieved[0].score == 0.9
    assert record.retrieved[1].score is None
    assert record.answer == "answer to rate: How many requests per minute are allowed?"
    sent = next(r for r in rag_server.seen if r["body"]["qid"] == "rate")
    assert sent["method"] == "POST"
    assert sent["path"] == "/ask"
    assert sent["body"] == {
        "query": "How many requests per minute are allowed?",
        "qid": "rate",
        "id": "rate",
        "labels": ["rate-limits", "limits"],
        "k": 5,
    }
    assert sent["headers"]["Authorization"] == f"Bearer {token}"
    assert sent["headers"]["X-Team"] == "docs"
    identity = build_adapter(config).identity()
    assert identity == {"kind": "http", "target": f"{rag_server.url}/ask", "method": "POST"}
    assert token not in repr(identity)


KEYED = """\
http: {url}/ask
headers: {{X-Api-Key: "${{RAG_TOKEN}}", X-Team: docs}}
body: {{query: "{{question}}", id: "{{id}}"}}
response: {{retrieved: data.results, id: doc_id, answer: answer}}
"""


@pytest.mark.parametrize("same_origin", [True, False], ids=["same-origin", "other-port"])
def test_a_redirect_keeps_header_secrets_on_the_configured_origin(
    rag_server, other_rag_server, make_config, run_suite, token: str, same_origin: bool
) -> None:
    """requests itself forwards every header but Authorization to another port or host."""
    target = rag_server if same_origin else other_rag_server
    rag_server.script["rate"] = [f"redirect {target.url}/moved", "ok"]
    outcome = run_suite(make_config(KEYED.format(url=rag_server.url)))
    assert outcome.errors == 0
    followed = next(r for r in target.seen if r["path"] == "/moved/ask")
    assert followed["headers"]["X-Team"] == "docs"
    assert followed["headers"].get("X-Api-Key") == (token if same_origin else None)


def test_get_with_query_parameters_and_url_placeholder(rag_server, make_config, run_suite) -> None:
    config = make_config(
        f"""\
        http: "{rag_server.url}/questions/{{id}}"
        method: get
        params: {{query: "{{question}}", id: "{{id}}"}}
        response: {{retrieved: /data/results, id: doc_id, answer: null}}
        """
    )
    outcome = run_suite(config)
    assert outcome.errors == 0
    assert outcome.records["page"].answer is None
    paths = sorted(request["path"] for request in rag_server.seen)
    assert paths[0].startswith("/questions/auth?")
    assert "query=How+do+I+authenticate+to+the+Orders+API%3F" in paths[0]
    assert {request["method"] for request in rag_server.seen} == {"GET"}


def test_every_failure_lands_as_a_per_question_error_with_its_message(
    rag_server, make_config, run_suite, token: str
) -> None:
    rag_server.script = {
        "auth": ["500"],
        "rate": ["malformed"],
        "page": ["wrong-shape"],
    }
    config = make_config(MAPPED.format(url=rag_server.url) + "retries: 2\n")
    outcome = run_suite(config)
    errors = {qid: record.error for qid, record in outcome.records.items()}
    assert errors["auth"] == (
        "HTTP 500 Internal Server Error: internal oops; auth=Bearer *** (after 3 attempts)"
    )
    assert errors["rate"].startswith("response is not valid JSON (")
    assert errors["rate"].endswith('): {"contexts": [')
    assert errors["page"] == "response: 'data.results' is a string; expected a list of chunks"
    assert token not in "".join(errors.values())
    assert sum(1 for r in rag_server.seen if r["body"]["id"] == "auth") == 3
    assert outcome.verdict == "error"


def test_429_is_retried_after_the_seconds_the_server_asks(rag_server, make_config) -> None:
    rag_server.script = {"auth": ["429:3", "429:1", "ok"]}
    config = make_config(
        f"http: {rag_server.url}/ask\nresponse: {{retrieved: data.results, id: doc_id}}"
    )
    testset = load_testset(config.testset)
    delays: list[float] = []
    outcome = run_questions(
        build_adapter(config), testset.questions[:1], RunSettings(retries=3), sleep=delays.append
    )
    assert outcome.records["auth"].error is None
    assert outcome.records["auth"].meta == {"attempts": 3}
    assert delays == [3.0, 1.0]


def test_429_that_never_ends_is_reported(rag_server, make_config, run_suite) -> None:
    rag_server.script = {"auth": ["429:0"]}
    outcome = run_suite(make_config(f"http: {rag_server.url}/ask\nretries: 1"))
    assert (
        outcome.records["auth"].error
        == "HTTP 429 Too Many Requests (rate limited) (after 2 attempts)"
    )


def test_client_errors_are_not_retried(rag_server, make_config, run_suite) -> None:
    rag_server.script = {"auth": ["400"]}
    outcome = run_suite(make_config(f"http: {rag_server.url}/ask\nretries: 3"))
    assert outcome.records["auth"].error == (
        'HTTP 400 Bad Request: {"detail": "field query is required"}'
    )
    assert sum(1 for r in rag_server.seen if r["body"]["id"] == "auth") == 1


def test_slow_responses_time_out(rag_server, make_config, run_suite) -> None:
    rag_server.script = {"auth": ["slow"], "rate": ["slow"]}
    outcome = run_suite(
        make_config(
            f"http: {rag_server.url}/ask\ntimeout: 500ms\nresponse: {{retrieved: data.results, id: doc_id}}"
        )
    )
    assert outcome.records["auth"].error == "timed out after 0.5s"
    assert outcome.records["rate"].error == "timed out after 0.5s"
    assert outcome.records["page"].error is None


def test_dropped_connections_and_refused_ports_are_connection_errors(
    rag_server, make_config, run_suite
) -> None:
    rag_server.script = {"auth": ["close", "ok"], "rate": ["close"]}
    outcome = run_suite(
        make_config(
            f"http: {rag_server.url}/ask\nretries: 1\nresponse: {{retrieved: data.results, id: doc_id}}"
        )
    )
    assert outcome.records["auth"].error is None
    assert outcome.records["rate"].error.startswith("connection failed: ")
    assert outcome.records["rate"].error.endswith("(after 2 attempts)")

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free_port = probe.getsockname()[1]
    outcome = run_suite(make_config(f"http: http://127.0.0.1:{free_port}/ask\nretries: 0"))
    assert all(r.error.startswith("connection failed: ") for r in outcome.records.values())


def test_questions_are_in_flight_at_once_against_the_server(
    rag_server, make_config, run_suite
) -> None:
    rag_server.barrier = threading.Barrier(3, timeout=10)
    rag_server.script = {qid: ["barrier"] for qid in ("auth", "rate", "page")}
    outcome = run_suite(
        make_config(
            f"http: {rag_server.url}/ask\nconcurrency: 3\nresponse: {{retrieved: data.results, id: doc_id}}"
        )
    )
    assert [r.error for r in outcome.records.values()] == [None, None, None]
    assert not rag_server.barrier.broken


def test_missing_answer_when_mapped_is_an_error(rag_server, make_config, run_suite) -> None:
    outcome = run_suite(
        make_config(
            f"http: {rag_server.url}/ask\nresponse: {{retrieved: data.results, id: doc_id, answer: /reply}}"
        )
    )
    assert outcome.records["auth"].error == "response has no value at '/reply'"


@pytest.mark.parametrize(
    ("system", "key", "fragment"),
    [
        ("http: ftp://x/ask", "system.http", "http:// or https://"),
        ("http: http://x/ask\nmethod: PUT", "system.method", "POST or GET"),
        ("http: http://x/ask\nmethod: GET\nbody: {q: 1}", "system.body", "use params"),
        ("http: http://x/ask\nheaders: [a]", "system.headers", "expected a mapping"),
        (
            "http: http://x/ask\nheaders: {Authorization: 'Bearer ${NOT_SET_ANYWHERE}'}",
            "system.headers",
            "NOT_SET_ANYWHERE, which is not set",
        ),
        ("http: http://x/ask\nresponse: {answers: /a}", "system.response", "unknown key 'answers'"),
        ("http: http://x/ask\nresponse: {retrieved: 3}", "system.response", "JSON pointer"),
        ("http: http://x/ask\nparams: [1]", "system.params", "expected a mapping"),
    ],
)
def test_bad_http_settings_are_config_errors(
    make_config, system: str, key: str, fragment: str
) -> None:
    config = make_config(system)
    with pytest.raises(InputError) as caught:
        HttpAdapter.from_config(config.system, config.root)
    assert caught.value.key == key
    assert fragment in caught.value.message
    assert caught.value.line is not None


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/a/0/b", 1),
        ("a.0.b", 1),
        ("/c~1d", 2),
        ("/e~0f", 3),
        ("", {"a": [{"b": 1}], "c/d": 2, "e~f": 3}),
    ],
)
def test_lookup_by_json_pointer_or_dotted_path(path: str, expected: object) -> None:
    document = {"a": [{"b": 1}], "c/d": 2, "e~f": 3}
    assert lookup(document, path) == expected


def test_response_mapping_accepts_plain_ids() -> None:
    mapping = ResponseMapping(retrieved="hits")
    assert mapping.extract({"hits": ["a", "b"], "answer": "x"}) == {
        "retrieved": ["a", "b"],
        "answer": "x",
    }


def test_retry_after_seconds_or_http_date() -> None:
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    later = format_datetime(now + timedelta(seconds=42), usegmt=True)
    assert retry_after_seconds({"Retry-After": "17"}) == 17.0
    assert retry_after_seconds({"Retry-After": later}, now=now.timestamp()) == 42.0
    earlier = format_datetime(now - timedelta(seconds=5), usegmt=True)
    assert retry_after_seconds({"Retry-After": earlier}, now=now.timestamp()) == 0.0
    assert retry_after_seconds({"Retry-After": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_usage_is_read_from_the_response_path_and_a_bad_one_fails_its_question(
    rag_server, make_config, run_suite, token: str
) -> None:
    rag_server.script = {
        "rate": ['usage {"prompt_tokens": 700, "completion_tokens": 100, "cost": 0.002}'],
        "auth": ['usage {"cost": "free"}'],
    }
    config = make_config(MAPPED.format(url=rag_server.url) + "  usage: meta.usage\n")

    outcome = run_suite(config)

    rate = outcome.records["rate"]
    assert (rate.usage.tokens, rate.usage.cost) == (800, 0.002)
    assert rate.to_dict()["usage"] == {
        "prompt_tokens": 700,
        "completion_tokens": 100,
        "cost": 0.002,
    }
    auth = outcome.records["auth"]
    assert auth.error is not None and "'usage.cost' expected a non-negative number" in auth.error


def test_a_lone_surrogate_escape_in_a_reply_fails_that_question(
    rag_server, make_config, run_suite, token: str
) -> None:
    """docs/formats.md, "Decisions the formats leave open": the reply is refused where it is
    parsed, like malformed JSON; a valid surrogate pair is one character. The reply is read
    as a command's is: a repeated key fails the question too."""
    reply = '{"data": {"results": []}, "answer": "%s"}'
    rag_server.script = {
        "auth": ["raw " + reply % "half \\ud800 a pair"],
        "rate": ["raw " + reply % "\\ud83d\\ude00"],
        "page": ['raw {"data": {"results": []}, "answer": "a", "answer": "b"}'],
    }
    outcome = run_suite(make_config(MAPPED.format(url=rag_server.url) + "max_error_rate: 1\n"))
    assert outcome.records["auth"].error == (
        "response is not valid JSON (lone surrogate \\ud800 in a string (column 43); write the "
        'character itself or a valid surrogate pair): {"data": {"results": []}, "answer": "half '
        '\\ud800 a pair"}'
    )
    assert outcome.records["rate"].error is None
    assert outcome.records["rate"].answer == "\U0001f600"
    assert outcome.records["page"].error.startswith(  # parsed as strictly as every reply
        "response is not valid JSON (duplicate key 'answer' in one object; keep one)"
    )
