"""The harness itself: a trivial workflow under act reaches the fake GitHub with the job token."""

from __future__ import annotations

import pytest
from act_harness import Act, GitRepo, mirror
from fake_github import APP_TOKEN, FakeGitHub, Repo

PROBE_WORKFLOW = """\
name: probe
on: push
jobs:
  probe:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Ask the API for the repository
        shell: python
        env:
          TOKEN: ${{ github.token }}
        run: |
          import json, os, urllib.request
          url = f"{os.environ['GITHUB_API_URL']}/repos/{os.environ['GITHUB_REPOSITORY']}"
          request = urllib.request.Request(url, headers={"Authorization": f"token {os.environ['TOKEN']}"})
          print("full_name:", json.load(urllib.request.urlopen(request))["full_name"])
          print("sha:", os.environ["GITHUB_SHA"], "ref:", os.environ["GITHUB_REF"])
          print("checked out:", open("marker.txt").read().strip())
"""


@pytest.mark.e2e
def test_a_workflow_under_act_reaches_the_fake_with_the_job_token(
    act: Act, git_repo: GitRepo, fake: FakeGitHub, fake_repo: Repo
) -> None:
    sha = git_repo.commit(
        {".github/workflows/probe.yml": PROBE_WORKFLOW, "marker.txt": "from the test repo\n"}
    )
    mirror(fake, fake_repo, git_repo, "main")
    payload = {
        "ref": "refs/heads/main",
        "after": sha,
        "repository": {"full_name": git_repo.full_name, "default_branch": "main"},
    }

    run = act.run("push", payload, str(git_repo.path / ".github/workflows/probe.yml"))

    assert run.returncode == 0, run.output
    assert "full_name: octo-org/octo-repo" in run.output
    assert f"sha: {sha} ref: refs/heads/main" in run.output
    assert "checked out: from the test repo" in run.output
    calls = fake.api_requests(pattern=r"^/repos/octo-org/octo-repo$")
    assert [c.headers["Authorization"] for c in calls] == [f"token {APP_TOKEN}"]
