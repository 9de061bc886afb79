"""The bad-input corpus: every case is a folder under cases/, run as the user would run it.

A case folder holds the files that are wrong and a ``case.yaml``::

    why: the test set's YAML indents with a tab      # what is wrong, in one line
    args: [score, --testset, testset.yaml, --run, run.jsonl]
    error: ["testset.yaml:3:", "indent with spaces"] # the place the line starts with, then
                                                     # fragments it must hold
    exit: 2                # optional; 2 (bad input) unless the case says otherwise
    env: {RAGGUARD_FAIL_ON: maybe, GITHUB_REPOSITORY: null}   # ci: laid over ci-env.yaml
    edit:                  # optional: write a JSON file changed from one of common/
      head.json: {from: results.json, set: {"questions[0].status": 1}, delete: [summary]}
    process: true          # optional: run the installed console script in a subprocess
    xfail: why it fails    # optional: a known bug in a module this corpus may not fix (strict)
    absent: [comment.md]   # optional: files the failed command must not have written
    unchanged: [results.run.jsonl]  # optional: files it must leave exactly as they were

``{workdir}`` in a fragment stands for the scratch folder's absolute path (ragguard.yml's
paths are resolved, so errors about the files it names show them absolute).

The command runs in a scratch folder holding common/ (good inputs) overlaid with the case's
files, so a case only carries what is broken. The contract checked for every case: the exit
code, exactly one ``ragguard: error:`` line on stderr that starts with the place (the file and
line, the key, the option or the input) and holds every fragment, no traceback, and nothing
on stdout. ``ragguard ci`` logs what it is doing on
stderr before it fails; those log lines may precede the error line, which must be the last.
No stray temporary file (``*.tmp``) is left in the scratch folder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result

HERE = Path(__file__).parent
CASES = HERE / "cases"
COMMON = HERE / "common"
CI_ENV = HERE / "ci-env.yaml"
CASE_KEYS = {
    "why",
    "args",
    "error",
    "exit",
    "env",
    "edit",
    "process",
    "xfail",
    "absent",
    "unchanged",
}
CI_COMMANDS = ("ci", "publish")
ERROR_PREFIX = "ragguard: error: "
MIN_CASES = 40


@dataclass(frozen=True)
class Case:
    name: str
    folder: Path
    why: str
    args: list[str]
    error: list[str]
    exit: int = 2
    env: dict[str, str | None] = field(default_factory=dict)
    edit: dict[str, Any] = field(default_factory=dict)
    process: bool = False
    xfail: str | None = None
    absent: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)


def load_case(folder: Path) -> Case:
    spec = yaml.safe_load((folder / "case.yaml").read_text(encoding="utf-8"))
    unknown = set(spec) - CASE_KEYS
    assert not unknown, f"{folder.name}/case.yaml: unknown keys {sorted(unknown)}"
    return Case(
        name=folder.name,
        folder=folder,
        why=spec["why"],
        args=[str(arg) for arg in spec["args"]],
        error=[str(fragment) for fragment in spec["error"]],
        exit=spec.get("exit", 2),
        env=_environment(spec),
        edit=spec.get("edit") or {},
        process=spec.get("process", False),
        xfail=spec.get("xfail"),
        absent=[str(name) for name in spec.get("absent") or []],
        unchanged=[str(name) for name in spec.get("unchanged") or []],
    )


def _environment(spec: dict[str, Any]) -> dict[str, str | None]:
    """A ci case's variables over the good Actions environment; None unsets a variable."""
    env = (
        yaml.safe_load(CI_ENV.read_text(encoding="utf-8")) if spec["args"][0] in CI_COMMANDS else {}
    )
    env.update(spec.get("env") or {})
    return {key: None if value is None else str(value) for key, value in env.items()}


def all_cases() -> list[Case]:
    return [load_case(folder) for folder in sorted(CASES.iterdir()) if folder.is_dir()]


def _steps(path: str) -> list[str | int]:
    """``questions[0].metrics.mrr`` -> ["questions", 0, "metrics", "mrr"]."""
    steps: list[str | int] = []
    for part in path.split("."):
        name, *indexes = re.split(r"\[(\d+)\]", part)
        steps += [name] if name else []
        steps += [int(index) for index in indexes if index]
    return steps


def _parent(document: Any, path: str) -> tuple[Any, str | int]:
    *walk, last = _steps(path)
    for step in walk:
        document = document[step]
    return document, last


def apply_edit(workdir: Path, name: str, edit: dict[str, Any]) -> None:
    """Write NAME from the JSON file ``from`` (default: NAME) with keys set or deleted,
    indented by one space as ragguard writes results."""
    document = json.loads((workdir / edit.get("from", name)).read_text(encoding="utf-8"))
    for key, value in (edit.get("set") or {}).items():
        container, last = _parent(document, key)
        container[last] = value
    for key in edit.get("delete") or []:
        container, last = _parent(document, key)
        del container[last]
    text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    (workdir / name).write_text(text, encoding="utf-8")


def prepare(case: Case, workdir: Path) -> None:
    shutil.copytree(COMMON, workdir, dirs_exist_ok=True)
    shutil.copytree(  # a case's symbolic link is copied as a link (an output through it)
        case.folder,
        workdir,
        symlinks=True,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("case.yaml"),
    )
    for name, edit in case.edit.items():
        apply_edit(workdir, name, edit)


def check_contract(case: Case, workdir: Path, exit_code: int, stdout: str, stderr: str) -> None:
    assert "Traceback" not in stderr + stdout, stderr + stdout
    assert exit_code == case.exit, f"exit {exit_code}, expected {case.exit}: {stderr}"
    lines = stderr.splitlines()
    errors = [line for line in lines if line.startswith(ERROR_PREFIX)]
    assert len(errors) == 1, f"expected one error line:\n{stderr}"
    if case.args[0] in CI_COMMANDS:
        assert lines[-1] == errors[0], f"the error is not the last line:\n{stderr}"
    else:
        assert lines == errors, f"more than the error on stderr:\n{stderr}"
        assert stdout == "", stdout
    place, *fragments = (f.replace("{workdir}", str(workdir.resolve())) for f in case.error)
    assert errors[0].startswith(ERROR_PREFIX + place), f"{errors[0]!r} starts with no {place!r}"
    for fragment in fragments:
        assert fragment in errors[0], f"{fragment!r} not in {errors[0]!r}"
    for name in case.absent:
        assert not (workdir / name).exists(), f"{name} was written by a command that failed"
    for name in case.unchanged:
        original = (case.folder / name).read_bytes()
        assert (workdir / name).read_bytes() == original, f"{name} was changed"
    stray = [str(p.relative_to(workdir)) for p in workdir.rglob("*.tmp")]
    assert not stray, f"temporary files left behind: {stray}"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    return tmp_path / "work"


@pytest.fixture
def run_case(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, ragguard_cli, ragguard_process
) -> Callable[[Case], tuple[int, str, str]]:
    def run(case: Case) -> tuple[int, str, str]:
        prepare(case, workdir)
        monkeypatch.chdir(workdir)
        for name in list(os.environ):
            if name.startswith(("GITHUB_", "RAGGUARD_")):
                monkeypatch.delenv(name)
        for name, value in case.env.items():
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)
        if case.process:
            done: subprocess.CompletedProcess[str] = ragguard_process(*case.args, cwd=workdir)
            return done.returncode, done.stdout, done.stderr
        result: Result = ragguard_cli(*case.args)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result.exit_code, result.stdout, result.stderr

    return run


def case_params() -> list[Any]:
    return [
        pytest.param(
            case,
            id=case.name,
            marks=[pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else [],
        )
        for case in all_cases()
    ]


@pytest.mark.parametrize("case", case_params())
def test_bad_input_is_one_line_naming_the_place(case: Case, workdir: Path, run_case) -> None:
    exit_code, stdout, stderr = run_case(case)
    check_contract(case, workdir, exit_code, stdout, stderr)


def test_the_corpus_has_enough_cases() -> None:
    assert len(all_cases()) >= MIN_CASES


def test_every_case_is_named_for_what_is_wrong() -> None:
    for case in all_cases():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", case.name), case.name
        assert case.why.strip() and "\n" not in case.why.strip(), case.name
        assert case.error and case.error[0].endswith(":"), f"{case.name}: no place first"
