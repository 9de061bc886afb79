"""The embedded Orders API example: files shipped inside the package."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DEMO_DIR = Path(__file__).parent
SEED_DIR = DEMO_DIR / "seed"


@dataclass(frozen=True)
class SeedExample:
    suite: str
    title: str
    testset: Path
    run: Path
    metrics: str
    explain: tuple[tuple[str, int], ...] = ()


def seed_examples() -> tuple[SeedExample, ...]:
    """The two worked retrieval examples of the reference text, as files."""
    return (
        SeedExample(
            suite="seed-retry-429",
            title='Orders API: "How should a client retry after a 429 response?" (graded labels)',
            testset=SEED_DIR / "retry-429.testset.yaml",
            run=SEED_DIR / "retry-429.run.jsonl",
            metrics="precision@3,recall@3,mrr,ndcg@3",
            explain=(("retry-after-429", 3),),
        ),
        SeedExample(
            suite="seed-four-questions",
            title="Orders API: four labelled questions",
            testset=SEED_DIR / "four-questions.testset.yaml",
            run=SEED_DIR / "four-questions.run.jsonl",
            metrics="hit_rate@1,hit_rate@3,recall@3,mrr",
        ),
    )
