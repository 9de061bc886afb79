"""`ragguard init --matrix` writes the job-matrix workflow in ragguard.yml's place."""

from __future__ import annotations

from pathlib import Path

import yaml

from ragguard.demo.scaffold import MATRIX_WORKFLOW, WORKFLOW_FILES, write_workflows

DOCUMENTED_WORKFLOWS = Path(__file__).resolve().parents[1] / "docs" / "workflows"


def test_matrix_writes_the_sharded_workflow_as_ragguard_yml(tmp_path: Path) -> None:
    written = write_workflows(tmp_path, matrix=True)
    assert [path.name for path in written] == list(WORKFLOW_FILES)
    matrix = (DOCUMENTED_WORKFLOWS / MATRIX_WORKFLOW).read_text(encoding="utf-8")
    assert (tmp_path / "ragguard.yml").read_text(encoding="utf-8") == matrix
    publish = (DOCUMENTED_WORKFLOWS / "ragguard-publish.yml").read_text(encoding="utf-8")
    assert (tmp_path / "ragguard-publish.yml").read_text(encoding="utf-8") == publish
    jobs = yaml.safe_load(matrix)["jobs"]
    assert jobs["shard"]["strategy"]["matrix"]["shard"] == [1, 2, 3]
    assert jobs["pull-request"]["needs"] == jobs["baseline"]["needs"] == "shard"


def test_init_matrix_on_the_command_line(ragguard_cli, tmp_path: Path) -> None:
    workflows = tmp_path / "workflows"
    result = ragguard_cli(
        "init", "-c", tmp_path / "ragguard.yml", "--workflows", workflows, "--matrix"
    )
    assert result.exit_code == 0, result.output
    assert "parts: ragguard-parts" in (workflows / "ragguard.yml").read_text(encoding="utf-8")


def test_matrix_workflow_keeps_least_privilege_per_job() -> None:
    workflow = yaml.safe_load((DOCUMENTED_WORKFLOWS / MATRIX_WORKFLOW).read_text(encoding="utf-8"))
    assert workflow["permissions"] == {}
    jobs = workflow["jobs"]
    # the shard jobs run the pull request's code: nothing they may write
    assert "write" not in jobs["shard"]["permissions"].values()
    assert jobs["pull-request"]["permissions"]["contents"] == "read"
    assert jobs["baseline"]["permissions"]["contents"] == "write"
    # only a push or a dispatch saves the baseline (docs/action.md)
    assert (
        "(github.event_name == 'push' || github.event_name == 'workflow_dispatch')"
        in (jobs["baseline"]["if"])
    )
    # the accept job runs the default branch's code: it may set statuses and comment only
    assert jobs["accept"]["permissions"] == {
        "contents": "read",
        "pull-requests": "write",
        "statuses": "write",
    }
    # the merging jobs run when a shard failed, so the missing part ends in an error status
    assert all("!cancelled()" in jobs[name]["if"] for name in ("pull-request", "baseline"))
