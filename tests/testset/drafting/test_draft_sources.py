"""The corpus as drafting reads it: Markdown as is, HTML as its visible text, PDF through the
pdf extra, chosen by --docs; an empty corpus or a glob matching nothing is refused."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest
from pdf_bytes import tiny_pdf

from ragguard.core.errors import InputError
from ragguard.testset.drafting.sources import read_for_drafting
from ragguard.testset.html_text import html_to_text


def test_html_becomes_its_visible_text() -> None:
    html = (
        "<html><head><title>T</title><style>p {}</style></head><body><h1>Refunds</h1>"
        "<p>A refund takes <b>14&nbsp;days</b>\n  to arrive.</p><script>x()</script>"
        "<ul><li>One &amp; two</li></ul></body></html>"
    )
    assert html_to_text(html) == "Refunds\n\nA refund takes 14 days to arrive.\n\nOne & two\n"


def test_markdown_html_and_pdf_documents(tmp_path: Path) -> None:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "limits.md").write_text("# Limits\n\nEach key sends 100 requests.\n")
    (tmp_path / "page.html").write_text("<p>Refunds take 14 days.</p>")
    (tmp_path / "terms.pdf").write_bytes(tiny_pdf("Refunds are issued within 14 days."))
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    documents = {doc.id: doc.text for doc in read_for_drafting(tmp_path)}
    assert documents == {
        "api/limits.md": "# Limits\n\nEach key sends 100 requests.\n",
        "page.html": "Refunds take 14 days.\n",
        "terms.pdf": "Refunds are issued within 14 days.\n",
    }
    chosen = read_for_drafting(tmp_path, "api/*")
    assert [doc.id for doc in chosen] == ["api/limits.md"]


def test_a_glob_matching_nothing_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("text\n")
    with pytest.raises(InputError, match=r"^--docs: 'guides/\*' matches none of the 1 documents"):
        read_for_drafting(tmp_path, "guides/*")
    with pytest.raises(InputError, match=r"^--docs: is empty"):
        read_for_drafting(tmp_path, " ")


def test_a_folder_without_documents_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.docx").write_bytes(b"PK")
    with pytest.raises(InputError, match=r"^--corpus: .* holds no documents"):
        read_for_drafting(tmp_path)


def test_a_pdf_without_the_extra_names_the_file_and_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "terms.pdf").write_bytes(tiny_pdf("Refunds are issued within 14 days."))
    real_import = builtins.__import__

    def no_pypdf(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "pypdf":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pypdf)
    with pytest.raises(InputError) as caught:
        read_for_drafting(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path / 'terms.pdf'}: is a PDF; reading PDF needs the pdf extra: "
        "pip install 'ragguard[pdf]', or move it out"
    )


def test_a_broken_pdf_is_one_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\nnot really\n")
    with pytest.raises(InputError, match=r"broken\.pdf: cannot read this PDF"):
        read_for_drafting(tmp_path)
