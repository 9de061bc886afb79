"""Conversations asked turn by turn through `ragguard run`, each turn with the messages before it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import assert_input_error

CHAT = """\
import json, pathlib, threading

HERE = pathlib.Path(__file__).parent
LOCK = threading.Lock()


def answer(question, id, history=None):
    with LOCK:
        with (HERE / "calls.jsonl").open("a") as log:
            log.write(json.dumps({"id": id, "history": history}) + "\\n")
    if (HERE / "fail").exists() and id == (HERE / "fail").read_text().strip():
        raise RuntimeError("the model is down")
    said = [m["content"] for m in history or [] if m["role"] == "user"]
    return {"retrieved": [id.replace("#", "-")], "answer": f"answer to {question} after {len(said)}"}
"""

TESTSET = """\
- id: chat-a
  turns:
    - {question: Hello, relevant: [chat-a-1]}
    - {question: Model X?, relevant: [chat-a-2]}
    - {question: Warranty?, relevant: [chat-a-3]}
- id: chat-b
  turns:
    - {question: Hi, relevant: [chat-b-1]}
    - {question: Refund?, relevant: [chat-b-2]}
- id: alone
  question: What is a plan?
  relevant: [alone]
"""


def _suite(folder: Path, module: str, function: str = "answer", extra: str = "") -> Path:
    (folder / f"{module}.py").write_text(CHAT + extra)
    (folder / "testset.yaml").write_text(TESTSET)
    config = folder / "ragguard.yml"
    config.write_text(
        f"suite: chats\ntestset: testset.yaml\nsystem:\n  python: {module}:{function}\n"
        "  concurrency: 3\n  retries: 0\n  max_error_rate: 1\nmetrics: [hit_rate@1]\n"
    )
    return config


def _calls(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "calls.jsonl").read_text().splitlines()]


def test_turns_are_asked_in_order_each_with_the_conversation_so_far(
    tmp_path, module_name, ragguard_cli
):
    config = _suite(tmp_path, module_name)
    result = ragguard_cli("run", "-c", config, "--out", tmp_path / "r.json")
    assert result.exit_code == 0, result.stderr
    calls = {call["id"]: call["history"] for call in _calls(tmp_path)}
    assert calls["alone"] is None  # a question alone gets no history
    assert calls["chat-a#1"] == []
    assert calls["chat-a#3"] == [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "answer to Hello after 0"},
        {"role": "user", "content": "Model X?"},
        {"role": "assistant", "content": "answer to Model X? after 1"},
    ]
    order = [call["id"] for call in _calls(tmp_path)]
    assert order.index("chat-a#1") < order.index("chat-a#2") < order.index("chat-a#3")
    results = json.loads((tmp_path / "r.json").read_text())
    turn = next(q for q in results["questions"] if q["id"] == "chat-a#2")
    assert turn["conversation"] == "chat-a" and turn["metrics"] == {"hit_rate@1": 1.0}


def test_after_a_failed_turn_the_rest_is_recorded_not_asked(tmp_path, module_name, ragguard_cli):
    config = _suite(tmp_path, module_name)
    (tmp_path / "fail").write_text("chat-a#2")
    result = ragguard_cli("run", "-c", config, "--out", tmp_path / "r.json")
    assert result.exit_code in (0, 1, 3), result.stderr
    asked = {call["id"] for call in _calls(tmp_path)}
    assert "chat-a#3" not in asked and "chat-b#2" in asked
    records = {
        r["id"]: r for r in map(json.loads, (tmp_path / "r.run.jsonl").read_text().splitlines())
    }
    assert "the model is down" in records["chat-a#2"]["error"]
    assert records["chat-a#3"]["error"] == "not run: turn 2 of the conversation failed"


def test_a_resumed_run_asks_an_unfinished_conversation_again_from_its_first_turn(
    tmp_path, module_name, ragguard_cli
):
    config = _suite(tmp_path, module_name)
    (tmp_path / "fail").write_text("chat-a#2")
    ragguard_cli("run", "-c", config, "--out", tmp_path / "r.json")
    (tmp_path / "fail").unlink()
    (tmp_path / "calls.jsonl").unlink()
    result = ragguard_cli("run", "-c", config, "--out", tmp_path / "r.json", "--resume")
    assert result.exit_code == 0, result.stderr
    assert sorted(call["id"] for call in _calls(tmp_path)) == ["chat-a#1", "chat-a#2", "chat-a#3"]
    records = [json.loads(line) for line in (tmp_path / "r.run.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records].count("chat-a#1") == 1
    assert all(r["error"] is None for r in records)


def test_a_function_without_history_is_refused_before_any_question(
    tmp_path, module_name, ragguard_cli
):
    extra = "\n\ndef no_history(question, id):\n    return answer(question, id)\n"
    config = _suite(tmp_path, module_name, "no_history", extra)
    result = ragguard_cli("run", "-c", config, "--out", tmp_path / "r.json")
    assert_input_error(result.exit_code, result.stderr, "system.python", "history")
    assert not (tmp_path / "calls.jsonl").exists()


CHAT_TESTSET = """\
- id: chat
  turns:
    - {question: Hello, relevant: [authentication]}
    - {question: And the rate limit?, relevant: [rate-limits]}
"""


def test_the_http_adapter_sends_a_turns_history_in_its_default_body(
    rag_server, make_config, run_suite, suite_dir
):
    (suite_dir / "testset.yaml").write_text(CHAT_TESTSET)
    config = make_config(
        f"http: {rag_server.url}/ask\nresponse: {{retrieved: data.results, id: doc_id}}"
    )
    outcome = run_suite(config)
    assert outcome.errors == 0
    bodies = {seen["body"]["id"]: seen["body"] for seen in rag_server.seen}
    assert bodies["chat#1"]["history"] == []
    assert bodies["chat#2"]["history"] == [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "answer to chat#1: Hello"},
    ]


def test_a_per_question_command_gets_the_history_as_json_text(make_config, run_suite, suite_dir):
    (suite_dir / "testset.yaml").write_text(CHAT_TESTSET)
    script = suite_dir / "chat.py"
    script.write_text(
        "import json, sys\n"
        "history = json.loads(sys.argv[2])\n"
        "print(json.dumps({'retrieved': ['x'], 'answer': f'{sys.argv[1]} after {len(history)}'}))\n"
    )
    config = make_config(
        f"command: [{json.dumps(__import__('sys').executable)}, chat.py, '{{question}}', '{{history}}']"
    )
    outcome = run_suite(config)
    assert outcome.errors == 0, outcome.records
    assert outcome.records["chat#1"].answer == "Hello after 0"
    assert outcome.records["chat#2"].answer == "And the rate limit? after 2"


STUCK = """\
import threading

RELEASE = threading.Event()


def answer(question, id, history=None):
    if id == "chat-a#1":
        RELEASE.wait()  # runs past the deadline until the test lets it go
    return {"retrieved": [id.replace("#", "-")], "answer": "ok"}
"""


def test_a_turn_past_its_deadline_records_the_rest_of_its_conversation_and_the_run_ends(
    tmp_path, module_name, ragguard_cli
):
    """The stuck call keeps its worker: the turns after it are recorded by the collecting
    thread, so the run ends without waiting for the call, which never returns by itself
    (before, the run waited for it: forever here, until pytest-timeout)."""
    import sys

    (tmp_path / f"{module_name}.py").write_text(STUCK)
    (tmp_path / "testset.yaml").write_text(TESTSET)
    config = tmp_path / "ragguard.yml"
    config.write_text(
        f"suite: chats\ntestset: testset.yaml\nsystem:\n  python: {module_name}:answer\n"
        "  concurrency: 2\n  timeout: 0.5s\n  retries: 0\n  max_error_rate: 1\n"
        "metrics: [hit_rate@1]\n"
    )
    try:
        result = ragguard_cli("run", "-c", config, "--out", tmp_path / "r.json")
    finally:
        loaded = sys.modules.pop(module_name, None)
        if loaded is not None:
            loaded.RELEASE.set()
    assert result.exit_code in (0, 1, 3), result.stderr
    records = {
        r["id"]: r for r in map(json.loads, (tmp_path / "r.run.jsonl").read_text().splitlines())
    }
    assert "timed out" in records["chat-a#1"]["error"]
    assert records["chat-a#2"]["error"] == "not run: turn 1 of the conversation timed out"
    assert records["chat-a#3"]["error"] == "not run: turn 1 of the conversation timed out"
    assert records["chat-b#2"]["error"] is None and records["alone"]["error"] is None
