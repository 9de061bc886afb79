"""core/git.py with the real git binary on bytes that are not UTF-8: a repository under a
folder whose name holds the byte 0xe9, a branch and a file named with it. git's output is
decoded without failing, a path comes back to the file system byte for byte, and what is
shown or stored has the byte escaped (``\\udce9``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from tests.conftest import _console_script

from ragguard.core.errors import InputError
from ragguard.core.git import (
    changed_paths,
    current_commit,
    failure_text,
    git_output,
    run_git,
)

NAME = b"caf\xe9"  # Latin-1 for "café": not UTF-8
SHOWN = "caf\\udce9"


def _git(repo: bytes, *args: bytes) -> None:
    identity = [b"-c", b"user.name=t", b"-c", b"user.email=t@t"]
    subprocess.run([b"git", *identity, *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> bytes:
    """A repository at ``TMP/café/repo`` (bytes), on the branch ``café``, one commit, and
    its remote ``origin`` a folder there that does not exist."""
    top = os.path.join(os.fsencode(tmp_path), NAME)
    os.mkdir(top)
    path = os.path.join(top, b"repo")
    os.mkdir(path)
    _git(path, b"init", b"-q", b"-b", NAME)
    _git(path, b"remote", b"add", b"origin", os.path.join(top, b"nowhere"))
    with open(os.path.join(path, b"testset.yaml"), "w") as file:
        file.write("- id: q1\n  question: How?\n  relevant: [a]\n")
    with open(os.path.join(path, b"run.jsonl"), "w") as file:
        file.write('{"id": "q1", "retrieved": ["a"], "answer": "x"}\n')
    _git(path, b"add", b".")
    _git(path, b"commit", b"-q", b"-m", b"first")
    return path


def _environment() -> dict[str, str]:
    """This environment without GitHub's variables (they would name the commit instead)."""
    return {key: value for key, value in os.environ.items() if not key.startswith("GITHUB_")}


def test_a_path_from_git_comes_back_to_the_file_system(repo: bytes):
    top = git_output("rev-parse", "--show-toplevel", cwd=os.fsdecode(repo))
    assert top is not None and os.fsencode(top) == repo
    assert Path(top, "testset.yaml").is_file()


def test_a_branch_that_is_not_utf8_is_stored_escaped(repo: bytes, monkeypatch):
    for key in ("GITHUB_SHA", "GITHUB_REF"):
        monkeypatch.delenv(key, raising=False)
    commit = current_commit(cwd=os.fsdecode(repo))
    assert commit["ref"] == f"refs/heads/{SHOWN}"
    assert commit["sha"] is not None and len(commit["sha"]) == 40


def test_git_s_error_quoting_such_a_path_is_one_writable_line(repo: bytes):
    done = run_git("fetch", "origin", cwd=os.fsdecode(repo))
    text = failure_text(done)
    assert f"{SHOWN}/nowhere' does not appear to be a git repository" in text
    assert text.encode("utf-8") and "\n" not in text


def test_a_changed_file_named_with_such_bytes_is_a_path_that_exists(repo: bytes):
    with open(os.path.join(repo, NAME + b".md"), "w") as file:
        file.write("# Café\n")
    _git(repo, b"add", b".")
    _git(repo, b"commit", b"-q", b"-m", b"second")
    folder = Path(os.fsdecode(repo))
    [name] = changed_paths("HEAD~1", "HEAD", folder) or []
    assert (folder / name).is_file() and os.fsencode(name) == NAME + b".md"


def test_an_input_error_naming_such_a_path_can_be_written_as_utf8():
    error = InputError(os.fsdecode(b"/tmp/" + NAME + b"/testset.yaml"), "test set not found")
    assert str(error) == f"/tmp/{SHOWN}/testset.yaml: test set not found"
    assert str(error).encode("utf-8")


def test_ragguard_score_in_such_a_repository_has_no_traceback(repo: bytes):
    done = subprocess.run(
        [*_console_script(), "score", "--testset", "testset.yaml", "--run", "run.jsonl",
         "--out", "results.json"],
        cwd=repo, capture_output=True, text=True, env=_environment(), check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    results = Path(os.fsdecode(repo), "results.json").read_text(encoding="utf-8")
    assert f'"ref": "refs/heads/{SHOWN}"'.replace("\\", "\\\\") in results


def test_ragguard_baseline_fetch_from_such_a_remote_is_one_error_line(repo: bytes):
    done = subprocess.run(
        [*_console_script(), "baseline", "fetch", "--suite", "s"],
        cwd=repo, capture_output=True, text=True, env=_environment(), check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "ragguard: error: --remote: origin is not a git repository git can read "
        f"('{os.fsdecode(os.path.dirname(repo))}/nowhere' does not appear to be a git "
        "repository)\n"
    ).replace(os.fsdecode(NAME), SHOWN)
    assert not os.path.exists(os.path.join(repo, b"baseline.json"))
