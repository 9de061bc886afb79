"""The one reader of a corpus folder (testset/documents.py): a PDF is its extracted text, one
section; without the pdf extra it is refused, or read by name alone where only ids matter
(the pull request's corpus note)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "drafting"))
from pdf_bytes import tiny_pdf

from ragguard.core.errors import InputError
from ragguard.pipeline.review import review_corpus
from ragguard.testset.documents import WHOLE_TITLE, Document, Section, read_documents

LINE = "Refunds are issued within 14 days."


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "terms.pdf").write_bytes(tiny_pdf(LINE))
    (tmp_path / "a.md").write_text("# A\n\nalpha\n", encoding="utf-8")
    return tmp_path


def test_a_pdf_is_its_extracted_text_as_one_section(corpus: Path) -> None:
    pdf = read_documents(corpus)[1]
    text = LINE + "\n"
    assert pdf == Document("terms.pdf", text, (Section(WHOLE_TITLE, 0, len(text)),))


def test_without_the_extra_a_pdf_is_refused_or_read_by_name_alone(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)  # the pdf extra is not installed
    with pytest.raises(InputError, match=r"terms\.pdf: is a PDF; .*pip install 'ragguard\[pdf\]'"):
        read_documents(corpus)
    with pytest.raises(InputError, match=r"terms\.pdf: is a PDF"):
        review_corpus(corpus, None)
    by_name = read_documents(corpus, pdf_by_name=True)
    assert [(d.id, d.text, d.sections) for d in by_name][1] == ("terms.pdf", "", ())
    assert by_name[0].text == "# A\n\nalpha\n"


def test_a_byte_order_mark_is_dropped_so_the_first_heading_starts_a_section(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.md").write_bytes("\ufeff# Limits\n\n100 a minute.\n".encode())
    [doc] = read_documents(tmp_path)
    assert doc.text == "# Limits\n\n100 a minute.\n"
    assert [section.title for section in doc.sections] == ["Limits"]


def test_html_headings_are_their_first_text_even_unclosed_or_wrapped(tmp_path: Path) -> None:
    html = "<h1><div>Top</div></h1><p>a</p><h2>Open<p>b</p><p>c</p><h3>Last</h3>d"
    (tmp_path / "page.html").write_text(html, encoding="utf-8")
    [page] = read_documents(tmp_path)
    assert page.text == "Top\n\na\n\nOpen\n\nb\n\nc\n\nLast\n\nd\n"
    assert [(s.title, page.text[s.start : s.end]) for s in page.sections] == [
        ("Top", "Top\n\na\n\n"),
        ("Open", "Open\n\nb\n\nc\n\n"),
        ("Last", "Last\n\nd\n"),
    ]
