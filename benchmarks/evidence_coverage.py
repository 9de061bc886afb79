"""How the evidence-coverage threshold (``evidence.min_coverage``) behaves on real text.

Documents: the retrieved passages of RAGTruth's QA split (web text nobody here wrote,
``../shared/data/ragtruth-qa-dev``), one document per question. Quotes: every sentence of
every document, as a labeller would highlight it. Chunkers: what teams switch between
(fixed character windows with and without overlap, word windows, sentence packing).

For each threshold it prints, over all quotes and chunkers:

- ``kept``: the share of quotes that some chunk still covers. A quote that no chunk covers
  reads as a retrieval regression after a rechunk although its text is all there.
- ``credited``: the mean number of chunks that cover a quote (ideal 1; above 1 a quote is
  credited to several fragments, inflating precision and hiding a split).
- ``fragment``: the share of credited chunks that hold less than half of the quote.

Run: ``python benchmarks/evidence_coverage.py [--data DIR]``. Offline, a few seconds.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from ragguard.metrics.evidence import coverage  # noqa: E402
from ragguard.metrics.text import split_sentences  # noqa: E402
from ragguard.results.chunks import Chunk  # noqa: E402
from ragguard.testset.model import Evidence  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "ragtruth-qa-dev"
THRESHOLDS = (0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 1.0)
_PASSAGE = re.compile(r"^passage \d+:\s*")


def load_documents(folder: Path) -> list[str]:
    documents = []
    with (folder / "sources.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            source = json.loads(line)
            passages = [_PASSAGE.sub("", p).strip() for p in source["passages"]]
            documents.append(" ".join(p for p in passages if p))
    return documents


def char_windows(size: int, overlap: int) -> Callable[[str], list[str]]:
    def split(text: str) -> list[str]:
        step = size - overlap
        return [text[i : i + size] for i in range(0, max(1, len(text) - overlap), step)]

    return split


def word_windows(size: int) -> Callable[[str], list[str]]:
    def split(text: str) -> list[str]:
        words = text.split()
        return [" ".join(words[i : i + size]) for i in range(0, len(words), size)]

    return split


def sentence_packs(limit: int) -> Callable[[str], list[str]]:
    def split(text: str) -> list[str]:
        chunks, current = [], ""
        for sentence in split_sentences(text):
            if current and len(current) + len(sentence) + 1 > limit:
                chunks.append(current)
                current = ""
            current = f"{current} {sentence}".strip()
        return [*chunks, current] if current else chunks

    return split


CHUNKERS = {
    "chars 200": char_windows(200, 0),
    "chars 400": char_windows(400, 0),
    "chars 400, overlap 80": char_windows(400, 80),
    "words 30": word_windows(30),
    "words 60": word_windows(60),
    "sentences to 300 chars": sentence_packs(300),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    if not (args.data / "sources.jsonl").exists():
        print(f"no sources.jsonl in {args.data}; pass --data", file=sys.stderr)
        return 2
    documents = load_documents(args.data)
    shares: list[list[float]] = []  # per (quote, chunker): the coverage of each chunk
    quotes = 0
    for number, text in enumerate(documents):
        doc = f"d{number}"
        document_quotes = [s for s in split_sentences(text) if len(s.split()) >= 4]
        quotes += len(document_quotes)
        for split in CHUNKERS.values():
            chunks = [Chunk(f"{doc}#{i}", part, doc=doc) for i, part in enumerate(split(text))]
            for quote in document_quotes:
                evidence = Evidence(doc, quote=quote)
                shares.append([coverage(evidence, chunk) for chunk in chunks])
    print(
        f"{len(documents)} documents, {quotes} quotes, {len(CHUNKERS)} chunkers "
        f"({', '.join(CHUNKERS)})\n"
    )
    print("| min_coverage | kept | credited | fragment |")
    print("|---|---|---|---|")
    for threshold in THRESHOLDS:
        covered = [[s for s in row if s >= threshold] for row in shares]
        kept = sum(1 for row in covered if row) / len(covered)
        credited = sum(len(row) for row in covered) / len(covered)
        total = sum(len(row) for row in covered) or 1
        fragment = sum(1 for row in covered for s in row if s < 0.5) / total
        print(f"| {threshold:g} | {kept:.3f} | {credited:.3f} | {fragment:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
