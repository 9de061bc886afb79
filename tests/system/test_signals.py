"""Ctrl-C and SIGTERM stop `ragguard run` the same way: what finished is kept, the system's
child processes are killed, no temporary file is left, and the exit code says which signal.

The system is a real program run per question by the command adapter; question q3 hangs
after writing its process id, so the test knows when to interrupt and which child to watch.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ragguard.cli.app import RagguardGroup
from ragguard.results.io import load_results

QUESTIONS = 6
HANGS = "q3"

SYSTEM = f"""\
import json, os, pathlib, sys, time

HERE = pathlib.Path(__file__).parent
question_id = sys.argv[1]
if question_id == {HANGS!r}:
    (HERE / "child.pid").write_text(str(os.getpid()))
    time.sleep(600)
print(json.dumps({{"retrieved": ["c" + question_id[1:]], "answer": "Answer to " + question_id}}))
"""


def write_suite(folder: Path) -> Path:
    (folder / "system.py").write_text(SYSTEM)
    lines = [
        json.dumps({"id": f"q{n}", "question": f"Q{n}?", "relevant": {f"c{n}": 1}})
        for n in range(QUESTIONS)
    ]
    (folder / "testset.jsonl").write_text("\n".join(lines) + "\n")
    config = folder / "ragguard.yml"
    config.write_text(
        "suite: signals\ntestset: testset.jsonl\nsystem:\n"
        f"  command: [{json.dumps(sys.executable)}, system.py, '{{id}}']\n"
        "  concurrency: 1\n  timeout: 10m\nmetrics: [hit_rate@1]\n"
    )
    return config


def wait_for(condition, process: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"never {what}: {process.communicate()}")


def alive(pid: int) -> bool:
    """Running, and not a zombie waiting for a reaper (a container's init may not reap)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


@pytest.mark.e2e
@pytest.mark.parametrize(("sent", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_mid_run_keeps_what_finished_and_kills_the_children(
    tmp_path: Path, sent: signal.Signals, code: int
) -> None:
    config = write_suite(tmp_path)
    records = tmp_path / "results.run.jsonl"
    run = subprocess.Popen(
        [sys.executable, "-m", "ragguard", "run", "-c", str(config)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pid_file = tmp_path / "child.pid"
    wait_for(pid_file.exists, run, "reached the hanging question")
    child = int(pid_file.read_text())
    assert records.read_text().count("\n") == 3  # q0-q2 journalled before q3 was asked

    run.send_signal(sent)
    _stdout, stderr = run.communicate(timeout=120)

    assert run.returncode == code, stderr
    assert "Traceback" not in stderr
    assert "interrupted: 3 of 6 questions done" in stderr
    results = load_results(tmp_path / "results.json")
    assert [q.id for q in results.questions if q.status == "ok"] == ["q0", "q1", "q2"]
    kept = [json.loads(line)["id"] for line in records.read_text().splitlines()]
    assert kept == ["q0", "q1", "q2"]
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))
    deadline = time.monotonic() + 60
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child), "the hanging question's process outlived ragguard"


def test_a_second_interrupt_or_one_outside_the_run_exits_130_in_one_line() -> None:
    """An interrupt that reaches the command line (e.g. during scoring) is not exit 1."""

    @click.group(cls=RagguardGroup)
    def group() -> None: ...

    @group.command()
    def scoring() -> None:
        raise KeyboardInterrupt

    result = CliRunner().invoke(group, ["scoring"], prog_name="ragguard")
    assert result.exit_code == 130
    assert result.stderr.splitlines() == ["ragguard: interrupted (Ctrl-C)"]
