"""Out of memory while reading an input is one line naming the file, exit 2 (not a bare
MemoryError traceback). The address space of a real `ragguard score` process is capped
below what the file needs: a YAML test set (read whole), and a JSON Lines run and a trace
file whose one line is too long (read as a stream, one line at a time; which kind of file a
run is is told from its first bytes alone)."""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

COMMON = Path(__file__).parent / "common"
CAP_BYTES = 400 * 1024 * 1024
HUGE = 300_000_000  # characters: more than the cap leaves once Python and ragguard are loaded


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))


def _write_huge(path: Path, head: str, tail: str) -> None:
    with path.open("w", encoding="utf-8") as file:
        file.write(head)
        chunk = "x" * 1_000_000
        for _ in range(HUGE // len(chunk)):
            file.write(chunk)
        file.write(tail)


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("name", "head", "tail", "args", "what"),
    [
        (
            "testset.yaml",
            "- id: q1\n  question: ",
            "\n  relevant: [auth]\n",
            ["--testset", "testset.yaml", "--run", "run.jsonl"],
            "test set",
        ),
        (
            "run.jsonl",
            '{"id": "q1", "answer": "',
            '"}\n',
            ["--testset", "testset.yaml", "--run", "run.jsonl"],
            "run file",
        ),
        (
            "traces.json",
            '{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "',
            '"}]}]}]}\n',
            ["--testset", "testset.yaml", "--run", "traces.json"],
            "trace file",
        ),
    ],
)
def test_out_of_memory_is_one_line_naming_the_file(
    tmp_path: Path, name: str, head: str, tail: str, args: list[str], what: str
) -> None:
    shutil.copytree(COMMON, tmp_path, dirs_exist_ok=True)
    _write_huge(tmp_path / name, head, tail)
    done = subprocess.run(
        [sys.executable, "-m", "ragguard", "score", *args],
        cwd=tmp_path,
        preexec_fn=_cap_memory,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"ragguard: error: {name}: out of memory reading the {what}; split it into smaller "
        "files or give the job more memory"
    ]
