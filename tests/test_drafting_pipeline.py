"""pipeline/drafting.py: the jobs a plan lays out (kinds in turn, two-passage kinds across
documents), the checks applied to candidates, offline drafts against the test set."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ragguard.demo.pipeline import DOCS_DIR
from ragguard.pipeline.drafting import DraftRequest, draft_offline, plan_drafting
from ragguard.results.chunks import Chunk
from ragguard.testset.model import Evidence, Question

SENTENCES = "Orders ship within 2 days of payment. The carrier is chosen by weight and size. "


def corpus(folder: Path, pages: int) -> Path:
    for page in range(pages):
        body = "\n\n".join(f"Part {part}. {SENTENCES * 2}" for part in range(3))
        (folder / f"page{page}.md").write_text(f"# Page {page}\n\n{body}\n")
    return folder


def test_kinds_are_drafted_in_turn_and_two_passage_kinds_span_two_documents(tmp_path: Path) -> None:
    kinds = ("single-fact", "multi-hop", "comparison", "unanswerable", "follow-up")
    plan = plan_drafting(DraftRequest(corpus(tmp_path, 3), 10, kinds, seed=1))
    assert [job.kind for job in plan.jobs] == [*kinds, *kinds]
    for job in plan.jobs:
        expected = 2 if job.kind in ("multi-hop", "comparison") else 1
        assert len(job.docs) == expected, job
    first_docs = [job.passages[0].doc for job in plan.jobs[:3]]
    assert len(set(first_docs)) == 3  # spread: every document before any twice
    assert plan.unavailable == ()


def test_one_document_cannot_give_a_multi_hop_but_can_a_comparison(tmp_path: Path) -> None:
    plan = plan_drafting(DraftRequest(corpus(tmp_path, 1), 4, ("multi-hop", "comparison"), seed=0))
    assert plan.unavailable == ("multi-hop",)
    assert {job.kind for job in plan.jobs} == {"comparison"}
    assert all(len(job.passages) == 2 and len(job.docs) == 1 for job in plan.jobs)


def test_passages_are_reused_for_other_kinds_but_no_job_twice(tmp_path: Path) -> None:
    plan = plan_drafting(DraftRequest(corpus(tmp_path, 1), 50, ("single-fact", "unanswerable")))
    keys = [(job.kind, tuple(p.start for p in job.passages)) for job in plan.jobs]
    assert len(keys) == len(set(keys)) == 2 * len(plan.passages)


def test_uncovered_documents_are_drafted_from_first() -> None:
    covered = [
        Question(f"q{n}", "?", evidence=(Evidence(path.name),))
        for n, path in enumerate(sorted(DOCS_DIR.glob("*.md"))[:12])
    ]
    open_docs = {path.name for path in sorted(DOCS_DIR.glob("*.md"))[12:]}
    counts: Counter[bool] = Counter()
    for seed in range(20):
        plan = plan_drafting(
            DraftRequest(DOCS_DIR, 3, ("single-fact",), seed, None, tuple(covered))
        )
        counts.update(job.passages[0].doc in open_docs for job in plan.jobs)
    # 3 of 15 pages are open; unweighted they would be 20% of the first three drafts
    assert counts[True] / sum(counts.values()) > 0.35  # weighted 4 to 1: about 45%


def test_offline_drafts_skip_near_duplicates_of_the_test_set() -> None:
    plan = plan_drafting(DraftRequest(DOCS_DIR, 2, ("single-fact",), seed=5, offline=True))
    first = draft_offline(plan, 2)
    again = draft_offline(plan, 2, [draft.question for draft in first.drafts])
    assert again.tally.duplicates == 2
    assert not {d.id for d in again.drafts} & {d.id for d in first.drafts}
    assert len(again.drafts) == 2


def test_chunk_id_labels_are_placed_through_the_chunk_corpus(tmp_path: Path) -> None:
    folder = corpus(tmp_path, 2)
    question = Question("q", "How fast do orders ship?", relevant={"c1": 1})
    unplaced = plan_drafting(DraftRequest(folder, 1, ("single-fact",), questions=(question,)))
    assert not any(p.covered for p in unplaced.passages)
    chunks = {"c1": Chunk("c1", "Orders ship within 2 days", doc="page1.md")}
    request = DraftRequest(folder, 1, ("single-fact",), questions=(question,), chunks=chunks)
    placed = plan_drafting(request)
    assert {p.doc for p in placed.passages if p.covered} == {"page1.md"}
