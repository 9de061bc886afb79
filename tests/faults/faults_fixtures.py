"""Helpers for the fault-injection tests: a two-question suite run by `ragguard ci` against the
fake GitHub, with every wait cut short (fixtures themselves live in conftest.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fake_github import BOT_LOGIN, FakeGitHub, Repo
from github_fixtures import REPOSITORY, fast_settings

from ragguard.ci.collaborators import Collaborators
from ragguard.ci.evaluate import evaluate_config
from ragguard.ci.outputs import parse_output_file
from ragguard.ci.settings import CiSettings
from ragguard.github import GitHubClient, read_event

__all__ = ["REPOSITORY", "SUITE"]

SUITE = "orders"
TESTSET = """\
- id: retry-429
  question: How should a client retry after a 429 response?
  relevant: [rate-limits]
- id: auth
  question: How do I authenticate?
  relevant: [auth]
"""
RATE = "After a 429 response, wait the seconds in the Retry-After header, then retry."
AUTH = "Send the API key in the Authorization header as a bearer token."
# GitHub's client timeout in these tests (PyGithub takes whole seconds), and a hang past it.
TIMEOUT = 1
HANG = 1.5


def run_line(qid: str, chunk: str, text: str) -> str:
    return json.dumps({"id": qid, "retrieved": [{"id": chunk, "text": text}], "answer": text})


GOOD_RUN = run_line("retry-429", "rate-limits", RATE) + "\n" + run_line("auth", "auth", AUTH) + "\n"


def write_suite(
    root: Path, system: str = "recorded: eval/run.jsonl", metrics: str = "[hit_rate@1, mrr]"
) -> Path:
    """ragguard.yml, the test set and a recorded run under ``root``; ``system`` is the body of
    the ``system:`` section (one line per key, already YAML)."""
    (root / "eval").mkdir(parents=True, exist_ok=True)
    body = "\n".join(f"  {line}" for line in system.splitlines())
    config = f"suite: {SUITE}\ntestset: eval/testset.yaml\nsystem:\n{body}\nmetrics: {metrics}\n"
    (root / "ragguard.yml").write_text(config, encoding="utf-8")
    (root / "eval" / "testset.yaml").write_text(TESTSET, encoding="utf-8")
    (root / "eval" / "run.jsonl").write_text(GOOD_RUN, encoding="utf-8")
    return root


def ci_settings(
    fake: FakeGitHub, suite: Path, event: str, payload: dict[str, Any], **github: object
) -> CiSettings:
    """`ragguard ci` settings for ``event``: two retries with no backoff, a short timeout."""
    options: dict[str, object] = {"retries": 2, "timeout": TIMEOUT, **github}
    settings = fast_settings(fake, event_name=event, comment_author=BOT_LOGIN, **options)
    return CiSettings(
        github=settings,
        event=read_event(event, payload),
        config=suite / "ragguard.yml",
        results_dir=suite / "ragguard-results",
        output_file=suite / "github-output",
        summary_file=suite / "step-summary.md",
    )


def ci_collaborators(settings: CiSettings, lines: list[str], **kw: Any) -> Collaborators:
    """The real evaluation and GitHub client; commit times and the checkout are given."""
    return Collaborators(
        github=GitHubClient(settings.github),
        evaluate=kw.pop("evaluate", evaluate_config),
        commit_time=kw.pop("commit_time", lambda sha: "2026-01-05T12:00:00Z"),
        head_commit=lambda: None,
        rerun=lambda *args: None,
        log=lines.append,
    )


def push_event(repo: Repo, sha: str | None = None) -> dict[str, Any]:
    return {
        "ref": "refs/heads/main",
        "after": sha or repo.refs["heads/main"],
        "repository": {"full_name": REPOSITORY, "default_branch": "main"},
    }


def pull_event(repo: Repo, number: int, head_sha: str | None = None) -> dict[str, Any]:
    pull = repo.pulls[number]
    head = {
        "sha": head_sha or pull.head_sha,
        "ref": pull.head_ref,
        "repo": {"full_name": REPOSITORY},
    }
    return {
        "number": number,
        "pull_request": {
            "number": number,
            "head": head,
            "base": {"ref": "main", "repo": {"full_name": REPOSITORY}},
        },
        "repository": {"full_name": REPOSITORY, "default_branch": "main"},
    }


def open_pull(fake: FakeGitHub, repo: Repo, branch: str = "feature") -> int:
    fake.branch_from(repo, branch, "main")
    fake.commit(repo, branch, {"prompt.txt": b"be creative"}, "Change the prompt")
    return fake.add_pull(repo, branch).number


def push_commit(fake: FakeGitHub, repo: Repo, number: int) -> str:
    """A new commit on pull request ``number``'s branch; the pull request's head moves to it."""
    pull = repo.pulls[number]
    pull.head_sha = fake.commit(repo, pull.head_ref, {"prompt.txt": b"be precise"}, "Fix").sha
    return pull.head_sha


@dataclass(frozen=True)
class Left:
    """What a run left in its results folder and its step outputs."""

    results: dict[str, Any] | None
    comment: str | None
    outputs: dict[str, str]


def left_behind(suite: Path) -> Left:
    out = suite / "ragguard-results"
    results = out / "results.json"
    comment = out / "comment.md"
    output_file = suite / "github-output"
    return Left(
        json.loads(results.read_text(encoding="utf-8")) if results.exists() else None,
        comment.read_text(encoding="utf-8") if comment.exists() else None,
        parse_output_file(output_file.read_text(encoding="utf-8")) if output_file.exists() else {},
    )


def statuses_of(repo: Repo, sha: str) -> list[str]:
    return [status.state for status in repo.statuses if status.sha == sha]


def comments_on(repo: Repo, number: int) -> list[str]:
    return [
        c.body
        for c in sorted(repo.comments.values(), key=lambda c: c.id)
        if c.issue_number == number
    ]
