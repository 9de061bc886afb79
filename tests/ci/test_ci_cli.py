"""`ragguard ci` on the command line: bad environment is one line and exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ci_fixtures import EVENTS
from click.testing import CliRunner

from ragguard.cli.app import cli


def run_ci_command(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RAGGUARD_"))}
    return subprocess.run(
        [sys.executable, "-m", "ragguard", "ci", *args],
        env={**keep, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_outside_github_actions_it_says_so_in_one_line(tmp_path: Path) -> None:
    done = run_ci_command({"RAGGUARD_TOKEN": "t", "GITHUB_REPOSITORY": "o/r"}, tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "ragguard: error: GITHUB_EVENT_NAME: not set; `ragguard ci` runs inside GitHub Actions"
    ]


def test_a_missing_config_is_exit_2_before_any_request(tmp_path: Path) -> None:
    env = {
        "RAGGUARD_TOKEN": "t",
        "GITHUB_REPOSITORY": "octo-org/octo-repo",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(EVENTS / "pull_request.opened.json"),
        "GITHUB_API_URL": "http://127.0.0.1:9",  # nothing listens: a request would fail loudly
    }
    done = run_ci_command(env, tmp_path)
    assert done.returncode == 2, done.stderr
    assert "ragguard.yml: config file not found" in done.stderr
    assert "Traceback" not in done.stderr


def test_publish_is_ci_in_publish_mode(tmp_path: Path) -> None:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RAGGUARD_"))}
    env = {
        "RAGGUARD_TOKEN": "t",
        "GITHUB_REPOSITORY": "octo-org/octo-repo",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(EVENTS / "pull_request.opened.json"),
        "GITHUB_API_URL": "http://127.0.0.1:9",
    }
    done = subprocess.run(
        [sys.executable, "-m", "ragguard", "publish"],
        env={**keep, **env}, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    # Publishing on a pull_request event is refused before any request: the mode was applied.
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("ragguard: error:")]
    assert errors == [
        "ragguard: error: GITHUB_EVENT_PATH: publishing needs a workflow_run event "
        "(the run's id and head)"
    ]


def test_ci_parses_ragguard_yml_once_for_the_masks_and_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The masks read judge.api_key_env before the run loads the suite: one parse for both
    (the run stops at its broken test set, before any request)."""
    (tmp_path / "t.yaml").write_text("- id: q1\n")
    (tmp_path / "run.jsonl").write_text('{"id": "q1", "retrieved": ["a"]}\n')
    config = tmp_path / "ragguard.yml"
    config.write_text(
        "suite: s\ntestset: t.yaml\nsystem: {recorded: run.jsonl}\n"
        "judge: {base_url: 'http://127.0.0.1:9/v1', model: m, api_key_env: RAGGUARD_TEST_KEY}\n"
    )
    reads: list[Path] = []
    read_bytes = Path.read_bytes

    def counted(self: Path) -> bytes:
        if self.name == "ragguard.yml":
            reads.append(self)
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    env = {
        "GITHUB_ACTIONS": "true",
        "RAGGUARD_TOKEN": "a-token",
        "RAGGUARD_TEST_KEY": "a-judge-key",
        "RAGGUARD_CONFIG": str(config),
        "GITHUB_REPOSITORY": "octo-org/octo-repo",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(EVENTS / "pull_request.opened.json"),
        "GITHUB_API_URL": "http://127.0.0.1:9",  # nothing listens: a request would fail loudly
    }
    result = CliRunner().invoke(cli, ["ci"], env=env, prog_name="ragguard")
    assert result.exit_code == 2, result.output
    assert "t.yaml" in result.stderr
    assert "::add-mask::a-judge-key" in result.stdout
    assert reads == [config]
