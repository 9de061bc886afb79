"""`ragguard init` writes the workflow files the README shows, and never clobbers."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ragguard.config import STARTER_CONFIG
from ragguard.errors import InputError
from ragguard.scaffold import WORKFLOW_FILES, write_workflows

DOCUMENTED_WORKFLOWS = Path(__file__).resolve().parents[1] / "docs" / "workflows"


def test_the_written_workflows_are_the_documented_ones(tmp_path: Path) -> None:
    written = write_workflows(tmp_path / ".github" / "workflows")
    assert [path.name for path in written] == list(WORKFLOW_FILES)
    for path in written:
        documented = DOCUMENTED_WORKFLOWS / path.name
        assert path.read_text(encoding="utf-8") == documented.read_text(encoding="utf-8")
        assert yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"]


def test_an_existing_workflow_is_kept_unless_forced(tmp_path: Path) -> None:
    target = tmp_path / "workflows"
    target.mkdir()
    (target / "ragguard-publish.yml").write_text("mine\n")
    with pytest.raises(InputError, match="already exists; pass --force"):
        write_workflows(target)
    assert not (target / "ragguard.yml").exists(), "a refusal writes nothing"
    write_workflows(target, force=True)
    assert (target / "ragguard-publish.yml").read_text() != "mine\n"


def test_init_writes_the_config_and_the_workflows(ragguard_cli, tmp_path: Path, cli_error) -> None:
    config = tmp_path / "ragguard.yml"
    workflows = tmp_path / ".github" / "workflows"
    result = ragguard_cli("init", "-c", config, "--workflows", workflows)
    assert result.exit_code == 0, result.output
    assert config.read_text(encoding="utf-8") == STARTER_CONFIG
    assert sorted(p.name for p in workflows.iterdir()) == sorted(WORKFLOW_FILES)
    cli_error(["init", "-c", config, "--workflows", workflows], "already exists", "--force")
