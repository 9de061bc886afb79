"""`ragguard score` with generation metrics: corpus, config, input errors, JSON results."""

from __future__ import annotations

import json

from ragguard.metrics.faithfulness import DEFAULT_THRESHOLD

SEED_TESTSET = """\
- id: requests-per-minute
  question: How many requests per minute are allowed?
  relevant: [rate-limits]
  reference_answer: Each API key may send 100 requests per minute.
- id: refunds
  question: How do refunds work?
  answerable: false
"""
PASSAGE = (
    "Each API key may send 100 requests per minute. Extra requests return status 429 with a "
    "Retry-After header."
)
ANSWER = (
    "You can send 100 requests per minute per API key. Extra requests return status 429. "
    "Limits reset every hour."
)
METRICS = "hit_rate@1,faithfulness,answer_relevance,answer_f1,abstention"


def run_line(qid: str, answer: str | None, retrieved: list) -> str:
    return json.dumps({"id": qid, "retrieved": retrieved, "answer": answer}) + "\n"


def id_only_run(write):
    return write(
        "run.jsonl",
        run_line("requests-per-minute", ANSWER, ["rate-limits", "pagination"])
        + run_line("refunds", "I don't know; the documentation does not say.", ["pagination"]),
    )


def corpus(write):
    return write(
        "chunks.jsonl",
        json.dumps({"id": "rate-limits", "text": PASSAGE})
        + "\n"
        + json.dumps({"id": "pagination", "text": "Pass the cursor to get the next page."})
        + "\n",
    )


def test_score_computes_generation_metrics_with_a_corpus(write, ragguard_cli, tmp_path):
    testset = write("testset.yaml", SEED_TESTSET)
    out = tmp_path / "results.json"
    result = ragguard_cli(
        "score",
        "--testset",
        testset,
        "--run",
        id_only_run(write),
        "--corpus",
        corpus(write),
        "--metrics",
        METRICS,
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    assert "faithfulness" in result.stdout
    data = json.loads(out.read_text())
    first, refunds = data["questions"]
    assert first["metrics"]["faithfulness"] == 2 / 3
    assert [s["supported"] for s in first["sentences"]] == [True, True, False]
    assert first["sentences"][2]["note"] == "not in the context: limits, reset, hour (in no chunk)"
    assert refunds["metrics"] == {"abstention": 1.0}
    assert data["summary"]["abstention"]["value"] == 1.0
    assert data["config"]["settings"]["faithfulness"] == {
        "method": "lexical",
        "threshold": DEFAULT_THRESHOLD,
    }


def test_threshold_from_config(write, ragguard_cli, tmp_path):
    testset = write("testset.yaml", SEED_TESTSET)
    run = write(
        "run.jsonl",
        run_line(
            "requests-per-minute", "Extra requests return status 429 quickly.", ["rate-limits"]
        ),
    )
    values = []
    for threshold in ("0.5", "0.9"):
        config = write(
            "ragguard.yml", f"faithfulness: {{method: lexical, threshold: {threshold}}}\n"
        )
        out = tmp_path / f"results-{threshold}.json"
        result = ragguard_cli(
            "score",
            "--testset",
            testset,
            "--run",
            run,
            "--corpus",
            corpus(write),
            "--metrics",
            "faithfulness",
            "--config",
            config,
            "--out",
            out,
        )
        assert result.exit_code == 0, result.output
        values.append(json.loads(out.read_text())["questions"][0]["metrics"]["faithfulness"])
    # 4 of 5 words found, weighted 0.67, less the penalty for "quickly", a word no chunk uses
    # (0.28 x 1/4 of the words): 0.60 passes 0.5, fails 0.9
    assert values == [1.0, 0.0]


def test_chunk_without_text_is_an_input_error(write, cli_error):
    testset = write("testset.yaml", SEED_TESTSET)
    cli_error(
        ["score", "--testset", testset, "--run", id_only_run(write), "--metrics", "faithfulness"],
        "run.jsonl:1: retrieved:",
        "'rate-limits'",
        "pass a corpus",
    )


def test_run_without_answers_is_an_input_error(write, cli_error):
    testset = write("testset.yaml", SEED_TESTSET)
    run = write("run.jsonl", run_line("requests-per-minute", None, ["rate-limits"]))
    cli_error(
        ["score", "--testset", testset, "--run", run, "--metrics", "answer_relevance"],
        "run.jsonl:",
        "no entry has an answer",
    )


def test_a_run_where_every_question_failed_is_scored_not_refused(write, ragguard_cli):
    testset = write("testset.yaml", SEED_TESTSET)
    run = write(
        "run.jsonl",
        json.dumps({"id": "requests-per-minute", "error": "timeout"})
        + "\n"
        + json.dumps({"id": "refunds", "error": "timeout"})
        + "\n",
    )
    result = ragguard_cli(
        "score", "--testset", testset, "--run", run, "--metrics", "faithfulness,abstention"
    )
    assert result.exit_code == 0, result.output
    assert "2 error" in result.stdout


def test_generation_metric_names_are_checked(write, cli_error):
    testset = write("testset.yaml", SEED_TESTSET)
    cli_error(
        ["score", "--testset", testset, "--run", id_only_run(write), "--metrics", "faithfulnes"],
        "unknown metric 'faithfulnes'",
        "did you mean 'faithfulness'?",
    )
    cli_error(
        ["score", "--testset", testset, "--run", id_only_run(write), "--metrics", "answer_f1@3"],
        "takes no cut-off",
    )


def test_bad_generation_config_names_file_line_and_key(write, cli_error):
    testset = write("testset.yaml", SEED_TESTSET)
    config = write("ragguard.yml", "suite: x\nfaithfulness:\n  method: lexical\n  treshold: 0.8\n")
    cli_error(
        [
            "score",
            "--testset",
            testset,
            "--run",
            id_only_run(write),
            "--corpus",
            corpus(write),
            "--metrics",
            "faithfulness",
            "--config",
            config,
        ],
        "ragguard.yml:4: faithfulness.treshold:",
        "did you mean 'threshold'?",
    )


def test_dry_run_without_judge_metrics_says_no_calls(write, ragguard_cli):
    testset = write("testset.yaml", SEED_TESTSET)
    result = ragguard_cli(
        "score",
        "--testset",
        testset,
        "--run",
        id_only_run(write),
        "--corpus",
        corpus(write),
        "--metrics",
        "faithfulness",
        "--dry-run",
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == "judge dry run: no generation metric uses the judge; no calls to make\n"


def test_explain_prints_the_seeds_faithfulness_lines(write, ragguard_cli, tmp_path):
    testset = write("testset.yaml", SEED_TESTSET)
    out = tmp_path / "results.json"
    scored = ragguard_cli(
        "score",
        "--testset",
        testset,
        "--run",
        id_only_run(write),
        "--corpus",
        corpus(write),
        "--metrics",
        "faithfulness",
        "--out",
        out,
    )
    assert scored.exit_code == 0, scored.output
    result = ragguard_cli("explain", out, "requests-per-minute")
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(
        "\nSUPPORTED (1.00): You can send 100 requests per minute per API key.\n"
        "SUPPORTED (1.00): Extra requests return status 429.\n"
        "NOT FOUND (0.00): Limits reset every hour.\n"
        "Faithfulness: 2/3 sentences supported\n"
    )


def _without_hallucination_free(path, out):
    """The results file as a ragguard from before hallucination_free was scored wrote it."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["metrics"].remove("hallucination_free")
    del data["columns"], data["columns_check"]  # that ragguard wrote no columns block
    del data["summary"]["hallucination_free"]
    for question in data["questions"]:
        question["metrics"].pop("hallucination_free", None)
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


def test_results_from_before_hallucination_free_compare_cleanly(ragguard_cli, write, tmp_path):
    """Scoring faithfulness now also scores hallucination_free; an older baseline without it
    stays comparable (same settings fingerprint), and the metric found in one file only is
    reported, never gated, whichever side lacks it."""
    testset = write("testset.yaml", SEED_TESTSET)
    new = tmp_path / "new.json"
    scored = ragguard_cli(
        "score", "--testset", testset, "--run", id_only_run(write), "--corpus", corpus(write),
        "--metrics", "hit_rate@1,faithfulness", "--out", new,
    )  # fmt: skip
    assert scored.exit_code == 0, scored.output
    assert json.loads(new.read_text(encoding="utf-8"))["metrics"] == [
        "hit_rate@1",
        "faithfulness",
        "hallucination_free",
        "abstention",  # the test set marks a question answerable: false
    ]
    old = _without_hallucination_free(new, tmp_path / "old.json")
    for baseline, head, side in ((old, new, "head"), (new, old, "baseline")):
        out = tmp_path / f"{side}.json"
        done = ragguard_cli("compare", baseline, head, "--json", out)
        assert done.exit_code == 0, done.output
        comparison = json.loads(out.read_text(encoding="utf-8"))
        assert comparison["verdict"] == "pass"
        assert comparison["incomparable_settings"] == []
        only = comparison["metrics"]["hallucination_free"]
        assert only["only_in"] == side
        assert only["verdict"] == "pass"
