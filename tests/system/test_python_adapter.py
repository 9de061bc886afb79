"""The python adapter against real modules written to a temporary repository."""

from __future__ import annotations

import textwrap
import threading
from pathlib import Path

import pytest

from ragguard.core.errors import InputError
from ragguard.system import build_adapter
from ragguard.system.base import SystemFailure
from ragguard.system.python import PythonAdapter
from ragguard.testset.model import Question


def write_module(folder: Path, name: str, source: str) -> None:
    package = folder / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rag.py").write_text(textwrap.dedent(source), encoding="utf-8")


def test_sync_function_gets_the_question_id_and_tags(
    suite_dir: Path, module_name: str, make_config, run_suite
) -> None:
    write_module(
        suite_dir,
        module_name,
        """
        def answer(question, id, tags=()):
            return {
                "retrieved": ["authentication", {"id": "rate-limits", "text": "100/min", "score": 0.5}],
                "answer": f"{id}|{','.join(tags)}|{question}",
            }
        """,
    )
    config = make_config(f"python: {module_name}.rag:answer")
    outcome = run_suite(config)
    record = outcome.records["rate"]
    assert record.error is None
    assert record.answer == "rate|rate-limits,limits|How many requests per minute are allowed?"
    assert record.retrieved_ids == ["authentication", "rate-limits"]
    assert record.retrieved[1].text == "100/min"
    assert record.retrieved[1].score == 0.5
    assert record.latency_ms is not None and record.latency_ms >= 0
    assert build_adapter(config).identity() == {
        "kind": "python",
        "target": f"{module_name}.rag:answer",
    }


def test_async_function_and_objects_with_attributes(
    suite_dir: Path, module_name: str, make_config, run_suite
) -> None:
    write_module(
        suite_dir,
        module_name,
        """
        import asyncio
        from dataclasses import dataclass

        @dataclass
        class Node:
            id: str
            text: str
            score: float

        @dataclass
        class Response:
            retrieved: list
            answer: str

        async def answer(question, **kwargs):
            await asyncio.sleep(0)
            return Response([Node("pagination", "Use the cursor.", 0.9)], kwargs["id"])
        """,
    )
    outcome = run_suite(make_config(f"python: {module_name}.rag:answer\nconcurrency: 3"))
    assert {qid: r.answer for qid, r in outcome.records.items()} == {
        "auth": "auth",
        "rate": "rate",
        "page": "page",
    }
    assert outcome.records["page"].retrieved[0].text == "Use the cursor."


def test_question_only_function(suite_dir: Path, module_name: str, make_config, run_suite) -> None:
    write_module(
        suite_dir,
        module_name,
        """
        def answer(text):
            return {"retrieved": [], "answer": text.upper()}
        """,
    )
    outcome = run_suite(make_config(f"python: {module_name}.rag:answer"))
    assert outcome.records["auth"].answer == "HOW DO I AUTHENTICATE TO THE ORDERS API?"


def test_every_failure_is_a_per_question_error_with_its_message(
    suite_dir: Path, module_name: str, make_config, run_suite
) -> None:
    write_module(
        suite_dir,
        module_name,
        """
        def answer(question, id):
            if id == "auth":
                raise ValueError("index not loaded")
            if id == "rate":
                return "just a string"
            return {"retrieved": ["a", "a"], "answer": "dup"}
        """,
    )
    outcome = run_suite(make_config(f"python: {module_name}.rag:answer\nmax_error_rate: 0.5"))
    errors = {qid: record.error for qid, record in outcome.records.items()}
    assert errors["auth"] == "ValueError: index not loaded (rag.py:4)"
    assert errors["rate"].startswith(f"{module_name}.rag:answer returned is a string; expected")
    assert "'retrieved'" in errors["page"] and "appears twice" in errors["page"]
    assert outcome.verdict == "error"


@pytest.mark.parametrize(
    ("returned", "fragment"),
    [
        ('{"retrieved": "a,b"}', "'retrieved' is a string; expected a list"),
        ('{"retrieved": [], "answer": 3}', "'answer' expected a string or null"),
        ('{"chunks": []}', "unknown key 'chunks'"),
        ('{"retrieved": [{"text": "no id"}]}', "needs a string 'id'"),
        ('{"retrieved": [{"id": "a", "score": float("nan")}]}', "finite number"),
    ],
)
def test_malformed_results_name_what_is_wrong(
    suite_dir: Path, module_name: str, make_config, run_suite, returned: str, fragment: str
) -> None:
    write_module(suite_dir, module_name, f"def answer(q):\n    return {returned}\n")
    outcome = run_suite(make_config(f"python: {module_name}.rag:answer"))
    assert fragment in (outcome.records["auth"].error or "")


def test_slow_sync_and_async_calls_time_out(
    suite_dir: Path, module_name: str, make_config, run_suite
) -> None:
    write_module(
        suite_dir,
        module_name,
        """
        import asyncio, threading
        release = threading.Event()

        def slow(question):
            release.wait(10)
            return {"retrieved": []}

        async def slow_async(question):
            await asyncio.sleep(10)
        """,
    )
    for function in ("slow", "slow_async"):
        outcome = run_suite(make_config(f"python: {module_name}.rag:{function}\ntimeout: 200ms"))
        assert [r.error for r in outcome.records.values()] == ["timed out after 0.2s"] * 3
    __import__(f"{module_name}.rag", fromlist=["release"]).release.set()


def test_connection_errors_are_retried(
    suite_dir: Path, module_name: str, make_config, run_suite
) -> None:
    write_module(
        suite_dir,
        module_name,
        """
        calls = []

        def answer(question, id):
            calls.append(id)
            if calls.count(id) < 3:
                raise ConnectionError("vector store unreachable")
            return {"retrieved": ["x"]}
        """,
    )
    outcome = run_suite(make_config(f"python: {module_name}.rag:answer\nretries: 2"))
    assert outcome.errors == 0
    assert outcome.records["auth"].meta == {"attempts": 3}


@pytest.mark.parametrize(
    ("target", "source", "fragment"),
    [
        ("{m}.nope:answer", "", "cannot import '{m}.nope'"),
        ("{m}.rag:missing", "def answer(q): pass\n", "has no attribute 'missing'"),
        ("{m}.rag:VALUE", "VALUE = 3\n", "is not callable"),
        ("{m}.rag:answer", "def answer(): pass\n", "must accept the question text"),
        ("{m}.rag:answer", "raise RuntimeError('no API key')\n", "RuntimeError: no API key"),
        ("not a target", "", "expected package.module:function"),
    ],
)
def test_import_problems_are_config_errors(
    suite_dir: Path, module_name: str, make_config, target: str, source: str, fragment: str
) -> None:
    write_module(suite_dir, module_name, source)
    config = make_config(f"python: {target.format(m=module_name)}")
    with pytest.raises(InputError) as caught:
        PythonAdapter.from_config(config.system, config.root)
    error = caught.value
    assert fragment.format(m=module_name) in error.message
    assert error.key == "system.python"
    assert error.line == 4


def test_a_timeout_inside_the_function_is_not_mistaken_for_ours(
    suite_dir: Path, module_name: str, make_config, run_suite
) -> None:
    write_module(
        suite_dir,
        module_name,
        """
        async def answer(question):
            raise TimeoutError("vector store did not answer in 5s")
        """,
    )
    outcome = run_suite(make_config(f"python: {module_name}.rag:answer\ntimeout: 10s"))
    assert outcome.records["auth"].error == (
        "TimeoutError: vector store did not answer in 5s (rag.py:3)"
    )


def _call_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "ragguard-python-call"]


def test_calls_reuse_threads_and_an_overrun_does_not_block_the_next_call() -> None:
    """A call runs on a waiting thread (no thread started per question); a call that
    overran keeps its thread busy, so the next call gets another, and the overrunning
    thread serves again once its call returns."""
    release = threading.Event()

    def system(question: str) -> dict[str, object]:
        if question == "slow":
            release.wait(10)
        return {"retrieved": ["c1"], "answer": question}

    adapter = PythonAdapter("bench:system", system)
    ask = lambda text: adapter.ask(Question(id="q", question=text), timeout=5.0)  # noqa: E731
    ask("warm")
    before = len(_call_threads())
    for number in range(50):
        assert ask(f"q{number}").answer == f"q{number}"
    assert len(_call_threads()) == before
    with pytest.raises(SystemFailure, match=r"timed out after 0\.05s"):
        adapter.ask(Question(id="q", question="slow"), timeout=0.05)
    assert ask("after").answer == "after"  # served by another thread meanwhile
    busy = len(_call_threads())
    release.set()
    for number in range(20):
        assert ask(f"again{number}").answer == f"again{number}"
    assert len(_call_threads()) == busy
