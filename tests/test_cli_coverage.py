"""`ragguard coverage` (cli/commands/coverage.py): the demo corpus figure in docs/coverage.md,
the JSON, the corpus folder from ragguard.yml, and its input errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent / "testset" / "drafting"))
from pdf_bytes import tiny_pdf

from ragguard.cli.app import cli
from ragguard.config.load import load_config
from ragguard.demo.pipeline import DOCS_DIR, TESTSET_PATH

DOCS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "coverage.md"


def _first_nine(tmp_path: Path) -> Path:
    """The demo test set's first nine questions (authentication and rate limits)."""
    text = TESTSET_PATH.read_text(encoding="utf-8")
    path = tmp_path / "first-nine.yaml"
    path.write_text(text[: text.index("- id: limit-per-ip")], encoding="utf-8")
    return path


def _figure() -> str:
    page = DOCS_PAGE.read_text(encoding="utf-8")
    block = page.split("<!-- coverage-figure -->\n```text\n", 1)[1]
    return block.split("```\n", 1)[0]


def test_the_demo_corpus_figure_in_the_docs_is_what_the_command_prints(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(cli, ["demo", "--out", "demo"]).exit_code == 0
    args = ["coverage", "--corpus", str(DOCS_DIR), "--testset", str(_first_nine(tmp_path))]
    result = runner.invoke(cli, [*args, "--run", "demo/baseline.run.jsonl"])
    assert result.exit_code == 0, result.output
    assert result.output == _figure()


def test_the_whole_demo_test_set_reaches_every_page_and_json_says_so() -> None:
    args = ["coverage", "--corpus", str(DOCS_DIR), "--testset", str(TESTSET_PATH), "--json"]
    result = CliRunner().invoke(cli, args)
    data = json.loads(result.output)
    assert (data["share"], data["uncovered_documents"], data["unplaced_labels"]) == (1.0, [], [])
    assert data["size"] == sum(p.stat().st_size for p in DOCS_DIR.glob("*.md"))
    assert data["unretrieved_documents"] is None


def _suite(tmp_path: Path, corpus: str) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\nalpha\n## B\nbeta\n", encoding="utf-8")
    (tmp_path / "t.yaml").write_text(
        "- id: q\n  question: what is alpha?\n  relevant: [{doc: a.md, quote: alpha}]\n"
    )
    (tmp_path / "run.jsonl").write_text('{"id": "q", "retrieved": ["c"]}\n')
    config = tmp_path / "ragguard.yml"
    config.write_text(f"testset: t.yaml\ncorpus: {corpus}\nsystem: {{recorded: run.jsonl}}\n")
    return config


def test_corpus_in_ragguard_yml_may_name_a_folder_which_coverage_reads(tmp_path: Path) -> None:
    config = _suite(tmp_path, "docs")
    loaded = load_config(config)
    assert (loaded.documents, loaded.corpus) == ((tmp_path / "docs").resolve(), None)
    result = CliRunner().invoke(cli, ["coverage", "-c", str(config)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(
        "Corpus: 1 document, 20 characters. The questions' labels touch 50.0% of it by size"
    )
    assert result.output.endswith(
        "does: 1\ndocument    section    characters\n"
        "----------  ---------  ------------\na.md        B          10\n"
    )


def test_without_a_corpus_folder_it_is_one_line_naming_the_option(tmp_path: Path) -> None:
    (tmp_path / "chunks.jsonl").write_text('{"id": "c", "text": "alpha"}\n')
    config = _suite(tmp_path, "chunks.jsonl")
    result = CliRunner().invoke(cli, ["coverage", "-c", str(config)])
    assert result.exit_code == 2
    assert result.output == (
        "ragguard: error: --corpus: give the folder of the corpus documents (Markdown, text, "
        "HTML, PDF), or set corpus: to it in ragguard.yml\n"
    )


def test_a_drafted_question_covers_nothing_until_it_is_reviewed(tmp_path: Path) -> None:
    """A draft is not evaluated (docs/review.md), so its evidence does not count as covered:
    the section only a draft reaches stays listed until the draft is reviewed."""
    config = _suite(tmp_path, "docs")
    testset = tmp_path / "t.yaml"
    draft = "- id: d\n  question: what is beta?\n  relevant: [{doc: a.md, quote: beta}]\n"
    testset.write_text(testset.read_text() + draft + "  status: draft\n")
    drafted = CliRunner().invoke(cli, ["coverage", "-c", str(config)])
    assert drafted.exit_code == 0, drafted.output
    assert "touch 50.0% of it by size" in drafted.output
    assert drafted.output.endswith("a.md        B          10\n")
    testset.write_text(testset.read_text().replace("status: draft", "status: reviewed"))
    reviewed = CliRunner().invoke(cli, ["coverage", "-c", str(config)])
    assert "touch 100.0% of it by size" in reviewed.output, reviewed.output


def test_a_pdf_without_the_pdf_extra_is_one_line_naming_it_not_a_share_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A share that silently left the PDF out would overstate coverage: refused, as drafting
    refuses it, with the install line (docs/coverage.md)."""
    config = _suite(tmp_path, "docs")
    (tmp_path / "docs" / "terms.pdf").write_bytes(tiny_pdf("Refunds take 14 days."))
    monkeypatch.setitem(sys.modules, "pypdf", None)  # the pdf extra is not installed
    result = CliRunner().invoke(cli, ["coverage", "-c", str(config)])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"ragguard: error: {tmp_path / 'docs' / 'terms.pdf'}: is a PDF; reading PDF needs the "
        "pdf extra: pip install 'ragguard[pdf]', or move it out\n"
    )
