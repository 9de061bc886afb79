"""The architecture kept by a machine (docs/architecture.md): the import contracts in
.importlinter hold, and they catch a violation; no two modules import each other in a circle
when they load; git runs in one module; no module is long."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "ragguard"
CONTRACTS = ROOT / ".importlinter"
MAX_LINES = 400


def lint_imports(pythonpath: Path) -> subprocess.CompletedProcess[str]:
    beside = Path(sys.executable).with_name("lint-imports")
    binary = str(beside) if beside.exists() else shutil.which("lint-imports")
    if binary is None:
        pytest.fail("lint-imports is not installed: pip install -e '.[test]' installs it")
    return subprocess.run(
        [binary, "--no-cache", str(CONTRACTS)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(pythonpath)},
    )


def python_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_import_contracts_hold() -> None:
    done = lint_imports(PACKAGE.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        ("core/errors.py", "import ragguard.cli.app", "layers"),
        ("metrics/text.py", "import ragguard.judge.client", "core"),
        ("render/text.py", "import ragguard.system.runner", "core"),
    ],
)
def test_the_contracts_catch_an_import_that_breaks_them(
    tmp_path: Path, module: str, line: str, broken: str
) -> None:
    """A copy of the package with one import added against the contracts fails the check."""
    copy = tmp_path / "ragguard"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # noqa\n", encoding="utf-8")

    done = lint_imports(tmp_path)

    assert done.returncode != 0, done.stdout
    assert "BROKEN" in done.stdout and line.split()[-1] in done.stdout


def module_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def load_time_imports(path: Path) -> set[str]:
    """The ragguard modules ``path`` imports when it loads: its top-level imports, not those
    inside functions (imported when called) or under ``if TYPE_CHECKING:``."""
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("ragguard")}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = {module_of(path): path for path in python_files()}
    return {
        name: {target for target in load_time_imports(path) if target in modules and target != name}
        for name, path in modules.items()
    }


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert cycles(import_graph()) == []


def test_the_circle_check_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_git_runs_only_in_core_git() -> None:
    """No module but core/git.py starts a process whose program is git."""
    runners = []
    for path in python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.List) and node.elts:
                first = node.elts[0]
                if isinstance(first, ast.Constant) and first.value == "git":
                    runners.append(path.relative_to(PACKAGE).as_posix())
    assert sorted(set(runners)) == ["core/git.py"]


def test_no_module_is_over_the_limit() -> None:
    long = {
        path.relative_to(PACKAGE).as_posix(): n
        for path in python_files()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}
