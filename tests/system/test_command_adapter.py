"""The command adapter against real subprocesses (Python scripts run by this interpreter)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from ragguard.core.errors import InputError
from ragguard.system import build_adapter
from ragguard.system.command import CommandBatchAdapter, CommandPerQuestionAdapter

PYTHON = json.dumps(sys.executable)

BATCH_SCRIPT = """\
import json, sys
questions = [json.loads(line) for line in sys.stdin]
print(f"loaded {len(questions)} questions", file=sys.stderr)
for q in reversed(questions):  # any order is fine
    print(json.dumps({"id": q["id"], "retrieved": ["authentication", {"id": "x", "score": 1}],
                      "answer": q["question"] + "|" + ",".join(q["tags"])}), flush=True)
"""


def script(folder: Path, name: str, source: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return name


def test_batch_mode_sends_jsonl_and_reads_records_in_any_order(
    suite_dir: Path, make_config, run_suite
) -> None:
    name = script(suite_dir, "batch.py", BATCH_SCRIPT)
    config = make_config(f"command: [{PYTHON}, {name}]")
    log: list[str] = []
    outcome = run_suite(config, log=log.append)
    assert outcome.errors == 0
    assert list(outcome.records) == ["auth", "rate", "page"]
    assert outcome.records["rate"].answer == (
        "How many requests per minute are allowed?|rate-limits,limits"
    )
    assert outcome.records["rate"].retrieved_ids == ["authentication", "x"]
    assert log == ["loaded 3 questions"]
    adapter = build_adapter(config)
    assert isinstance(adapter, CommandBatchAdapter)
    assert adapter.identity() == {
        "kind": "command",
        "target": f"{sys.executable} batch.py",
        "mode": "batch",
    }


def test_batch_bad_lines_and_missing_answers_are_per_question_errors(
    suite_dir: Path, make_config, run_suite
) -> None:
    name = script(
        suite_dir,
        "bad.py",
        """\
        import json, sys
        for line in sys.stdin:
            q = json.loads(line)
            if q["id"] == "auth":
                print(json.dumps({"id": "auth", "retrieved": "not-a-list"}))
            elif q["id"] == "rate":
                print("{oops")
        print(json.dumps({"id": "stranger", "retrieved": []}))
        """,
    )
    log: list[str] = []
    outcome = run_suite(make_config(f"command: '{sys.executable} {name}'"), log=log.append)
    errors = {qid: record.error for qid, record in outcome.records.items()}
    assert errors["auth"] == (
        "bad output line 1: command output:1: retrieved: expected a list in rank order, "
        "found a string"
    )
    assert errors["rate"] == errors["page"]
    assert errors["page"].startswith(
        "command's output has no line for this question (line 2 is not valid JSON ("
    )
    assert "line 3: unexpected or repeated id 'stranger'" in errors["page"]
    assert any("line 2 is not valid JSON" in line for line in log)


def test_batch_line_with_a_lone_surrogate_is_a_malformed_line(
    suite_dir: Path, make_config, run_suite
) -> None:
    """docs/formats.md, "Decisions the formats leave open": refused like a line that is not
    JSON; the questions it did not answer fail, a valid pair is one character."""
    name = script(
        suite_dir,
        "surrogate.py",
        r"""
        import json, sys
        for line in sys.stdin:
            q = json.loads(line)
            answer = r"\ud800" if q["id"] == "auth" else r"\ud83d\ude00"
            print('{"id": "%s", "retrieved": [], "answer": "%s"}' % (q["id"], answer))
        """,
    )
    outcome = run_suite(make_config(f"command: [{PYTHON}, {name}]\nmax_error_rate: 1"))
    assert outcome.records["auth"].error == (
        "command's output has no line for this question (line 1 is not valid JSON (lone "
        "surrogate \\ud800 in a string (column 44); write the character itself or a valid "
        "surrogate pair))"
    )
    assert outcome.records["rate"].answer == "\U0001f600"


def test_batch_crash_fails_the_unanswered_questions_with_the_exit_status_and_stderr(
    suite_dir: Path, make_config, run_suite
) -> None:
    name = script(
        suite_dir,
        "crash.py",
        """\
        import json, sys
        first = json.loads(sys.stdin.readline())
        print(json.dumps({"id": first["id"], "retrieved": ["a"]}), flush=True)
        raise ValueError("index file missing")
        """,
    )
    log: list[str] = []
    outcome = run_suite(make_config(f"command: [{PYTHON}, {name}]"), log=log.append)
    assert outcome.records["auth"].error is None
    assert outcome.records["rate"].error == (
        "command exited with status 1: ValueError: index file missing"
    )
    assert outcome.records["page"].error == outcome.records["rate"].error
    assert any(line.startswith("Traceback") for line in log)


def test_batch_hang_is_stopped_after_the_timeout(suite_dir: Path, make_config, run_suite) -> None:
    name = script(
        suite_dir,
        "hang.py",
        """\
        import json, sys, time
        first = json.loads(sys.stdin.readline())
        print(json.dumps({"id": first["id"], "retrieved": ["a"]}), flush=True)
        time.sleep(30)
        """,
    )
    outcome = run_suite(make_config(f"command: [{PYTHON}, {name}]\ntimeout: 1s"))
    assert outcome.records["auth"].error is None
    assert outcome.records["rate"].error == (
        "command produced no answer for 1s (timeout); stopped it"
    )


def test_a_program_that_does_not_exist(make_config, run_suite) -> None:
    outcome = run_suite(make_config("command: [./no-such-program, --batch]"))
    assert all(
        record.error.startswith("cannot start './no-such-program'")
        for record in outcome.records.values()
    )
    outcome = run_suite(make_config("command: ['./no-such-program', '{question}']"))
    assert outcome.records["auth"].error.startswith("cannot start './no-such-program'")


PER_QUESTION_SCRIPT = """\
import json, os, sys, time
question, qid = sys.argv[1], sys.argv[3]
print(f"asked {qid}", file=sys.stderr)
if qid == "rate":
    print("quota exceeded for model", file=sys.stderr)
    sys.exit(4)
if qid == "page" and os.environ.get("PAGE_MODE") == "garbage":
    print("not json")
    sys.exit(0)
print(json.dumps({"id": qid, "retrieved": ["pagination"], "answer": question,
                  "meta": {"team": os.environ.get("TEAM")}}))
"""


def test_per_question_argv_template(suite_dir: Path, make_config, run_suite) -> None:
    name = script(suite_dir, "one.py", PER_QUESTION_SCRIPT)
    config = make_config(
        f"command: [{PYTHON}, {name}, '{{question}}', --id, '{{id}}']\nenv: {{TEAM: docs}}"
    )
    log: list[str] = []
    outcome = run_suite(config, log=log.append)
    assert isinstance(build_adapter(config), CommandPerQuestionAdapter)
    assert outcome.records["auth"].answer == "How do I authenticate to the Orders API?"
    assert outcome.records["auth"].meta == {"team": "docs"}
    assert outcome.records["rate"].error == (
        "command exited with status 4: quota exceeded for model"
    )
    assert "[auth] asked auth" in log
    assert "[rate] quota exceeded for model" in log


def test_per_question_string_command_is_split_without_a_shell(
    suite_dir: Path, make_config, run_suite
) -> None:
    name = script(
        suite_dir,
        "echo.py",
        """\
        import json, sys
        print(json.dumps({"retrieved": [], "answer": sys.argv[1]}))
        """,
    )
    (suite_dir / "testset.yaml").write_text(
        '- id: tricky\n  question: "What\'s $HOME; rm -rf / `x` ?"\n  relevant: [a]\n'
    )
    outcome = run_suite(make_config(f"command: '{sys.executable} {name} {{question}}'"))
    assert outcome.records["tricky"].answer == "What's $HOME; rm -rf / `x` ?"


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("print('')", "printed nothing on stdout"),
        ("print('{bad')", "command output is not valid JSON"),
        ("import json; print(json.dumps({'id': 'other', 'retrieved': []}))", "answered for id"),
        ("print('[1, 2]')", "command output is a list"),
        (
            'print(r\'{"retrieved": [], "answer": "\\ud800"}\')',
            "command output is not valid JSON (lone surrogate \\ud800 in a string (column 30)",
        ),
        ("import time; time.sleep(10)", "command timed out after 0.3s"),
        ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "was killed by signal 9"),
    ],
)
def test_per_question_failures(
    suite_dir: Path, make_config, run_suite, source: str, fragment: str
) -> None:
    name = script(suite_dir, "fail.py", source)
    timeout = "300ms" if "timed out" in fragment else "10s"  # python's start-up takes time
    outcome = run_suite(make_config(f"command: [{PYTHON}, {name}, '{{id}}']\ntimeout: {timeout}"))
    assert fragment in (outcome.records["auth"].error or ""), outcome.records["auth"].error


@pytest.mark.parametrize(
    ("system", "key", "fragment"),
    [
        ("command: []", "system.command", "expected a command line"),
        ("command: ''", "system.command", "expected a command line"),
        ('command: "a \'b"', "system.command", "cannot split"),
        ("command: [a, '{question}']\nmode: batch", "system.mode", "batch mode sends"),
        ("command: [a]\nmode: sometimes", "system.mode", "batch, per-question"),
        ("command: [a]\nenv: [A]", "system.env", "mapping of variable names"),
    ],
)
def test_bad_command_settings_are_config_errors(
    make_config, system: str, key: str, fragment: str
) -> None:
    config = make_config(system)
    with pytest.raises(InputError) as caught:
        build_adapter(config)
    assert caught.value.key == key
    assert fragment in caught.value.message
