"""The command adapter: a program in any language.

Batch mode (the default): one process receives every question as JSON Lines on stdin
(``{"id": ..., "question": ..., "tags": [...]}``) and writes one run record per line on
stdout (``{"id": ..., "retrieved": [...], "answer": ...}``), in any order.

Per-question mode (when an argument contains ``{question}`` or ``{id}``, or ``mode:
per-question``): one process per question, its argv filled from the template (no shell is
involved, so quoting is safe); it prints one JSON object with ``retrieved`` and ``answer``.
A turn of a conversation fills ``{history}`` with the JSON text of the messages before it;
in batch mode its line names its ``conversation`` and ``turn``.

The program's stderr goes to the log. A crash, a non-zero exit, a missing or malformed line
is an error for the question concerned, with the message.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from queue import Empty, Queue
from typing import IO, Any

from ragguard.config.model import SystemConfig
from ragguard.core import interrupts
from ragguard.core.errors import InputError, Where
from ragguard.core.sources import parse_json_value, split_lines, type_name
from ragguard.results.records import RunRecord, record_from_mapping
from ragguard.system.base import (
    Answer,
    SystemFailure,
    answer_from_output,
    error_record,
    fill_text,
    format_seconds,
    placeholders,
)
from ragguard.testset.conversations import turn_number
from ragguard.testset.model import Question

MODES = ("batch", "per-question")
TEMPLATE_NAMES = ("{question}", "{id}", "{tags}")
STDERR_TAIL = 300

Log = Callable[[str], None]


def _no_log(line: str) -> None:
    pass


def parse_argv(value: Any, system: SystemConfig) -> list[str]:
    """A command as a list of arguments, or a string split like a POSIX shell would."""
    if isinstance(value, str) and value.strip():
        try:
            return shlex.split(value)
        except ValueError as exc:
            raise system.error(f"cannot split the command: {exc}", key="command") from None
    if isinstance(value, list) and value and all(isinstance(a, (str, int, float)) for a in value):
        return [str(argument) for argument in value]
    raise system.error(
        f"expected a command line or a list of arguments, found {type_name(value)}",
        key="command",
    )


def command_adapter(
    system: SystemConfig, root: Path, log: Log = _no_log
) -> CommandBatchAdapter | CommandPerQuestionAdapter:
    """Build the adapter for ``system.command``, choosing the mode."""
    argv = parse_argv(system.target, system)
    options = system.options
    templated = any(name in argument for argument in argv for name in TEMPLATE_NAMES)
    mode = options.get("mode", "per-question" if templated else "batch")
    if mode not in MODES:
        raise system.error(f"expected one of {', '.join(MODES)}, found {mode!r}", key="mode")
    if mode == "batch" and templated:
        raise system.error(
            "batch mode sends the questions on stdin; remove {question}/{id} from the command "
            "or use mode: per-question",
            key="mode",
        )
    env = options.get("env") or {}
    if not isinstance(env, Mapping) or not all(isinstance(v, (str, int)) for v in env.values()):
        raise system.error("expected a mapping of variable names to strings", key="env")
    environment = {**os.environ, **{str(k): str(v) for k, v in env.items()}}
    if mode == "batch":
        return CommandBatchAdapter(argv, root, environment, log)
    return CommandPerQuestionAdapter(argv, root, environment, log)


def _identity(argv: Sequence[str], mode: str) -> dict[str, Any]:
    return {"kind": "command", "target": shlex.join(argv), "mode": mode}


def _tail(text: str) -> str:
    lines = [line for line in split_lines(text.strip()) if line.strip()]
    last = lines[-1].strip() if lines else ""
    return last if len(last) <= STDERR_TAIL else "…" + last[-STDERR_TAIL:]


def _exit_message(code: int, stderr_tail: str) -> str:
    how = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
    return f"command {how}" + (f": {stderr_tail}" if stderr_tail else "")


class CommandPerQuestionAdapter:
    """One process per question, argv filled from the template."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], log: Log) -> None:
        self.argv = argv
        self.cwd = cwd
        self.env = env
        self.log = log
        self._seen: dict[bytes, str] = {}  # stderr's digest -> the first question that wrote it
        self._seen_lock = threading.Lock()

    def identity(self) -> dict[str, Any]:
        return _identity(self.argv, "per-question")

    def ask(self, question: Question, timeout: float) -> Answer:
        values = placeholders(question)
        argv = [fill_text(argument, values) for argument in self.argv]
        returncode, stdout, stderr = self._call(argv, question, timeout)
        self._log_stderr(question.id, stderr)
        if returncode != 0:
            raise SystemFailure(_exit_message(returncode, _tail(stderr)))
        text = stdout.strip()
        if not text:
            raise SystemFailure("command printed nothing on stdout; expected one JSON object")
        try:
            value = parse_json_value(text)
        except ValueError as exc:
            raise SystemFailure(f"command output is not valid JSON ({exc})") from None
        if isinstance(value, dict):
            reported = value.pop("id", question.id)
            if str(reported) != question.id:
                raise SystemFailure(
                    f"command answered for id {reported!r}, but was asked {question.id!r}"
                )
            value.pop("latency_ms", None)
        return answer_from_output(value, "command output")

    def _call(self, argv: list[str], question: Question, timeout: float) -> tuple[int, str, str]:
        """Run the program in its own process group, registered so that an interrupted run
        kills it (and whatever it started); on a timeout the whole group is killed."""
        try:
            process = _start(argv, self.cwd, self.env, stdin=subprocess.DEVNULL)
        except OSError as exc:
            raise SystemFailure(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
        with interrupts.child(process):
            try:
                stdout, stderr = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                interrupts.kill(process)
                _stdout, stderr = process.communicate()
                self._log_stderr(question.id, stderr)
                raise SystemFailure(f"command timed out after {format_seconds(timeout)}") from None
            except BaseException:
                interrupts.kill(process)
                raise
        return process.returncode, stdout, stderr

    def _log_stderr(self, question_id: str, stderr: str | bytes | None) -> None:
        """Log the question's stderr, or one line when an earlier question's was the same (a
        crashing command writes the same traceback for every question)."""
        if isinstance(stderr, bytes):
            stderr = stderr.decode("utf-8", "replace")
        lines = split_lines(stderr or "")
        if not lines:
            return
        digest = hashlib.sha256("\n".join(lines).encode("utf-8", "replace")).digest()
        with self._seen_lock:
            first = self._seen.setdefault(digest, question_id)
        if first != question_id:
            self.log(f"[{question_id}] stderr: the same {len(lines)} line(s) as [{first}]")
            return
        for line in lines:
            self.log(f"[{question_id}] {line}")


def _batch_line(question: Question) -> dict[str, Any]:
    """A question as batch mode sends it; a turn also names its conversation and number
    (the program keeps the conversation's state: the turns come in order)."""
    line: dict[str, Any] = {
        "id": question.id,
        "question": question.question,
        "tags": list(question.tags),
    }
    if question.conversation is not None:
        line["conversation"] = question.conversation
        line["turn"] = turn_number(question.id)
    return line


def _start(argv: list[str], cwd: Path, env: dict[str, str], *, stdin: int) -> subprocess.Popen:
    """The system's process: text over pipes, in a session of its own so that a timeout or
    an interrupt kills it with whatever it started."""
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=True,
    )


class CommandBatchAdapter:
    """One process for every question: JSONL in on stdin, JSONL out on stdout.

    ``timeout`` bounds the wait for each next line of output (one question's worth), so a
    program that answers steadily is never cut off, and one that hangs is stopped.
    """

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], log: Log) -> None:
        self.argv = argv
        self.cwd = cwd
        self.env = env
        self.log = log

    def identity(self) -> dict[str, Any]:
        return _identity(self.argv, "batch")

    def run_batch(
        self,
        questions: Sequence[Question],
        timeout: float,
        emit: Callable[[RunRecord], None],
        stop: threading.Event,
    ) -> None:
        try:
            process = _start(self.argv, self.cwd, self.env, stdin=subprocess.PIPE)
        except OSError as exc:
            message = f"cannot start {self.argv[0]!r}: {exc.strerror or exc}"
            for question in questions:
                emit(error_record(question.id, message))
            return
        with interrupts.child(process):
            _Batch(process, questions, timeout, emit, stop, self.log).run()


class _Batch:
    """The conversation with one batch process."""

    def __init__(
        self,
        process: subprocess.Popen[str],
        questions: Sequence[Question],
        timeout: float,
        emit: Callable[[RunRecord], None],
        stop: threading.Event,
        log: Log,
    ) -> None:
        self.process = process
        self.questions = questions
        self.timeout = timeout
        self.emit = emit
        self.stop = stop
        self.log = log
        self.pending = {question.id for question in questions}
        self.problems: list[str] = []
        self.stderr_lines: list[str] = []

    def run(self) -> None:
        lines: Queue[str | None] = Queue()
        threads = [
            threading.Thread(target=self._write_questions, daemon=True),
            threading.Thread(target=_pump, args=(self.process.stdout, lines.put), daemon=True),
            threading.Thread(target=_pump, args=(self.process.stderr, self._stderr), daemon=True),
        ]
        for thread in threads:
            thread.start()
        reason = self._read(lines)
        if reason:
            interrupts.kill(self.process)
        code = self.process.wait()
        threads[2].join(timeout=2)
        if reason is None and code != 0:
            reason = _exit_message(code, _tail("\n".join(self.stderr_lines)))
        self._fail_pending(reason)

    def _read(self, lines: Queue[str | None]) -> str | None:
        """Read answers until stdout closes; return why the process had to be stopped."""
        number = 0
        last = time.monotonic()
        while True:
            if self.stop.is_set():
                return "interrupted"
            try:
                line = lines.get(timeout=min(self.timeout, 0.25))
            except Empty:
                if time.monotonic() - last > self.timeout:
                    return (
                        f"command produced no answer for {format_seconds(self.timeout)} "
                        "(timeout); stopped it"
                    )
                continue
            if line is None:
                return None
            number += 1
            latency = round((time.monotonic() - last) * 1000.0, 3)
            last = time.monotonic()
            self._take(line, number, latency)

    def _take(self, line: str, number: int, latency_ms: float) -> None:
        if not line.strip():
            return
        where = Where("command output", number)
        try:
            value = parse_json_value(line)
            if not isinstance(value, dict):
                raise SystemFailure(f"expected a JSON object, found {type_name(value)}")
            value.setdefault("latency_ms", latency_ms)
            record = record_from_mapping(value, where)
        except ValueError as exc:
            self._problem(f"line {number} is not valid JSON ({exc})")
            return
        except (InputError, SystemFailure) as exc:
            identifier = value.get("id") if isinstance(value, dict) else None
            if isinstance(identifier, (str, int)) and str(identifier) in self.pending:
                self.pending.discard(str(identifier))
                self.emit(error_record(str(identifier), f"bad output line {number}: {exc}"))
            else:
                self._problem(f"line {number}: {exc}")
            return
        if record.id not in self.pending:
            self._problem(f"line {number}: unexpected or repeated id {record.id!r}")
            return
        self.pending.discard(record.id)
        self.emit(record)

    def _problem(self, message: str) -> None:
        self.problems.append(message)
        self.log(f"[command output] {message}")

    def _fail_pending(self, reason: str | None) -> None:
        message = reason or "command's output has no line for this question"
        if self.problems:
            message += f" ({'; '.join(self.problems[:3])})"
        for question in self.questions:
            if question.id in self.pending:
                self.emit(error_record(question.id, message))
        self.pending.clear()

    def _write_questions(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            for question in self.questions:
                stdin.write(json.dumps(_batch_line(question), ensure_ascii=False) + "\n")
            stdin.close()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the process exited early; its exit status tells why

    def _stderr(self, line: str | None) -> None:
        if line is None:
            return
        text = line.rstrip("\n")
        self.stderr_lines.append(text)
        del self.stderr_lines[:-20]
        self.log(text)


def _pump(stream: IO[str] | None, put: Callable[[str | None], object]) -> None:
    """Copy lines from a pipe into ``put``, then ``None`` at the end."""
    if stream is not None:
        for line in stream:
            put(line)
    put(None)
