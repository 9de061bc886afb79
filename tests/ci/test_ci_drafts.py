"""Drafted questions in a pull request (docs/review.md): `ragguard ci` against the fake
GitHub lists them folded in the comment and the job summary, says the gate counts reviewed
questions only, and gates without them, however badly the system answers them."""

from __future__ import annotations

from pathlib import Path

from fake_github import FakeGitHub, Repo
from test_ci_glue import (
    GOOD_RUN,
    HALLUCINATED,
    TESTSET,
    collaborators,
    open_pull,
    pull_event,
    run_line,
    save_main_baseline,
    settings_for,
)

from ragguard.ci.glue import run_ci

DRAFT = """\
- id: drafted-retry
  question: "Does the API <b>retry</b> for me? [click](https://evil.example)"
  relevant:
    - {doc: rate-limits.md, quote: "wait the seconds in the Retry-After header"}
  reference_answer: No; wait for **Retry-After**, then retry.
  kind: single-hop
  source: rate-limits.md
  critical: true
  status: draft
"""
GATE_LINE = (
    "The gate counts reviewed questions only: 1 drafted question awaits review (listed below) "
    "and was not evaluated."
)


def _pull_with_a_draft(fake: FakeGitHub, repo: Repo, suite: Path) -> tuple[object, str]:
    save_main_baseline(fake, repo, suite)
    number = open_pull(fake, repo)
    (suite / "eval" / "testset.yaml").write_text(TESTSET + DRAFT)
    wrong = run_line("drafted-retry", "auth", "unrelated", HALLUCINATED)
    (suite / "eval" / "run.jsonl").write_text(GOOD_RUN + wrong)
    settings = settings_for(fake, suite, "pull_request", pull_event(repo, number))
    outcome = run_ci(settings, collaborators(settings, []))
    [comment] = [c for c in repo.comments.values() if c.issue_number == number]
    return outcome, comment.body


def test_the_gate_ignores_a_draft_the_system_gets_wrong(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    outcome, body = _pull_with_a_draft(fake, fake_repo, suite)
    assert (outcome.comparison.verdict, outcome.state, outcome.exit_code) == (
        "pass",
        "success",
        0,
    )
    assert sorted(q.id for q in outcome.comparison.questions) == ["auth", "retry-429"]
    assert "drafted\\-retry" not in body.split("<details><summary>1 drafted")[0]


def test_the_comment_lists_the_draft_folded_and_escaped_with_the_gate_line(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    _, body = _pull_with_a_draft(fake, fake_repo, suite)
    lines = body.splitlines()
    assert lines[lines.index(GATE_LINE) - 2 : lines.index(GATE_LINE)] == [
        "Compared 2 questions (the same set in both runs). No metric moved and no question "
        "changed.",
        "",
    ]  # near the verdict, under its lines
    block = body[body.index("<details><summary>1 drafted question awaits review</summary>") :]
    block = block[: block.index("</details>")]
    assert "<b>" not in block and "](https" not in block
    assert "&lt;b&gt;retry&lt;/b&gt;" in block
    assert "(`drafted\\-retry` · single\\-hop)" in block
    assert (
        "  - evidence: rate\\-limits\\.md: “wait the seconds in the Retry\\-After header”" in block
    )
    assert "  - reference answer: No; wait for \\*\\*Retry\\-After\\*\\*, then retry\\." in block
    summary = (suite / "step-summary.md").read_text()
    assert GATE_LINE in summary
    assert "<details><summary>1 drafted question awaits review</summary>" in summary


def test_no_draft_no_line_and_no_block(fake: FakeGitHub, fake_repo: Repo, suite: Path) -> None:
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    run_ci(settings, collaborators(settings, []))
    [comment] = [c for c in fake_repo.comments.values() if c.issue_number == number]
    assert "drafted" not in comment.body
