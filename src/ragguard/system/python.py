"""The python adapter: ``python: package.module:function``, imported from the repository root.

The function is called with the question text, plus ``id`` and ``tags`` as keyword
arguments when its signature accepts them, and for a turn of a conversation ``history``
(the messages before it). It may be sync or async. It returns a mapping or
an object with ``retrieved`` (chunk ids in rank order, or objects with ``id``, ``text``,
``score``) and ``answer``. When it is instrumented with OpenTelemetry, the spans of each call
are captured (:mod:`ragguard.system.capture`): they give the steps, and whatever the
function did not return.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import re
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import Any

from ragguard.config.model import SystemConfig
from ragguard.core.errors import InputError
from ragguard.results.records import RunRecord
from ragguard.system.base import (
    Answer,
    SystemFailure,
    TransientFailure,
    answer_from_output,
    format_seconds,
    history_of,
)
from ragguard.system.capture import SpanCapture
from ragguard.system.received import with_trace
from ragguard.testset.model import Question

_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
OPTIONAL_ARGUMENTS = ("id", "tags", "history")


class PythonAdapter:
    """Calls a Python function in this process, one thread per question in flight."""

    def __init__(self, target: str, function: Callable[..., Any]) -> None:
        self.target = target
        self.function = function
        self.accepted = _accepted_keywords(function)
        self.is_async = inspect.iscoroutinefunction(function)
        self.capture = SpanCapture.start(f"spans of {target}")

    @property
    def notes(self) -> tuple[str, ...]:
        """What the capture of the system's spans skipped, one line each."""
        return self.capture.notes if self.capture is not None else ()

    @classmethod
    def from_config(cls, system: SystemConfig, root: Path) -> PythonAdapter:
        target = system.target
        if not isinstance(target, str) or not _TARGET.match(target.strip()):
            raise system.error(f"expected package.module:function, found {target!r}", key="python")
        try:
            function = load_callable(target.strip(), root)
        except (ImportError, AttributeError, TypeError) as exc:
            raise system.error(str(exc), key="python") from None
        return cls(target.strip(), function)

    def identity(self) -> dict[str, Any]:
        return {"kind": "python", "target": self.target}

    def check_questions(self, questions: Sequence[Question]) -> None:
        """A test set with conversations needs a function that takes the history."""
        turn = next((q for q in questions if q.conversation is not None), None)
        if turn is not None and "history" not in self.accepted:
            raise InputError(
                "system.python",
                f"the test set has conversations ({turn.conversation!r}) but {self.target} "
                "takes no 'history' argument; add one (history=None): the messages before "
                "the turn, [{'role': 'user' or 'assistant', 'content': ...}]",
            )

    def ask(self, question: Question, timeout: float) -> Answer:
        kwargs = self._keywords(question)
        result, record = _call_with_timeout(
            lambda: self._traced(question, kwargs, timeout), timeout
        )
        return self._answer(result, record)

    def ask_in_place(self, question: Question, timeout: float) -> Answer:
        """:meth:`ask` on the calling thread, without a thread hand-off: the caller keeps
        the time of a sync function (the runner does, see ragguard/deadlines.py); an async
        one is still cancelled at ``timeout``."""
        try:
            result, record = self._traced(question, self._keywords(question), timeout)
        except Exception as exc:
            raise _failure(exc, timeout) from None
        return self._answer(result, record)

    def _answer(self, result: Any, record: RunRecord | None) -> Answer:
        answer = answer_from_output(result, f"{self.target} returned")
        return with_trace(answer, record)

    def _traced(
        self, question: Question, kwargs: dict[str, Any], timeout: float
    ) -> tuple[Any, RunRecord | None]:
        """The function's result, and the record its spans give (None when not captured)."""
        if self.capture is None:
            return self._invoke(question.question, kwargs, timeout), None
        with self.capture.call(question) as captured:
            result = self._invoke(question.question, kwargs, timeout)
            captured.returned(result)
        return result, captured.record

    def _keywords(self, question: Question) -> dict[str, Any]:
        """The optional arguments the function accepts."""
        if not self.accepted:
            return {}
        values: dict[str, Any] = {"id": question.id, "tags": list(question.tags)}
        if question.conversation is not None:  # a turn: the messages before it
            values["history"] = history_of(question)
        return {name: values[name] for name in values if name in self.accepted}

    def _invoke(self, text: str, kwargs: dict[str, Any], timeout: float) -> Any:
        result = self.function(text, **kwargs)
        if inspect.isawaitable(result):
            return asyncio.run(_await_with_timeout(result, timeout))
        return result


class _Deadline(Exception):
    """Our own timeout, told apart from a TimeoutError raised by the user's code."""


async def _await_with_timeout(awaitable: Any, timeout: float) -> Any:
    task = asyncio.ensure_future(awaitable)
    done, _ = await asyncio.wait({task}, timeout=timeout)
    if not done:
        task.cancel()
        raise _Deadline
    return task.result()


def load_callable(target: str, root: Path) -> Callable[..., Any]:
    """Import ``module:attribute`` with ``root`` first on ``sys.path``."""
    module_name, _, attribute = target.partition(":")
    root_text = str(root)
    if root_text not in sys.path:
        sys.path.insert(0, root_text)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ImportError(f"cannot import {module_name!r} from {root}: {exc}") from None
    except Exception as exc:
        raise ImportError(
            f"importing {module_name!r} failed: {type(exc).__name__}: {exc}{_where(exc)}"
        ) from None
    value: Any = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise AttributeError(f"{module_name!r} has no attribute {attribute!r}")
        value = getattr(value, part)
    if not callable(value):
        raise TypeError(f"{target!r} is not callable")
    try:
        inspect.signature(value).bind("question", **dict.fromkeys(_accepted_keywords(value)))
    except TypeError:
        raise TypeError(f"{target!r} must accept the question text as its first argument") from None
    except ValueError:
        pass  # no signature available (a builtin); calling it will tell
    return value


def _accepted_keywords(function: Callable[..., Any]) -> set[str]:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return set()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return set(OPTIONAL_ARGUMENTS)
    keyword_kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {p.name for p in parameters if p.kind in keyword_kinds and p.name in OPTIONAL_ARGUMENTS}


class _CallThreads:
    """Daemon threads that run calls with a time limit, reused from call to call: for
    :meth:`PythonAdapter.ask`, whose caller cannot keep the time itself (the runner can,
    and calls :meth:`PythonAdapter.ask_in_place`).

    A Python function cannot be killed: a call that overruns keeps its thread until it
    returns (then the thread serves again), but the caller moves on and the question is
    recorded as timed out. Starting a thread per call cost about 0.7 ms a question
    (benchmarks/python_adapter.py); handing a call to a waiting thread costs microseconds.
    Daemon threads, so a call that never returns cannot keep the process alive.
    """

    def __init__(self) -> None:
        self._idle: list[SimpleQueue[tuple[Callable[[], Any], SimpleQueue[Any]]]] = []
        self._lock = threading.Lock()

    def call(self, function: Callable[[], Any], timeout: float) -> tuple[bool, Any]:
        """(True, value) or (False, exception) of ``function()``; Empty after ``timeout``."""
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            inbox = SimpleQueue()
            threading.Thread(
                target=self._serve, args=(inbox,), name="ragguard-python-call", daemon=True
            ).start()
        outbox: SimpleQueue[tuple[bool, Any]] = SimpleQueue()
        inbox.put((function, outbox))
        return outbox.get(timeout=timeout)

    def _serve(self, inbox: SimpleQueue[tuple[Callable[[], Any], SimpleQueue[Any]]]) -> None:
        while True:
            function, outbox = inbox.get()
            try:
                outbox.put((True, function()))
            except BaseException as exc:
                outbox.put((False, exc))
            with self._lock:
                self._idle.append(inbox)


_THREADS = _CallThreads()


def _call_with_timeout(call: Callable[[], Any], timeout: float) -> Any:
    """Run ``call`` on a call thread; give up waiting after ``timeout`` seconds."""
    try:
        succeeded, outcome = _THREADS.call(call, timeout)
    except Empty:
        raise SystemFailure(f"timed out after {format_seconds(timeout)}") from None
    if succeeded:
        return outcome
    raise _failure(outcome, timeout)


def _failure(exc: BaseException, timeout: float) -> SystemFailure:
    """How the function's exception is recorded: a connection error may be retried."""
    if isinstance(exc, _Deadline):
        return SystemFailure(f"timed out after {format_seconds(timeout)}")
    if isinstance(exc, SystemFailure):  # ragguard's own (the captured spans'), as it is
        return exc
    message = str(exc)
    described = f"{type(exc).__name__}{': ' + message if message else ''}{_where(exc)}"
    if isinstance(exc, ConnectionError):
        return TransientFailure(described)
    return SystemFailure(described)


def _where(exc: BaseException) -> str:
    """`` (file.py:12)`` for the innermost frame of the exception, to find the bug."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    frame = frames[-1]
    return f" ({Path(frame.filename).name}:{frame.lineno})"
