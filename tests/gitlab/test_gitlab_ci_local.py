"""The GitLab recipe in docs/api.md, run as written by gitlab-ci-local against the fake GitLab.

gitlab-ci-local (npm) runs a ``.gitlab-ci.yml`` on this machine; ``--force-shell-executor``
runs the jobs in a local shell (the recipe's ``image:`` is not pulled). The jobs reach GitLab
only through ``CI_API_V4_URL``, pointed at the fake on loopback. The flow is GitLab's:

1. a default branch pipeline runs ``ragguard-baseline``; its ``results.json`` artifact is
   uploaded to the fake (GitLab keeps a job's artifacts; gitlab-ci-local leaves them in
   ``.gitlab-ci-local/artifacts/<job>/``);
2. a merge request pipeline runs ``ragguard-merge-request``: it downloads the baseline through
   the artifact endpoint, compares, writes the JUnit report and posts the note;
3. a second merge request pipeline, after a commit that breaks retrieval, fails the gate,
   updates the same note and still fails the job.

Skipped with the reason when node, gitlab-ci-local or rsync (which gitlab-ci-local needs) is
missing; ``.ci/run`` installs them and sets RAGGUARD_REQUIRE_GITLAB_CI_LOCAL=1, which turns
the skip into a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from fake_gitlab import ACCESS_TOKEN, JOB_TOKEN, PROJECT_ID, FakeGitLabServer

pytestmark = pytest.mark.e2e

REPO_ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- ragguard:comment suite=my-rag -->"
IID = "7"
GATE = "gate:\n  metrics: {hit_rate@1: {min: 0.9}}\n"


def recipe() -> str:
    """The `.gitlab-ci.yml` block of docs/api.md, byte for byte."""
    text = (REPO_ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    found = re.search(r"```yaml\n(# \.gitlab-ci\.yml\n.*?)```", text, re.DOTALL)
    assert found, "docs/api.md has no ```yaml block starting with # .gitlab-ci.yml"
    return found.group(1)


def missing_tools() -> str | None:
    for tool, how in (
        ("node", "apt-get install nodejs npm"),
        ("gitlab-ci-local", "npm install -g gitlab-ci-local@4.64.1"),
        ("rsync", "apt-get install rsync (gitlab-ci-local copies the checkout with it)"),
    ):
        if shutil.which(tool) is None:
            return f"{tool} is not installed ({how}; .ci/run installs it)"
    return None


@pytest.fixture
def tools() -> None:
    reason = missing_tools()
    if reason and os.environ.get("RAGGUARD_REQUIRE_GITLAB_CI_LOCAL") == "1":
        pytest.fail(reason)
    if reason:
        pytest.skip(reason)


def git(repo: Path, *args: str) -> None:
    identity = ["-c", "user.name=Dev", "-c", "user.email=dev@example.com"]
    subprocess.run(["git", *identity, *args], cwd=repo, check=True, capture_output=True)


def make_project(repo: Path) -> None:
    """`ragguard init`'s example suite with an absolute gate, committed on main."""
    repo.mkdir()
    subprocess.run(
        [sys.executable, "-m", "ragguard", "init"], cwd=repo, check=True, capture_output=True
    )
    (repo / ".gitlab-ci.yml").write_text(recipe(), encoding="utf-8")
    with (repo / "ragguard.yml").open("a", encoding="utf-8") as config:
        config.write(GATE)
    with (repo / ".gitignore").open("a", encoding="utf-8") as ignore:
        ignore.write(".gitlab-ci-local/\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "remote", "add", "origin", "https://gitlab.example.com/team/rag.git")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the suite")
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")


def run_job(
    repo: Path, gitlab: FakeGitLabServer, job: str, **variables: str
) -> subprocess.CompletedProcess[str]:
    """gitlab-ci-local runs one job of the recipe in a shell, the fake as the GitLab API."""
    job_variables = {
        "CI_API_V4_URL": gitlab.api_url,
        "CI_PROJECT_ID": PROJECT_ID,
        "CI_JOB_TOKEN": JOB_TOKEN,
        "RAGGUARD_INSTALL": "ragguard",  # already installed in this Python: no download
        **variables,
    }
    command = ["gitlab-ci-local", "--force-shell-executor", job]
    for name, value in job_variables.items():
        command += ["--variable", f"{name}={value}"]
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PIP_NO_INDEX": "1",
        "GCL_IGNORE_PREDEFINED_VARS": ",".join(["CI_API_V4_URL", "CI_PROJECT_ID", "CI_JOB_TOKEN"]),
        "HOME": str(repo.parent / "home"),
    }
    return subprocess.run(
        command, cwd=repo, env=env, capture_output=True, text=True, check=False, timeout=300
    )


def merge_request_variables() -> dict[str, str]:
    return {
        "CI_PIPELINE_SOURCE": "merge_request_event",
        "CI_MERGE_REQUEST_IID": IID,
        "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
        "RAGGUARD_GITLAB_TOKEN": ACCESS_TOKEN,
    }


def junit_failures(repo: Path) -> int:
    suites = ElementTree.parse(repo / "junit.xml").getroot()
    return sum(len(case.findall("failure")) for case in suites.iter("testcase"))


def break_retrieval(repo: Path) -> None:
    """The merge request's second commit ranks the chunks backwards."""
    system = repo / "eval" / "example_system.py"
    text = system.read_text(encoding="utf-8")
    system.write_text(
        text.replace("for chunk in ranked]", "for chunk in ranked[::-1]]").replace(
            "CHUNKS[ranked[0]]", "CHUNKS[ranked[-1]]"
        ),
        encoding="utf-8",
    )
    git(repo, "commit", "-q", "-am", "rank differently")


def test_the_recipe_runs_baseline_then_merge_request_notes(
    tools: None, gitlab: FakeGitLabServer, tmp_path: Path
) -> None:
    repo = tmp_path / "project"
    make_project(repo)
    gitlab.fake.notes[IID] = []
    gitlab.fake.add_note(IID, "Please take a look")

    baseline = run_job(repo, gitlab, "ragguard-baseline")
    assert baseline.returncode == 0, baseline.stdout + baseline.stderr
    stored = repo / ".gitlab-ci-local" / "artifacts" / "ragguard-baseline" / "results.json"
    gitlab.fake.artifacts[("main", "ragguard-baseline", "results.json")] = stored.read_bytes()
    (repo / "results.json").unlink(missing_ok=True)
    git(repo, "checkout", "-q", "-b", "feature")

    first = run_job(repo, gitlab, "ragguard-merge-request", **merge_request_variables())
    assert first.returncode == 0, first.stdout + first.stderr
    downloads = [r for r in gitlab.fake.requests if "/jobs/artifacts/" in r.path]
    assert [(r.status, r.headers.get("JOB-TOKEN")) for r in downloads] == [(200, JOB_TOKEN)]
    assert (repo / "baseline.json").read_bytes() == stored.read_bytes()
    assert junit_failures(repo) == 0
    [human, note] = gitlab.fake.notes[IID]
    assert note["body"] == (repo / "comment.md").read_text(encoding="utf-8")
    assert note["body"].startswith(MARKER) and human["body"] == "Please take a look"
    first_body = note["body"]
    assert "**pass**" in first_body

    break_retrieval(repo)
    second = run_job(repo, gitlab, "ragguard-merge-request", **merge_request_variables())
    assert second.returncode != 0, second.stdout
    assert junit_failures(repo) >= 1
    [_, updated] = gitlab.fake.notes[IID]
    assert updated["id"] == note["id"]
    assert updated["body"] == (repo / "comment.md").read_text(encoding="utf-8")
    assert updated["body"] != first_body and "`hit_rate@1` fails" in updated["body"]
    methods = [r.method for r in gitlab.fake.requests if "/notes" in r.path]
    assert methods == ["GET", "POST", "GET", "PUT"]


def test_a_merge_request_before_any_baseline_still_gets_its_note(
    tools: None, gitlab: FakeGitLabServer, tmp_path: Path
) -> None:
    repo = tmp_path / "project"
    make_project(repo)
    gitlab.fake.notes[IID] = []
    git(repo, "checkout", "-q", "-b", "feature")

    done = run_job(repo, gitlab, "ragguard-merge-request", **merge_request_variables())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no baseline yet" in done.stdout
    assert [r.status for r in gitlab.fake.requests if "/jobs/artifacts/" in r.path] == [404]
    assert not (repo / "baseline.json").exists()
    [note] = gitlab.fake.notes[IID]
    assert note["body"] == (repo / "comment.md").read_text(encoding="utf-8")
    assert junit_failures(repo) == 0
