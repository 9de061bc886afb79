"""``ragguard gitlab-note`` as a job runs it: a subprocess, the job's variables, the fake."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_gitlab import ACCESS_TOKEN, JOB_TOKEN, PROJECT_ID, FakeGitLabServer

MARKER = "<!-- ragguard:comment suite=orders -->"


def run_note(tmp_path: Path, env: dict[str, str], text: str = f"{MARKER}\nok\n") -> Any:
    (tmp_path / "comment.md").write_text(text, encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CI_", "RAGGUARD_"))}
    return subprocess.run(
        [sys.executable, "-m", "ragguard", "gitlab-note", "comment.md"],
        cwd=tmp_path,
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def job_env(server: FakeGitLabServer, token: str = ACCESS_TOKEN) -> dict[str, str]:
    return {
        "CI_API_V4_URL": server.api_url,
        "CI_PROJECT_ID": PROJECT_ID,
        "CI_MERGE_REQUEST_IID": "7",
        "RAGGUARD_GITLAB_TOKEN": token,
    }


def test_posts_then_updates_and_says_so(gitlab: FakeGitLabServer, tmp_path: Path) -> None:
    gitlab.fake.notes["7"] = []
    first = run_note(tmp_path, job_env(gitlab))
    second = run_note(tmp_path, job_env(gitlab), f"{MARKER}\nchanged\n")
    note_id = gitlab.fake.notes["7"][0]["id"]
    assert (first.returncode, first.stderr) == (0, "")
    assert first.stdout == f"ragguard: merge request !7: note {note_id} created\n"
    assert second.stdout == f"ragguard: merge request !7: note {note_id} updated\n"
    assert [n["body"] for n in gitlab.fake.notes["7"]] == [f"{MARKER}\nchanged\n"]


@pytest.mark.parametrize(
    ("missing", "advice"),
    [
        ("CI_MERGE_REQUEST_IID", "run this in a merge request pipeline"),
        ("RAGGUARD_GITLAB_TOKEN", "add a masked CI/CD variable"),
    ],
)
def test_a_missing_variable_is_one_line_naming_it(
    gitlab: FakeGitLabServer, tmp_path: Path, missing: str, advice: str
) -> None:
    env = job_env(gitlab)
    del env[missing]
    done = run_note(tmp_path, env)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"ragguard: error: {missing}: not set; {advice}")
    assert done.stderr.count("\n") == 1
    assert gitlab.fake.requests == []


def test_a_file_without_the_marker_is_bad_input(gitlab: FakeGitLabServer, tmp_path: Path) -> None:
    done = run_note(tmp_path, job_env(gitlab), "just text\n")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("ragguard: error: comment.md: does not start with ragguard's")
    assert gitlab.fake.requests == []


def test_gitlab_refusing_exits_3_with_its_reason(gitlab: FakeGitLabServer, tmp_path: Path) -> None:
    gitlab.fake.notes["7"] = []
    done = run_note(tmp_path, job_env(gitlab, JOB_TOKEN))
    assert (done.returncode, done.stdout) == (3, "")
    assert done.stderr.startswith(
        "ragguard: error: GitLab: list the notes failed (401): 401 Unauthorized"
    )
    assert done.stderr.count("\n") == 1
