"""What `ragguard ci` is told: GitHub's environment and the action's inputs, read once.

action.yml passes each input in its own ``RAGGUARD_*`` variable (never interpolated into a
script), so this module is the one place that reads the environment; everything after it
works on the frozen :class:`CiSettings`. Bad values are a one-line ``InputError`` naming the
input.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ragguard.config.load import DEFAULT_CONFIG_NAME
from ragguard.config.sections.ci import BASELINE_STORES, COMMENT_MODES
from ragguard.config.sections.system import REPEAT_EXPECTED, is_whole_repeat
from ragguard.core.errors import InputError
from ragguard.core.files import check_writable
from ragguard.core.sources import ascii_int, bad_path
from ragguard.github import EventContext, GitHubSettings, load_event
from ragguard.github.connection import settings_from_env
from ragguard.testset.shards import Shard, parse_shard

MODES = ("auto", "pull-request", "baseline", "evaluate", "publish")
FAIL_ON = ("fail", "warn", "never")
ADVISORY, BINDING = "advisory", "binding"
FORK_VERDICTS = (ADVISORY, BINDING)
_FULL_SHA = re.compile(r"[0-9a-f]{40}")

# input name -> environment variable set by action.yml
INPUT_VARIABLES = {
    "config": "RAGGUARD_CONFIG",
    "github-token": "RAGGUARD_TOKEN",
    "mode": "RAGGUARD_MODE",
    "comment-mode": "RAGGUARD_COMMENT_MODE",
    "baseline-store": "RAGGUARD_BASELINE_STORE",
    "baseline-branch": "RAGGUARD_BASELINE_BRANCH",
    "baseline-file": "RAGGUARD_BASELINE_FILE",
    "fail-on": "RAGGUARD_FAIL_ON",
    "pr": "RAGGUARD_PR",
    "results-dir": "RAGGUARD_RESULTS_DIR",
    "cache-dir": "RAGGUARD_CACHE_DIR",
    "shard": "RAGGUARD_SHARD",
    "parts": "RAGGUARD_PARTS",
    "repeat": "RAGGUARD_REPEAT",
    "sha": "RAGGUARD_SHA",
    "fork-verdicts": "RAGGUARD_FORK_VERDICTS",
}


@dataclass(frozen=True)
class CiSettings:
    """Everything `ragguard ci` uses from outside, as values."""

    github: GitHubSettings
    event: EventContext
    config: Path
    mode: str = "auto"
    # None: not set as an input; ragguard.yml's comment:/baseline: sections or the default apply
    comment_mode: str | None = None
    baseline_store: str | None = None
    baseline_branch: str | None = None
    baseline_file: Path | None = None
    fail_on: str = "fail"
    pr: int | None = None
    results_dir: Path = Path("ragguard-results")
    cache_dir: Path | None = None  # None: judge.cache in ragguard.yml
    shard: Shard | None = None  # a matrix job: evaluate this shard only, report nothing
    parts: str | None = None  # the final job: merge these shard results instead of running
    output_file: Path | None = None
    summary_file: Path | None = None
    repeat: int | None = None  # None: system.repeat in ragguard.yml (default 1)
    sha: str | None = None  # with pr: the head the maintainer reviewed; refused if it moved
    fork_verdicts: str = ADVISORY  # publish: whether a fork run's own verdict may pass


def _input(env: Mapping[str, str], name: str, default: str = "") -> str:
    return env.get(INPUT_VARIABLES[name], "").strip() or default


def _choice(env: Mapping[str, str], name: str, allowed: tuple[str, ...], default: str) -> str:
    value = _input(env, name, default)
    if value not in allowed and (value or default):
        raise InputError(f"input {name}", f"expected one of {', '.join(allowed)}, found {value!r}")
    return value


def _pr_number(env: Mapping[str, str], event: EventContext) -> int | None:
    """The ``pr`` input, or the workflow_dispatch input of that name."""
    value = _input(env, "pr") or event.dispatch_inputs.get("pr", "").strip()
    if not value:
        return None
    number = ascii_int(value.removeprefix("#"))
    if number is None or number < 1:
        raise InputError("input pr", f"expected a pull request number such as 42, found {value!r}")
    return number


def _reviewed_sha(env: Mapping[str, str], event: EventContext, pr: int | None) -> str | None:
    """The ``sha`` input (or workflow_dispatch input): the head a maintainer reviewed."""
    value = _input(env, "sha") or event.dispatch_inputs.get("sha", "").strip()
    if not value:
        return None
    if not _FULL_SHA.fullmatch(value.lower()):
        raise InputError(
            "input sha", f"expected a full 40-character commit sha, found {value[:60]!r}"
        )
    if pr is None:
        raise InputError(
            "input sha", "names the reviewed head of a pull request: set pr as well, or leave it"
        )
    return value.lower()


def _shard(env: Mapping[str, str]) -> Shard | None:
    """The ``shard`` input, ``i/n`` as ``ragguard run --shard`` takes it."""
    value = _input(env, "shard")
    if not value:
        return None
    try:
        return parse_shard(value)
    except InputError as exc:
        raise InputError("input shard", exc.message.replace("--shard", "shard:")) from None


def _parts(env: Mapping[str, str]) -> str | None:
    """The ``parts`` input; a job either runs a shard or merges the shards, never both."""
    value = _input(env, "parts")
    if value and _input(env, "shard"):
        raise InputError(
            "input parts",
            "set either shard (the matrix jobs) or parts (the final job that merges them), "
            "not both",
        )
    return value or None


def _repeat(env: Mapping[str, str]) -> int | None:
    """The ``repeat`` input: how many times each question is asked (system.repeat)."""
    value = _input(env, "repeat")
    if not value:
        return None
    number = ascii_int(value)
    if number is None or not is_whole_repeat(number):
        raise InputError("input repeat", f"{REPEAT_EXPECTED}, found {value!r}")
    return number


def _path(value: str) -> Path | None:
    return Path(value) if value else None


def _folder(env: Mapping[str, str], name: str, default: str = "") -> Path | None:
    """A folder input: refused when it names an existing file (it could not be created)."""
    value = _input(env, name, default)
    if not value:
        return None
    path = Path(value)
    try:
        if path.exists() and not path.is_dir():
            raise InputError(f"input {name}", f"{value!r} is a file, expected a folder")
        check_writable(path / "results.json")
    except (OSError, ValueError) as exc:
        raise InputError(f"input {name}", bad_path(value, exc).message) from None
    except InputError as exc:
        raise InputError(f"input {name}", exc.message) from None
    return path


def read_settings(env: Mapping[str, str]) -> CiSettings:
    """Read the environment once; InputError names the input or variable that is wrong."""
    try:
        github = settings_from_env(env, token=_input(env, "github-token") or None)
        event = load_event(env)
    except ValueError as exc:
        where, _, message = str(exc).partition(": ")
        raise InputError(where, message or str(exc)) from None
    if env.get("RAGGUARD_TOKEN_IS_JOB_TOKEN", "").strip().lower() == "true":
        github = _with_author(github, "github-actions[bot]")
    pr = _pr_number(env, event)
    return CiSettings(
        github=github,
        event=event,
        config=Path(_input(env, "config", DEFAULT_CONFIG_NAME)),
        mode=_choice(env, "mode", MODES, "auto"),
        comment_mode=_choice(env, "comment-mode", COMMENT_MODES, "") or None,
        baseline_store=_choice(env, "baseline-store", BASELINE_STORES, "") or None,
        baseline_branch=_input(env, "baseline-branch") or None,
        baseline_file=_path(_input(env, "baseline-file")),
        fail_on=_choice(env, "fail-on", FAIL_ON, "fail"),
        pr=pr,
        sha=_reviewed_sha(env, event, pr),
        fork_verdicts=_choice(env, "fork-verdicts", FORK_VERDICTS, ADVISORY),
        results_dir=_folder(env, "results-dir", "ragguard-results") or Path("ragguard-results"),
        cache_dir=_folder(env, "cache-dir"),
        shard=_shard(env),
        parts=_parts(env),
        repeat=_repeat(env),
        output_file=_path(env.get("GITHUB_OUTPUT", "")),
        summary_file=_path(env.get("GITHUB_STEP_SUMMARY", "")),
    )


def _with_author(github: GitHubSettings, login: str) -> GitHubSettings:
    """The job token's comments are by github-actions[bot]: saves a GET /user per update."""
    return replace(github, comment_author=login)
