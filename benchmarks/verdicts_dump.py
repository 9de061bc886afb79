"""Every lexical verdict on real answers against small and long contexts, written to a file:
the check that a change to the matching machinery changed no verdict and no score.

The answers are the RAGTruth QA development answers (``responses.jsonl`` under ``--data``),
each judged (``segment``, then ``lexical_verdicts`` with the default threshold and the
answer's question) against

1. its own source's 3 passages (what ``faithfulness_real.py`` scores),
2. every source's passages (255 chunks),
3. those cycled to 2,550 chunks (as ``answer_length.py --passages 2550`` builds them), with
   the first source's question (one analysis of the long context for all answers),
4. the answers joined into one 1,000,000-character answer against the 255 chunks
   (``answer_length.py``'s longest answer),
5. and that answer against 255 passages of about 8,000 characters that repeat no sentence
   (about 2 MB: ``answer_length.py --passage-chars 8000``).

Each verdict is one JSON line: scenario, answer, statement id, supported, the score's
``repr`` (every bit of the float), evidence chunk and note. Run it with this checkout and
with another (``PYTHONPATH=OTHER/src``) and compare the two files byte for byte:

    python benchmarks/verdicts_dump.py --out /tmp/after.jsonl
    PYTHONPATH=/tmp/before/src python benchmarks/verdicts_dump.py --out /tmp/before.jsonl
    cmp /tmp/before.jsonl /tmp/after.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from answer_length import (
    Context,
    answer_of_characters,
    cycled_context,
    drawn_context,
    load_data,
)

from ragguard.metrics.faithfulness import DEFAULT_THRESHOLD, lexical_verdicts
from ragguard.metrics.text import segment

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "ragtruth-qa-dev"


def own_contexts(folder: Path) -> dict[str, tuple[Context, str]]:
    """Source id -> (its passages as (chunk id, text), its question)."""
    with (folder / "sources.jsonl").open(encoding="utf-8") as lines:
        sources = [json.loads(line) for line in lines if line.strip()]
    return {
        source["source_id"]: (
            [(f"{source['source_id']}-p{n}", text) for n, text in enumerate(source["passages"], 1)],
            source["question"],
        )
        for source in sources
    }


def verdict_lines(
    scenario: str, name: str, answer: str, context: Context, question: str
) -> Iterator[str]:
    """One JSON line per statement of ``answer`` judged against ``context``."""
    for verdict in lexical_verdicts(segment(answer), context, DEFAULT_THRESHOLD, question):
        yield json.dumps(
            [
                scenario,
                name,
                verdict.id,
                verdict.supported,
                repr(verdict.score),
                verdict.evidence,
                verdict.note,
            ]
        )


def all_lines(folder: Path) -> Iterator[str]:
    """The five scenarios' verdicts, in a fixed order."""
    with (folder / "responses.jsonl").open(encoding="utf-8") as lines:
        responses = [json.loads(line) for line in lines if line.strip()]
    own = own_contexts(folder)
    pool, every, _ = load_data(folder, None)
    long_context = cycled_context(every, 10 * len(every))
    first_question = next(iter(own.values()))[1]
    for response in responses:
        context, question = own[response["source_id"]]
        name, answer = str(response["id"]), response["response"]
        yield from verdict_lines("own", name, answer, context, question)
        yield from verdict_lines("all", name, answer, every, question)
        yield from verdict_lines("all-x10", name, answer, long_context, first_question)
    long_answer = answer_of_characters(pool, 1_000_000)
    yield from verdict_lines("1MB", "1MB", long_answer, every, first_question)
    drawn = drawn_context(every, len(every), 8_000)
    yield from verdict_lines("1MB-2MB", "1MB", long_answer, drawn, first_question)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help=f"default: {DATA}")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    with args.out.open("w", encoding="utf-8") as out:
        count = 0
        for line in all_lines(args.data):
            out.write(line + "\n")
            count += 1
    print(f"{count:,} verdicts written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
