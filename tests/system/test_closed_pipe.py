"""`ragguard run … | head -1`: the reader of a pipe goes away. What is only shown (progress,
notes) must not end the work: the run finishes and its results and records are written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.test_shards import write_suite


@pytest.mark.parametrize("closed", ["stderr", "stdout"])
def test_a_closed_pipe_does_not_stop_the_run(tmp_path: Path, closed: str) -> None:
    """A closed stderr stopped the run at its first progress line (exit 141, no results)."""
    config = write_suite(tmp_path)
    with (tmp_path / "shown.txt").open("w") as kept:
        streams = {"stdout": kept, "stderr": kept, closed: subprocess.PIPE}
        run = subprocess.Popen(
            [sys.executable, "-m", "ragguard", "run", "-c", str(config), "--out", "r.json",
             "--shard", "1/3"],
            cwd=tmp_path, stdin=subprocess.DEVNULL, **streams,
        )  # fmt: skip
        getattr(run, closed).close()  # the reader is gone before the first line
        code = run.wait(timeout=120)

    assert code == (0 if closed == "stderr" else 141)  # stdout: the table could not be shown
    written = (tmp_path / "r.json").read_text(encoding="utf-8")
    assert '"shard"' in written
    records = (tmp_path / "r.run.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(records) == 12  # shard 1 of 3: 14 questions, 2 absent from the recorded run
