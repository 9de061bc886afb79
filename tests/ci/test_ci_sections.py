"""ragguard.yml's baseline: and comment: sections, merged with the action's inputs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ragguard.ci.options import ci_options
from ragguard.ci.settings import CiSettings
from ragguard.config.load import load_config
from ragguard.core.errors import InputError
from ragguard.github import GitHubSettings, read_event

BASE = "suite: s\ntestset: t.yaml\nsystem: {recorded: run.jsonl}\n"


def config_with(tmp_path: Path, extra: str):
    (tmp_path / "t.yaml").write_text("- id: q1\n  question: Q?\n  relevant: [a]\n")
    (tmp_path / "run.jsonl").write_text('{"id": "q1", "retrieved": ["a"]}\n')
    (tmp_path / "ragguard.yml").write_text(BASE + extra)
    return load_config(tmp_path / "ragguard.yml")


def bare_settings() -> CiSettings:
    return CiSettings(
        github=GitHubSettings(token="t", repository="o/r"),
        event=read_event("push", {}),
        config=Path("ragguard.yml"),
    )


def test_defaults_without_sections_or_inputs(tmp_path: Path) -> None:
    options = ci_options(bare_settings(), config_with(tmp_path, ""))
    assert (options.comment_mode, options.baseline_store, options.baseline_branch) == (
        "new-on-worse",
        "branch",
        "ragguard-data",
    )


def test_sections_apply_and_set_inputs_win(tmp_path: Path) -> None:
    config = config_with(
        tmp_path,
        "comment: {mode: on-regression}\nbaseline: {store: file, file: eval/base.json}\n",
    )
    options = ci_options(bare_settings(), config)
    assert (options.comment_mode, options.baseline_store) == ("on-regression", "file")
    assert options.baseline_file == tmp_path.resolve() / "eval" / "base.json"
    inputs = replace(bare_settings(), comment_mode="off", baseline_store="branch")
    options = ci_options(inputs, config)
    assert (options.comment_mode, options.baseline_store) == ("off", "branch")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            "comment: {mode: loud}\n",
            "ragguard.yml:4: comment.mode: expected one of new-on-worse, update",
        ),
        ("baseline:\n  store: s3\n", "ragguard.yml:5: baseline.store: expected one of branch"),
        ("baseline:\n  brnch: x\n", "ragguard.yml:5: baseline.brnch: unknown key"),
        ("baseline:\n  store: file\n", "ragguard.yml:5: baseline.store: store: file needs file:"),
        ("comment: update\n", "ragguard.yml:4: comment: expected a mapping"),
    ],
)
def test_mistakes_name_the_line_and_key(tmp_path: Path, extra: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        ci_options(bare_settings(), config_with(tmp_path, extra))
    text = str(caught.value).removeprefix(f"{tmp_path}/")
    assert text.startswith(message), text
