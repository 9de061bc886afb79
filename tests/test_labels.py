"""Labels no chunk matches, and evidence labels scored through `ragguard score`."""

from __future__ import annotations

import json
from pathlib import Path

from ragguard.results.chunks import Chunk
from ragguard.results.records import RunRecord
from ragguard.scoring.labels import unmatched_label_warning
from ragguard.testset.model import Evidence, Question, TestSet

QUOTE = "Each API key may send 100 requests per minute"


def test_a_typo_in_a_label_is_named_with_its_question() -> None:
    testset = TestSet(
        (
            Question("q1", "?", {"pricing": 1}),
            Question("q2", "?", {"pricng": 1}),
            Question("q3", "?", evidence=(Evidence("limits.md", quote=QUOTE),)),
        )
    )
    records = {
        "q1": RunRecord("q1", (Chunk("pricing", doc="pricing.md"),)),
        "q2": RunRecord("q2", (Chunk("auth"),)),
        "q3": RunRecord("q3", (Chunk("x", doc="rate-limits.md"),)),
    }
    warning = unmatched_label_warning(testset, records)
    assert warning is not None and "\n" not in warning
    assert "2 relevant label(s)" in warning
    assert "chunk 'pricng' (question 'q2')" in warning
    assert "document 'limits.md' (question 'q3')" in warning
    assert "pricing'" not in warning.replace("pricng", "")


def test_labels_found_in_the_corpus_or_of_failed_questions_are_not_named() -> None:
    testset = TestSet((Question("q1", "?", {"a": 1}), Question("q2", "?", {"b": 1})))
    records = {"q1": RunRecord("q1", ()), "q2": RunRecord("q2", (), error="boom")}
    assert unmatched_label_warning(testset, records, corpus_ids=frozenset({"a"})) is None


def test_with_repeats_a_label_retrieved_in_any_pass_matches() -> None:
    testset = TestSet((Question("q1", "?", {"a": 1}), Question("q2", "?", {"b": 1})))
    first = {"q1": RunRecord("q1", (Chunk("x"),)), "q2": RunRecord("q2", (), error="boom")}
    second = {"q1": RunRecord("q1", (Chunk("a"),)), "q2": RunRecord("q2", (Chunk("y"),))}
    warning = unmatched_label_warning(testset, first, later_passes=[second])
    # q1's label was retrieved in pass 2; q2 failed in pass 1 but answered in pass 2
    assert warning is not None and warning.startswith("1 relevant label(s)")
    assert "chunk 'b' (question 'q2')" in warning
    assert unmatched_label_warning(testset, first) is not None  # pass 1 alone: 'a' unmatched
    assert "'a'" in unmatched_label_warning(testset, first)


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_score_judges_rechunked_chunks_by_their_evidence(ragguard_cli, tmp_path: Path) -> None:
    testset = _write(
        tmp_path,
        "testset.yaml",
        f'- id: q\n  question: How fast?\n  relevant: [{{doc: rate-limits.md, quote: "{QUOTE}"}}]\n',
    )
    run = _write(
        tmp_path,
        "run.jsonl",
        json.dumps(
            {
                "id": "q",
                "retrieved": [
                    {"id": "rate-limits.md#1", "doc": "rate-limits.md", "text": "Intro."},
                    {"id": "rate-limits.md#2"},
                    "pagination.md#1",
                ],
            }
        )
        + "\n",
    )
    corpus = _write(
        tmp_path,
        "chunks.jsonl",
        json.dumps({"id": "rate-limits.md#2", "doc": "rate-limits.md", "text": QUOTE + "."}) + "\n",
    )
    out = tmp_path / "results.json"
    metrics = "hit_rate@1,recall@2,judged@2,doc_hit_rate@1"
    result = ragguard_cli(
        "score", "--testset", testset, "--run", run, "--corpus", corpus,
        "--metrics", metrics, "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    question = json.loads(out.read_text())["questions"][0]
    assert question["metrics"] == {
        "hit_rate@1": 0.0,
        "recall@2": 1.0,
        "judged@2": 0.5,
        "doc_hit_rate@1": 1.0,
    }
    assert question["judgments"] == {"rate-limits.md#2": 1}


def test_min_coverage_comes_from_the_config(ragguard_cli, tmp_path: Path) -> None:
    testset = _write(
        tmp_path,
        "testset.yaml",
        f'- id: q\n  question: How fast?\n  relevant: [{{doc: d, quote: "{QUOTE}"}}]\n',
    )
    part = {"id": "c", "doc": "d", "text": QUOTE[:20]}
    run = _write(tmp_path, "run.jsonl", json.dumps({"id": "q", "retrieved": [part]}) + "\n")

    def hit(config_text: str) -> float:
        config = _write(tmp_path, "ragguard.yml", config_text)
        out = tmp_path / "r.json"
        args = ["score", "--testset", testset, "--run", run, "--metrics", "hit_rate@1"]
        result = ragguard_cli(*args, "-c", config, "--out", out)
        assert result.exit_code == 0, result.stderr
        return json.loads(out.read_text())["summary"]["hit_rate@1"]["value"]

    assert hit("evidence: {min_coverage: 0.5}\n") == 0.0
    assert hit("evidence: {min_coverage: 0.4}\n") == 1.0
    config = _write(tmp_path, "ragguard.yml", "evidence: {min_coverage: 1.5}\n")
    result = ragguard_cli("score", "--testset", testset, "--run", run, "-c", config)
    assert result.exit_code == 2
    assert "evidence.min_coverage" in result.stderr and "found 1.5" in result.stderr


def test_explain_shows_the_grade_each_chunk_earned_and_the_evidence(ragguard_cli, tmp_path):
    testset = _write(
        tmp_path,
        "testset.yaml",
        f'- id: q\n  question: How fast?\n  relevant: [{{doc: d.md, quote: "{QUOTE}", grade: 2}}]\n',
    )
    chunks = [
        {"id": "d.md#1", "doc": "d.md", "text": "Intro."},
        {"id": "d.md#2", "doc": "d.md", "text": QUOTE},
    ]
    run = _write(tmp_path, "run.jsonl", json.dumps({"id": "q", "retrieved": chunks}) + "\n")
    out = tmp_path / "r.json"
    scored = ragguard_cli(
        "score", "--testset", testset, "--run", run, "--metrics", "recall@2,ndcg@2", "--out", out
    )
    assert scored.exit_code == 0, scored.stderr
    result = ragguard_cli("explain", out, "q", "-k", "2")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "rank 1: d.md#1  rel 0" in lines[1] and "rank 2: d.md#2  rel 2" in lines[2]
    assert f'd.md: "{QUOTE}"  grade 2' in result.stdout
    assert "as scored: recall@2 = 1.000, ndcg@2 = 0.631" in result.stdout
