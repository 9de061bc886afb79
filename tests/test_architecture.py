"""The architecture kept by a machine (docs/architecture.md): the import contracts in
.importlinter hold, and they catch a violation; git runs in one module; ragguard.yml is parsed
in one module; no module is long."""

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
