"""The pull request comment's line naming changed corpus documents no question covers
(ci/corpus_note.py): a real git checkout mirrored into the fake GitHub, `ragguard ci` run
through its glue as test_ci_glue.py does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from act_harness import GitRepo, mirror
from ci_fixtures import REPOSITORY
from fake_github import FakeGitHub, Repo
from test_ci_glue import CONFIG, collaborators, pull_event, settings_for

sys.path.insert(0, str(Path(__file__).parents[1] / "testset" / "drafting"))
from pdf_bytes import tiny_pdf

from ragguard.ci.collaborators import Target
from ragguard.ci.corpus_note import uncovered_changes_note
from ragguard.ci.glue import run_ci
from ragguard.config.load import load_config

EVIDENCE_TESTSET = """\
- id: retry-429
  question: How should a client retry after a 429 response?
  relevant: [{doc: rate-limits.md, quote: "wait the seconds in the Retry-After header"}]
- id: auth
  question: How do I authenticate?
  relevant: [{doc: auth.md}]
"""
DOCS = {
    "docs/rate-limits.md": "# Rate limits\nAfter a 429, wait the seconds in the Retry-After header.\n",
    "docs/auth.md": "# Auth\nSend the API key as a bearer token.\n",
    "docs/billing/*refunds*.md": "# Refunds\nRefunds take five days.\n",
}
LINE_START = "This pull request changes"


def _pull_changing(
    fake: FakeGitHub, repo: Repo, suite: Path, changes: dict[str, str]
) -> tuple[str, list[str]]:
    (suite / "ragguard.yml").write_text(CONFIG + "corpus: docs\n")
    (suite / "eval" / "testset.yaml").write_text(EVIDENCE_TESTSET)
    git = GitRepo.create(suite, REPOSITORY)
    git.commit({".gitignore": "ragguard-results/\n", **DOCS}, "Suite and corpus")
    git.switch("feature", create=True)
    git.commit(changes, "Edit the docs")
    mirror(fake, repo, git, "main", "feature")
    number = fake.add_pull(repo, "feature").number
    settings = settings_for(fake, suite, "pull_request", pull_event(repo, number))
    lines: list[str] = []
    run_ci(settings, collaborators(settings, lines))
    [comment] = [c for c in repo.comments.values() if c.issue_number == number]
    return comment.body, lines


def test_a_pull_request_editing_a_document_no_question_covers_gets_one_line_naming_it(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    body, _ = _pull_changing(
        fake,
        fake_repo,
        suite,
        {"docs/billing/*refunds*.md": "# Refunds\nRefunds take ten days.\n", "docs/auth.md": "x"},
    )
    [line] = [line for line in body.splitlines() if LINE_START in line]
    assert line == (
        "This pull request changes 1 corpus document that no question covers: "
        "billing/\\*refunds\\*\\.md."
    )
    assert body == (suite / "ragguard-results" / "comment.md").read_text()


def test_no_line_when_every_changed_document_is_covered_or_nothing_in_the_corpus_changed(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    body, lines = _pull_changing(
        fake,
        fake_repo,
        suite,
        {"docs/rate-limits.md": "# Rate limits\nNew text.\n", "README.md": "not corpus\n"},
    )
    assert LINE_START not in body
    assert not any("corpus documents" in line for line in lines)


def test_when_git_cannot_diff_against_the_merge_base_the_log_says_why_and_the_comment_nothing(
    suite: Path,
) -> None:
    (suite / "ragguard.yml").write_text(CONFIG + "corpus: docs\n")
    (suite / "eval" / "testset.yaml").write_text(EVIDENCE_TESTSET)
    git = GitRepo.create(suite, REPOSITORY)
    git.git("remote", "set-url", "origin", str(suite / "no-such-remote"))  # no fetch from it
    head = git.commit(DOCS, "Suite and corpus")
    lines: list[str] = []
    target = Target(head, "main", 7)

    note = uncovered_changes_note(
        load_config(suite / "ragguard.yml"), target, "f" * 40, lines.append
    )

    assert note == ""
    [line] = lines
    assert line.startswith(
        "ragguard: orders: cannot tell which corpus documents the pull request changes: "
    )


def test_a_changed_pdf_without_the_pdf_extra_is_named_by_its_id_and_the_job_goes_on(
    fake: FakeGitHub, fake_repo: Repo, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)  # the pdf extra is not installed
    pdf = tiny_pdf("Refunds are issued within 14 days.").decode("ascii")
    body, _ = _pull_changing(fake, fake_repo, suite, {"docs/terms.pdf": pdf})
    [line] = [line for line in body.splitlines() if LINE_START in line]
    assert line == (
        "This pull request changes 1 corpus document that no question covers: terms\\.pdf."
    )
