"""Reading GitHub's environment and the action's inputs once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ci_fixtures import EVENTS

from ragguard.ci.settings import read_settings
from ragguard.core.errors import InputError


def actions_env(**extra: str) -> dict[str, str]:
    return {
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(EVENTS / "pull_request.opened.json"),
        "GITHUB_REPOSITORY": "Codertocat/Hello-World",
        "GITHUB_API_URL": "https://ghe.example.com/api/v3",
        "GITHUB_SERVER_URL": "https://ghe.example.com",
        "GITHUB_RUN_ID": "99",
        "GITHUB_REF": "refs/pull/2/merge",
        "GITHUB_SHA": "f" * 40,
        "GITHUB_OUTPUT": "/tmp/out",
        "GITHUB_STEP_SUMMARY": "/tmp/summary",
        "GITHUB_WORKSPACE": "/work/space",
        "RAGGUARD_TOKEN": "ghs_input",
        **extra,
    }


def test_defaults_and_github_environment() -> None:
    settings = read_settings(actions_env())
    assert settings.github.token == "ghs_input"
    assert settings.github.api_url == "https://ghe.example.com/api/v3"
    assert (
        settings.github.run_url == "https://ghe.example.com/Codertocat/Hello-World/actions/runs/99"
    )
    assert settings.event.pull_number == 2
    assert settings.config == Path("ragguard.yml")
    assert (settings.mode, settings.fail_on) == ("auto", "fail")
    # unset inputs stay unset: ragguard.yml's sections, then the defaults, decide (sections.py)
    assert (settings.comment_mode, settings.baseline_store, settings.baseline_branch) == (
        None,
        None,
        None,
    )
    assert settings.output_file == Path("/tmp/out")
    assert settings.summary_file == Path("/tmp/summary")
    assert settings.github.comment_author is None


def test_inputs_are_read_from_their_variables() -> None:
    settings = read_settings(
        actions_env(
            RAGGUARD_CONFIG="eval/ragguard.yml",
            RAGGUARD_MODE="evaluate",
            RAGGUARD_COMMENT_MODE="on-regression",
            RAGGUARD_BASELINE_STORE="artifact",
            RAGGUARD_BASELINE_BRANCH="eval-data",
            RAGGUARD_FAIL_ON="warn",
            RAGGUARD_PR="#12",
            RAGGUARD_TOKEN_IS_JOB_TOKEN="true",
            RAGGUARD_CACHE_DIR=".cache/judge",
        )
    )
    assert settings.config == Path("eval/ragguard.yml")
    assert settings.cache_dir == Path(".cache/judge")
    assert read_settings(actions_env()).cache_dir is None
    assert (settings.mode, settings.comment_mode) == ("evaluate", "on-regression")
    assert (settings.baseline_store, settings.baseline_branch) == ("artifact", "eval-data")
    assert (settings.fail_on, settings.pr) == ("warn", 12)
    assert settings.github.comment_author == "github-actions[bot]"


def test_pr_comes_from_the_dispatch_inputs_too(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text('{"inputs": {"pr": "31"}, "ref": "refs/heads/main"}')
    settings = read_settings(
        actions_env(GITHUB_EVENT_NAME="workflow_dispatch", GITHUB_EVENT_PATH=str(event))
    )
    assert settings.pr == 31


def test_the_reviewed_sha_comes_with_pr_from_the_inputs_or_the_dispatch(tmp_path: Path) -> None:
    sha = "0123456789abcdef0123456789ABCDEF01234567"
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"inputs": {"pr": "31", "sha": sha}}))
    settings = read_settings(
        actions_env(GITHUB_EVENT_NAME="workflow_dispatch", GITHUB_EVENT_PATH=str(event))
    )
    assert (settings.pr, settings.sha) == (31, sha.lower())
    assert read_settings(actions_env(RAGGUARD_PR="3", RAGGUARD_SHA=sha)).sha == sha.lower()
    assert read_settings(actions_env(RAGGUARD_PR="3")).sha is None


def test_fork_verdicts_are_advisory_unless_set_binding() -> None:
    assert read_settings(actions_env()).fork_verdicts == "advisory"
    assert read_settings(actions_env(RAGGUARD_FORK_VERDICTS="binding")).fork_verdicts == "binding"


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("RAGGUARD_MODE", "sometimes", "input mode: expected one of auto"),
        (
            "RAGGUARD_COMMENT_MODE",
            "sticky",
            "input comment-mode: expected one of new-on-worse, update",
        ),
        ("RAGGUARD_FAIL_ON", "error", "input fail-on: expected one of fail, warn, never"),
        ("RAGGUARD_PR", "12a", "input pr: expected a pull request number"),
        ("RAGGUARD_SHA", "abc123", "input sha: expected a full 40-character commit sha"),
        ("RAGGUARD_SHA", "--output=x" + "0" * 30, "input sha: expected a full 40-character"),
        ("RAGGUARD_SHA", "0" * 40, "input sha: names the reviewed head of a pull request"),
        ("RAGGUARD_FORK_VERDICTS", "yes", "input fork-verdicts: expected one of advisory"),
        ("RAGGUARD_BASELINE_STORE", "s3", "input baseline-store: expected one of branch"),
        ("GITHUB_REPOSITORY", "no-slash", "GITHUB_REPOSITORY: expected owner/name"),
    ],
)
def test_bad_values_are_one_line_errors_naming_the_input(
    variable: str, value: str, message: str
) -> None:
    with pytest.raises(InputError) as caught:
        read_settings(actions_env(**{variable: value}))
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_without_a_token_it_says_which_input_to_set() -> None:
    env = actions_env()
    del env["RAGGUARD_TOKEN"]
    with pytest.raises(InputError, match="github-token"):
        read_settings(env)
