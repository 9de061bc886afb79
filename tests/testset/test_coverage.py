"""Corpus coverage (testset/documents.py, testset/coverage.py): documents cut into sections,
labels placed in them, and the share of the corpus by size no question reaches."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from ragguard.core.errors import InputError
from ragguard.results.chunks import Chunk
from ragguard.testset.coverage import corpus_coverage, line_span, quote_span, uncovered_changed
from ragguard.testset.documents import (
    PRELUDE_TITLE,
    WHOLE_TITLE,
    Document,
    read_documents,
    split_sections,
)
from ragguard.testset.model import Evidence, Question

GUIDE = """\
Intro words before any heading.

# Limits
Each key may send 100 requests per minute.

```
# not a heading: inside fenced code
```

## Retries
Wait for Retry-After seconds, then retry.
"""


def _titles(text: str, suffix: str) -> list[str]:
    return [section.title for section in split_sections(text, suffix)]


def test_markdown_splits_at_headings_outside_fenced_code_and_keeps_the_prelude() -> None:
    sections = split_sections(GUIDE, ".md")
    assert [s.title for s in sections] == [PRELUDE_TITLE, "Limits", "Retries"]
    assert sections[0].start == 0 and sections[-1].end == len(GUIDE)
    assert all(a.end == b.start for a, b in pairwise(sections))


def test_white_space_before_the_first_heading_belongs_to_it() -> None:
    assert _titles("\n\n# Only\ntext\n", ".md") == ["Only"]


def test_html_is_its_visible_text_cut_at_h1_to_h6_and_text_is_one_section(
    tmp_path: Path,
) -> None:
    html = "<p>x &amp; y</p><h1>Title <em>one</em></h1><p>a</p><H2 id=b>Two</H2><p>b</p>"
    (tmp_path / "page.html").write_text(html, encoding="utf-8")
    [page] = read_documents(tmp_path)
    assert page.text == "x & y\n\nTitle one\n\na\n\nTwo\n\nb\n"
    assert [(s.title, page.text[s.start : s.end]) for s in page.sections] == [
        (PRELUDE_TITLE, "x & y\n\n"),
        ("Title one", "Title one\n\na\n\n"),
        ("Two", "Two\n\nb\n"),
    ]
    assert _titles("# looks like a heading\nbut this is text\n", ".txt") == [WHOLE_TITLE]


def test_read_documents_takes_known_kinds_by_relative_path(tmp_path: Path) -> None:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "limits.md").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("plain\r\ntext\r\n", encoding="utf-8")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG")
    documents = read_documents(tmp_path)
    assert [d.id for d in documents] == ["api/limits.md", "notes.txt"]
    assert documents[1].text == "plain\ntext\n"


def test_a_document_that_is_not_utf8_is_one_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "bad.md").write_bytes(b"caf\xe9")
    with pytest.raises(InputError, match=r"bad\.md: not UTF-8 text \(byte 3\)"):
        read_documents(tmp_path)


def test_quote_span_ignores_case_and_runs_of_white_space() -> None:
    text = "Alpha.\nEach  key may\n send 100 requests."
    start, end = quote_span("each key may send 100 REQUESTS", text)  # type: ignore[misc]
    assert text[start:end] == "Each  key may\n send 100 requests"
    assert quote_span("not there", text) is None


def test_line_span_is_the_characters_of_the_lines_both_included() -> None:
    text = "one\ntwo\nthree\n"
    assert text[slice(*line_span(text, (2, 3)))] == "two\nthree\n"


def _doc(doc_id: str, text: str = GUIDE) -> Document:
    return Document(doc_id, text, split_sections(text, ".md"))


def _question(qid: str, *evidence: Evidence, relevant: dict[str, int] | None = None) -> Question:
    return Question(id=qid, question=qid, relevant=relevant or {}, evidence=tuple(evidence))


def test_each_kind_of_label_touches_the_sections_it_overlaps() -> None:
    docs = [_doc("a.md"), _doc("b.md"), _doc("c.md"), _doc("d.md")]
    retries = GUIDE.index("## Retries")
    questions = [
        _question("quote", Evidence("a.md", quote="100 requests per MINUTE")),
        _question("chars", Evidence("b.md", chars=(retries, retries + 5))),
        _question("lines", Evidence("c.md", lines=(1, 1))),
        _question("whole", Evidence("d.md")),
    ]
    coverage = corpus_coverage(docs, questions)
    touched = {doc.id: [s.title for s in doc.sections if s.questions] for doc in coverage.documents}
    assert touched == {
        "a.md": ["Limits"],
        "b.md": ["Retries"],
        "c.md": [PRELUDE_TITLE],
        "d.md": [PRELUDE_TITLE, "Limits", "Retries"],
    }
    sizes = {s.title: s.size for s in docs[0].sections}
    expected = sizes["Limits"] + sizes["Retries"] + sizes[PRELUDE_TITLE] + len(GUIDE)
    assert coverage.covered_size == expected
    assert coverage.share == pytest.approx(expected / (4 * len(GUIDE)))
    assert [s.title for _, s in coverage.uncovered_sections][:2] == [PRELUDE_TITLE, "Retries"]


def test_a_quote_not_found_reaches_its_document_but_no_section_and_is_reported() -> None:
    coverage = corpus_coverage([_doc("a.md")], [_question("q", Evidence("a.md", quote="nope"))])
    assert coverage.covers("a.md") and coverage.covered_size == 0
    assert coverage.unplaced == ("q: quote not found in 'a.md'",)


def test_chunk_id_labels_reach_the_document_the_corpus_names() -> None:
    chunks = {
        "c1": Chunk("c1", "Wait for Retry-After seconds", doc="a.md"),
        "c2": Chunk("c2", "text"),
    }
    questions = [_question("q", relevant={"c1": 1, "c2": 1, "gone": 2, "zero": 0})]
    coverage = corpus_coverage([_doc("a.md"), _doc("b.md")], questions, chunks)
    [a, b] = coverage.documents
    assert [s.title for s in a.sections if s.questions] == ["Retries"]
    assert not b.questions and coverage.uncovered_documents == (b,)
    assert len(coverage.unplaced) == 2  # c2 has no doc, "gone" is in no corpus; grade 0 skipped


def test_a_label_naming_a_document_outside_the_corpus_is_unplaced() -> None:
    coverage = corpus_coverage([_doc("a.md")], [_question("q", Evidence("old.md"))])
    assert coverage.unplaced == ("q: document 'old.md' is not in the corpus",)
    assert coverage.share == 0.0


def test_retrieved_documents_and_changed_documents_no_question_covers() -> None:
    docs = [_doc("a.md"), _doc("b.md"), _doc("c.md")]
    coverage = corpus_coverage(docs, [_question("q", Evidence("a.md"))], retrieved_docs={"b.md"})
    assert [d.id for d in coverage.unretrieved_documents or ()] == ["a.md", "c.md"]
    assert corpus_coverage(docs, []).unretrieved_documents is None
    changed = ["c.md", "a.md", "images/x.png", "b.md"]
    assert uncovered_changed(coverage, changed) == ("b.md", "c.md")
    assert coverage.to_dict()["uncovered_documents"] == ["b.md", "c.md"]
