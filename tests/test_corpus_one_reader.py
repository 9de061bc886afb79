"""The corpus folder read one way by every command (testset/documents.py): questions drafted
offline from a PDF and from an HTML page (an entity, a line broken inside a tag) are found by
`ragguard coverage` in the documents they were drafted from, and review's card shows each
quote in its document, not "(not found in the corpus)"."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent / "testset" / "drafting"))
from pdf_bytes import tiny_pdf

from ragguard.cli.app import cli
from ragguard.pipeline.review import review_corpus, review_drafts

PAGE = (
    "<html><head><title>Shipping</title></head><body><h1>Shipping</h1>\n"
    "<p>Standard &amp; express orders ship within <b>2</b>\n   business days.</p>\n"
    "<h2>Returns</h2>\n<p>Returns are free for <em>30</em>\n days after delivery.</p>"
    "</body></html>\n"
)
PDF_LINE = "Refunds are issued within 14 days of the return."
HTML_QUOTE = "Standard & express orders ship within 2 business days."


class Skipping:
    """A review console that skips every draft and keeps the cards shown."""

    def __init__(self) -> None:
        self.shown: list[str] = []

    def show(self, text: str) -> None:
        self.shown.append(text)

    def choose(self) -> str:
        return "s"

    def edit(self, text: str) -> str:
        return text


def _cli(*args: object) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(arg) for arg in args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def drafted(tmp_path: Path) -> Path:
    """A corpus of a PDF and an HTML page, and drafts.yaml drafted offline from it."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "terms.pdf").write_bytes(tiny_pdf(PDF_LINE))
    (corpus / "page.html").write_text(PAGE, encoding="utf-8")
    code, _, stderr = _cli(
        "testset", "draft", "--offline", "--corpus", corpus, "--out", tmp_path / "drafts.yaml"
    )
    assert code == 0, stderr
    return tmp_path


def _quotes(path: Path) -> dict[str, str]:
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {label["doc"]: label["quote"] for entry in entries for label in entry["relevant"]}


def test_drafts_from_a_pdf_and_an_html_page_quote_their_visible_text(drafted: Path) -> None:
    assert _quotes(drafted / "drafts.yaml") == {"terms.pdf": PDF_LINE, "page.html": HTML_QUOTE}


def test_coverage_counts_the_pdf_and_finds_every_drafted_quote(drafted: Path) -> None:
    reviewed = drafted / "reviewed.yaml"
    text = (drafted / "drafts.yaml").read_text(encoding="utf-8")
    reviewed.write_text(text.replace("status: draft", "status: reviewed"), encoding="utf-8")
    code, stdout, stderr = _cli(
        "coverage", "--corpus", drafted / "corpus", "--testset", reviewed, "--json"
    )
    assert code == 0, stderr
    report = json.loads(stdout)
    documents = {doc["id"]: doc for doc in report["documents"]}
    assert sorted(documents) == ["page.html", "terms.pdf"]
    assert report["unplaced_labels"] == []
    assert report["uncovered_documents"] == []
    assert documents["terms.pdf"]["size"] == len(PDF_LINE) + 1
    page = documents["page.html"]
    assert [(s["title"], bool(s["questions"])) for s in page["sections"]] == [
        ("Shipping", True),
        ("Returns", False),
    ]
    assert page["size"] == len(f"Shipping\n\n{HTML_QUOTE}\n\nReturns\n\n") + len(
        "Returns are free for 30 days after delivery.\n"
    )


def test_the_review_card_shows_each_quote_in_its_document(drafted: Path) -> None:
    console = Skipping()
    review_drafts(drafted / "drafts.yaml", console, review_corpus(drafted / "corpus", None))
    cards = "\n".join(console.shown)
    assert len(console.shown) == 2
    assert "not found in the corpus" not in cards
    assert f"\n  »{PDF_LINE}«\n" in cards
    assert f"\n  Shipping »{HTML_QUOTE}« Returns Returns are free for 30 days" in cards
