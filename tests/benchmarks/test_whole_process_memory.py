"""benchmarks/whole_process.py measures what a process TREE holds at once: a tool that forks
a child holding as much memory as itself is reported at about twice a single process's peak
(os.wait4's ru_maxrss alone would report the larger of the two), and its CPU time includes
the waited child's."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
MIB = 1024 * 1024

# Parent and child each touch 200 MiB page by page and hold it; through two pipes the parent
# waits until the child holds its block, then both hold theirs for a second before the child
# is released, so a sampler every 20 ms sees both even on a busy machine.
HOLDER = r"""
import os, sys, time

SIZE = 200 * 1024 * 1024


def hold():
    block = bytearray(SIZE)
    for offset in range(0, SIZE, 4096):
        block[offset] = 1
    return block


if sys.argv[1] == "single":
    block = hold()
    time.sleep(1.0)
    sys.exit(0)
ready_read, ready_write = os.pipe()
done_read, done_write = os.pipe()
child = os.fork()
if child == 0:
    os.close(ready_read)
    os.close(done_write)
    block = hold()
    os.write(ready_write, b"x")
    os.read(done_read, 1)  # also returns (EOF) if the parent dies
    os._exit(0)
os.close(ready_write)
os.close(done_read)
block = hold()
assert os.read(ready_read, 1) == b"x"
time.sleep(1.0)
os.write(done_write, b"x")
os.waitpid(child, 0)
"""

# A forked child burns 0.5 s of CPU and writes how much it used; the parent waits for it and
# writes its own and the child's CPU seconds (CLOCK_PROCESS_CPUTIME_ID, all threads).
BURNER = r"""
import json, os, sys, time

out = sys.argv[1]
child = os.fork()
if child == 0:
    start = time.process_time()
    while time.process_time() - start < 0.5:
        pass
    with open(out + ".child", "w") as f:
        f.write(str(time.process_time()))
    os._exit(0)
os.waitpid(child, 0)
with open(out + ".child") as f:
    child_cpu = float(f.read())
with open(out, "w") as f:
    json.dump({"parent": time.process_time(), "child": child_cpu}, f)
"""


@pytest.fixture(scope="module")
def whole_process() -> ModuleType:
    if str(BENCHMARKS) not in sys.path:  # its helpers (_common, _process_tree) import by name
        sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("whole_process", BENCHMARKS / "whole_process.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["whole_process"] = module
    spec.loader.exec_module(module)
    return module


def run_holder(whole_process: ModuleType, mode: str, tmp_path: Path) -> Any:
    """The ``Measured`` of the holder script run in ``mode`` (single or fork)."""
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    return whole_process.run_process([sys.executable, str(script), mode])


def test_a_single_process_holding_200_mib_is_reported_within_sane_bounds(
    whole_process: ModuleType, tmp_path: Path
) -> None:
    measured = run_holder(whole_process, "single", tmp_path)
    assert 200 <= measured.rss < 400, measured
    if whole_process.SAMPLED:
        assert measured.processes == 1


# A benchmark process that once held 600 MiB (touched, then freed) measures the 200 MiB holder:
# spawned from it directly, the holder's ru_maxrss would start at the spawner's 600 MiB.
BIG_SPAWNER = r"""
import json, sys

sys.path.insert(0, sys.argv[1])
import whole_process

block = bytearray(600 * 1024 * 1024)
for offset in range(0, len(block), 4096):
    block[offset] = 1
del block
measured = whole_process.run_process([sys.executable, sys.argv[2], "single"])
print(json.dumps({"rss": measured.rss}))
"""


def test_the_benchmarks_own_peak_memory_does_not_leak_into_a_tools_figure(
    tmp_path: Path,
) -> None:
    holder, spawner = tmp_path / "holder.py", tmp_path / "spawner.py"
    holder.write_text(HOLDER)
    spawner.write_text(BIG_SPAWNER)
    done = subprocess.run(
        [sys.executable, str(spawner), str(BENCHMARKS), str(holder)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert 200 <= json.loads(done.stdout)["rss"] < 400, done.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="samples /proc (Linux)")
def test_a_parent_and_forked_child_holding_200_mib_each_are_reported_as_their_sum(
    whole_process: ModuleType, tmp_path: Path
) -> None:
    single = run_holder(whole_process, "single", tmp_path)
    forked = run_holder(whole_process, "fork", tmp_path)
    assert forked.processes == 2, (forked, single)
    assert forked.rss >= 400, (forked, single)
    assert forked.rss >= 1.7 * single.rss, (forked, single)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="samples /proc (Linux)")
def test_without_proc_the_fallback_reports_the_largest_single_process_and_says_so(
    whole_process: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What macOS gets (ru_maxrss alone), and why sampling is needed: the forked pair is
    reported as about one process."""
    monkeypatch.setattr(whole_process, "SAMPLED", False)
    forked = run_holder(whole_process, "fork", tmp_path)
    assert 200 <= forked.rss < 300, forked
    assert forked.processes == 0, forked
    assert "ru_maxrss only" in whole_process.rss_legend({"ragguard": 0})


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="wait4 checked on Linux")
def test_cpu_time_includes_the_cpu_of_a_waited_child(
    whole_process: ModuleType, tmp_path: Path
) -> None:
    script, out = tmp_path / "burner.py", tmp_path / "cpu.json"
    script.write_text(BURNER)
    measured = whole_process.run_process([sys.executable, str(script), str(out)])
    used = json.loads(out.read_text())
    assert used["child"] >= 0.5
    assert measured.cpu >= used["parent"] + used["child"] - 0.01, (measured.cpu, used)


def test_the_legend_says_how_peak_rss_was_measured(whole_process: ModuleType) -> None:
    legend = whole_process.rss_legend({"pytrec_eval": 1, "ragguard": 2})
    assert legend.startswith("peak RSS: ")
    if whole_process.SAMPLED:
        assert "summed RSS of the process and all its descendants" in legend
        assert "count twice" in legend
        assert "pytrec_eval 1, ragguard 2" in legend
    else:
        assert "ru_maxrss only" in legend
