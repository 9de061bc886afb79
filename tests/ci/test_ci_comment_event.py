"""#31: ``ragguard ci`` on an ``issue_comment`` with ``mode`` or ``pr`` set evaluates the pull
request (its payload names no head commit: the head comes from the API), or refuses in one
line; it never exits 0 having evaluated nothing. A comment with neither is what docs/action.md
says: ``/ragguard accept`` accepts, anything else is nothing to do."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_github import FakeGitHub, Repo
from test_ci_glue import SUITE, collaborators, open_pull, save_main_baseline, settings_for
from test_ci_governance import accept_comment, head_status, sticky

from ragguard.ci.glue import run_ci
from ragguard.core.errors import InputError


def _comment_run(
    fake: FakeGitHub, suite: Path, number: int, lines: list[str], **kw: object
) -> tuple[object, str]:
    payload = accept_comment(fake, number, "maintainer", "please evaluate this again")
    head_commit = kw.pop("head_commit", lambda: None)
    settings = settings_for(fake, suite, "issue_comment", payload, **kw)
    return run_ci(settings, collaborators(settings, lines, head_commit=head_commit)), payload


@pytest.mark.parametrize("asked", [{"mode": "pull-request"}, {"pr": "the number"}])
def test_a_comment_run_asked_to_evaluate_the_pull_request_evaluates_its_head(
    fake: FakeGitHub, fake_repo: Repo, suite: Path, asked: dict
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    head = fake_repo.pulls[number].head_sha
    given = {key: number if value == "the number" else value for key, value in asked.items()}
    lines: list[str] = []

    outcome, _ = _comment_run(fake, suite, number, lines, **given)

    assert outcome.comparison is not None and outcome.comparison.verdict == "pass"
    assert (outcome.state, outcome.exit_code) == ("success", 0)
    assert head_status(fake, fake_repo, number)[0] == "success"  # on the head the API gave
    assert "<!-- ragguard:outcome verdict=pass state=success -->" in sticky(fake_repo, number)
    assert any(f"#{number} at its current head {head[:12]}" in line for line in lines)
    assert (suite / "ragguard-results" / "results.json").is_file()
    assert any("without the sha input" in line for line in lines)  # what that risks


def test_a_comment_run_on_another_checkout_is_refused_in_one_line(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    """An issue_comment runs the default branch's checkout: evaluating it as the pull
    request's head would judge the wrong code."""
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    main = fake_repo.refs["heads/main"]
    with pytest.raises(InputError) as raised:
        _comment_run(fake, suite, number, [], mode="pull-request", head_commit=lambda: main)
    assert str(raised.value).startswith("input mode: the checkout is")
    assert f"refs/pull/{number}/head" in str(raised.value)


def test_mode_pull_request_on_an_issues_comment_is_refused(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    payload = accept_comment(fake, 7, "maintainer", "please evaluate")
    del payload["issue"]["pull_request"]  # a comment on an issue, not a pull request
    settings = settings_for(fake, suite, "issue_comment", payload, mode="pull-request")
    with pytest.raises(InputError, match="input mode: pull-request needs a pull request"):
        run_ci(settings, collaborators(settings, []))


def test_a_plain_comment_without_mode_or_pr_is_still_nothing_to_do(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    lines: list[str] = []
    outcome, _ = _comment_run(fake, suite, number, lines)
    assert outcome.comparison is None and outcome.exit_code == 0
    assert f"ragguard/{SUITE}" not in fake.latest_statuses(
        fake_repo, fake_repo.pulls[number].head_sha
    )
    assert any("not a new /ragguard accept" in line for line in lines)
