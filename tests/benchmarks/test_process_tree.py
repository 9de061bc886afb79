"""benchmarks/_process_tree.py on a /proc laid out in a folder: which processes make a tree
(a command name may hold spaces and parentheses), what a sample sums, and a sampler that
fails is an error, never a small peak."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def process_tree() -> ModuleType:
    """The module whole_process.py imports by name (one module object for both tests)."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module("_process_tree")


def fake_process(proc: Path, pid: int, parent: int, command: str, pages: int) -> None:
    folder = proc / str(pid)
    folder.mkdir()
    (folder / "stat").write_text(f"{pid} ({command}) S {parent} {pid} {pid} 0 -1 4194304\n")
    (folder / "statm").write_text(f"{pages * 3} {pages} 10 1 0 {pages} 0\n")


@pytest.fixture
def proc(tmp_path: Path, process_tree: ModuleType, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Launcher 99 starts 100, which forks 101 (named with a ') (' in it), which forks 102;
    200 is a stranger whose child 150 has a pid between the tree's."""
    fake_process(tmp_path, 1, 0, "init", 5)
    fake_process(tmp_path, 99, 1, "python", 2000)
    fake_process(tmp_path, 100, 99, "python", 1000)
    fake_process(tmp_path, 101, 100, "worker ) (S 1", 300)
    fake_process(tmp_path, 102, 101, "python", 20)
    fake_process(tmp_path, 200, 1, "bash", 7)
    fake_process(tmp_path, 150, 200, "sleep", 9)
    (tmp_path / "self").mkdir()
    monkeypatch.setattr(process_tree, "PROC", tmp_path)
    monkeypatch.setattr(process_tree, "PAGE_BYTES", 4096)
    return tmp_path


def test_the_tree_is_the_descendants_of_the_root(process_tree: ModuleType, proc: Path) -> None:
    assert sorted(process_tree.ProcessTree(99).descendants()) == [100, 101, 102]
    assert sorted(process_tree.ProcessTree(200).descendants()) == [150]
    assert process_tree.ProcessTree(102).descendants() == []


def test_a_sample_sums_the_tree_and_keeps_the_peak(process_tree: ModuleType, proc: Path) -> None:
    peak = process_tree.TreePeak(99)  # the launcher's 2000 pages are not the tool's
    peak.sample()
    assert peak.peak_bytes == (1000 + 300 + 20) * 4096
    assert peak.most_processes == 3
    (proc / "101" / "statm").write_text("0 0 0 0 0 0 0\n")  # a zombie holds nothing
    peak.sample()
    assert peak.peak_bytes == (1000 + 300 + 20) * 4096
    assert peak.most_processes == 3
    (proc / "102" / "statm").write_text("9000 3000 10 1 0 3000 0\n")
    peak.sample()
    assert peak.peak_bytes == (1000 + 3000) * 4096


def test_a_sampler_that_fails_raises_instead_of_reporting_a_small_peak(
    process_tree: ModuleType, proc: Path
) -> None:
    (proc / "102" / "stat").write_text("garbage\n")
    failed = pytest.raises(RuntimeError, match="sampling the process tree's memory failed")
    with failed, process_tree.TreePeak(99):
        pass
