"""`ragguard compare --testset` and `api.report(testset=...)` list the head test set's drafted
questions as awaiting review, as `ragguard ci` does; without a test set there is no block."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import GOOD_TESTSET_YAML

from ragguard import api

DRAFT = """\
- id: drafted-refund
  question: How long do <b>refunds</b> take?
  status: draft
  kind: single-fact
  relevant: [refunds]
  reference_answer: Five days.
"""
BLOCK = "<details><summary>1 drafted question awaits review</summary>"


def _results(ragguard_cli, good_testset: Path, good_run: Path, tmp_path: Path) -> Path:
    out = tmp_path / "results.json"
    scored = ragguard_cli(
        "score", "--testset", good_testset, "--run", good_run, "--metrics", "hit_rate@3",
        "--out", out,
    )  # fmt: skip
    assert scored.exit_code == 0, scored.stderr
    return out


def test_compare_lists_the_drafts_of_the_test_set_it_is_given(
    ragguard_cli, good_testset, good_run, write, tmp_path
):
    results = _results(ragguard_cli, good_testset, good_run, tmp_path)
    testset = write("head.yaml", GOOD_TESTSET_YAML + DRAFT)
    comment, summary = tmp_path / "comment.md", tmp_path / "summary.md"
    done = ragguard_cli(
        "compare", results, results, "--markdown", comment, "--summary", summary,
        "--testset", testset,
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    block = comment.read_text()[comment.read_text().index(BLOCK) :]
    assert "&lt;b&gt;refunds&lt;/b&gt;" in block and "<b>refunds" not in block  # escaped
    assert "reference answer: Five days\\." in block
    assert BLOCK in summary.read_text()

    plain = ragguard_cli("compare", results, results, "--markdown", comment)
    assert plain.exit_code == 0 and BLOCK not in comment.read_text()


def test_a_test_set_that_cannot_be_read_is_one_line_before_any_report(
    ragguard_cli, cli_error, good_testset, good_run, tmp_path
):
    results = _results(ragguard_cli, good_testset, good_run, tmp_path)
    missing = tmp_path / "nowhere.yaml"
    comment = tmp_path / "comment.md"
    args = ["compare", results, results, "--markdown", comment, "--testset", missing]
    cli_error(args, "nowhere.yaml")
    assert not comment.exists()


def test_the_api_report_lists_the_drafts_it_is_given(
    ragguard_cli, good_testset, good_run, write, tmp_path
):
    results = api.load(_results(ragguard_cli, good_testset, good_run, tmp_path))
    comparison = api.compare(results, results)
    testset = write("head.yaml", GOOD_TESTSET_YAML + DRAFT)
    assert BLOCK in api.report(comparison, "comment", testset=testset)
    assert BLOCK in api.report(comparison, "summary", testset=str(testset))
    assert BLOCK not in api.report(comparison, "comment")
