"""The chunk corpus that places chunk-id labels in their documents (results/records.py
``chunks_placing_labels``): the one helper coverage, drafting and the corpus note share."""

from __future__ import annotations

from pathlib import Path

from ragguard.results.chunks import Chunk
from ragguard.results.records import chunks_placing_labels


def test_chunks_by_id_with_their_documents_and_none_without_a_file(tmp_path: Path) -> None:
    path = tmp_path / "chunks.jsonl"
    path.write_text('{"id": "c1", "text": "alpha", "doc": "a.md"}\n', encoding="utf-8")
    [(chunk_id, chunk)] = chunks_placing_labels(path).items()
    assert (chunk_id, chunk.doc, chunk.text) == ("c1", "a.md", "alpha")
    assert isinstance(chunk, Chunk)
    assert chunks_placing_labels(None) == {}
