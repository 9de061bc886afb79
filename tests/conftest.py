"""Shared fixtures: writing input files and running the CLI the way a user would."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ragguard.cli.app import cli

# Helper folders without __init__.py (tests/github must not be a package: it would shadow
# PyGithub); their modules are imported by name, e.g. ``from fake_github import FakeGitHub``.
TESTS = Path(__file__).resolve().parent
for _folder in ("github", "judge", "ci", "e2e", "browser", "traces"):
    if str(TESTS / _folder) not in sys.path:
        sys.path.insert(0, str(TESTS / _folder))

pytest_plugins = ["fake_github_fixtures"]

GOOD_TESTSET_YAML = """\
- id: q1
  question: How do I authenticate?
  relevant: {auth: 2, errors: 1}
- id: q2
  question: How many requests per minute?
  relevant: [rate-limits]
"""

GOOD_RUN_JSONL = """\
{"id": "q1", "retrieved": ["auth", "errors"]}
{"id": "q2", "retrieved": ["rate-limits"]}
"""


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str | bytes], Path]:
    """Write text (or bytes, written as they are) to a file under tmp_path; return its path."""

    def write_file(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    return write_file


@pytest.fixture
def good_testset(write) -> Path:
    return write("testset.yaml", GOOD_TESTSET_YAML)


@pytest.fixture
def good_run(write) -> Path:
    return write("run.jsonl", GOOD_RUN_JSONL)


@pytest.fixture
def ragguard_cli() -> Callable[..., Result]:
    """Invoke ``ragguard ARGS...`` in-process through click's runner (stderr kept apart)."""

    def invoke(*args: str | Path) -> Result:
        return CliRunner().invoke(cli, [str(arg) for arg in args], prog_name="ragguard")

    return invoke


def assert_input_error(exit_code: int, stderr: str, *fragments: str) -> str:
    """Exit 2, exactly one line on stderr, no traceback, and every fragment in that line."""
    lines = stderr.splitlines()
    assert exit_code == 2, stderr
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    line = lines[0]
    assert line.startswith("ragguard: error: "), line
    for fragment in fragments:
        assert fragment in line, f"{fragment!r} not in {line!r}"
    return line


@pytest.fixture
def cli_error(ragguard_cli) -> Callable[..., str]:
    """Run the CLI in-process and check it fails as bad input; returns the error line.

    ``cli_error(args, *fragments)``: args is the argument list, fragments must all appear.
    """

    def check(args: Sequence[str | Path], *fragments: str) -> str:
        result = ragguard_cli(*args)
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            result.exception
        )
        assert result.stdout == "", result.stdout
        return assert_input_error(result.exit_code, result.stderr, *fragments)

    return check


def _console_script() -> list[str]:
    """The installed ``ragguard`` script of this interpreter's environment."""
    beside = Path(sys.executable).parent / "ragguard"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("ragguard")
    if found is None:
        pytest.fail("the ragguard console script is not installed (pip install -e .)")
    return [found]


@pytest.fixture
def ragguard_process() -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run the installed ``ragguard`` console script as a real subprocess."""

    def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*_console_script(), *(str(arg) for arg in args)],
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=60,
        )

    return run


@pytest.fixture
def process_error(ragguard_process) -> Callable[..., str]:
    """Like ``cli_error``, through a real subprocess of the installed console script."""

    def check(args: Sequence[str | Path], *fragments: str) -> str:
        completed = ragguard_process(*args)
        assert completed.stdout == "", completed.stdout
        return assert_input_error(completed.returncode, completed.stderr, *fragments)

    return check
