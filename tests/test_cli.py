"""The reference text's worked examples, reproduced through the command line, digit for digit."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragguard.cli.app import cli
from ragguard.demo import SEED_DIR

RETRY_TESTSET = SEED_DIR / "retry-429.testset.yaml"
RETRY_RUN = SEED_DIR / "retry-429.run.jsonl"
FOUR_TESTSET = SEED_DIR / "four-questions.testset.yaml"
FOUR_RUN = SEED_DIR / "four-questions.run.jsonl"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def table_value(output: str, metric: str) -> str:
    match = re.search(rf"^{re.escape(metric)}\s+(\S+)", output, re.MULTILINE)
    assert match, f"{metric} not in output:\n{output}"
    return match.group(1)


def test_retry_429_example_scores_like_the_reference_text(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    code, stdout, _ = invoke(
        "score", "--testset", RETRY_TESTSET, "--run", RETRY_RUN,
        "--metrics", "precision@3,recall@3,mrr,ndcg@3", "--out", out,
    )  # fmt: skip
    assert code == 0
    assert table_value(stdout, "precision@3") == "0.667"
    assert table_value(stdout, "recall@3") == "1.000"
    assert table_value(stdout, "mrr") == "1.000"
    assert table_value(stdout, "ndcg@3") == "0.760"

    code, explained, _ = invoke("explain", out, "retry-after-429", "-k", "3")
    assert code == 0
    for line in (
        "precision@3 = 2/3 = 0.667",
        "recall@3    = 2/2 = 1.000",
        "reciprocal rank = 1/1 = 1.000",
        "rank 1: error-codes  rel 1 / log2(2) = 1.000",
        "rank 2: pagination  rel 0 / log2(3) = 0.000",
        "rank 3: rate-limits  rel 2 / log2(4) = 1.000",
        "DCG@3 = 2.000, IDCG@3 = 2.631",
        "nDCG@3 = 0.760",
    ):
        assert line in explained


def test_four_question_example_scores_like_the_reference_text() -> None:
    code, stdout, _ = invoke(
        "score", "--testset", FOUR_TESTSET, "--run", FOUR_RUN,
        "--metrics", "hit_rate@1,hit_rate@3,recall@3,mrr",
    )  # fmt: skip
    assert code == 0
    assert table_value(stdout, "hit_rate@1") == "0.500"
    assert table_value(stdout, "hit_rate@3") == "0.750"
    assert table_value(stdout, "mrr") == "0.625"
    # With one relevant chunk per question, recall@k equals hit rate@k.
    assert table_value(stdout, "recall@3") == table_value(stdout, "hit_rate@3")


def test_report_formats_read_the_results_file(tmp_path: Path) -> None:
    out = tmp_path / "four.json"
    assert invoke("score", "--testset", FOUR_TESTSET, "--run", FOUR_RUN, "--out", out)[0] == 0

    code, as_json, _ = invoke("report", out, "--format", "json")
    assert code == 0
    summary = json.loads(as_json)
    assert summary["metrics"]["mrr"]["value"] == pytest.approx(0.625, abs=1e-12)
    assert summary["metrics"]["hit_rate@1"]["n"] == 4

    code, markdown, _ = invoke("report", out, "--format", "markdown")
    assert code == 0
    assert "| `mrr` | 0.625 |" in markdown

    code, table, _ = invoke("report", out)
    assert code == 0
    assert table_value(table, "hit_rate@3") == "0.750"


def test_trec_inputs_stand_in_for_the_test_set(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("retry-after-429 0 rate-limits 2\nretry-after-429 0 error-codes 1\n")
    run = tmp_path / "run.trec"
    run.write_text(
        "retry-after-429 Q0 error-codes 1 4.0 bm25\n"
        "retry-after-429 Q0 pagination 2 3.0 bm25\n"
        "retry-after-429 Q0 rate-limits 3 2.0 bm25\n"
        "retry-after-429 Q0 webhooks 4 1.0 bm25\n"
    )
    code, stdout, _ = invoke(
        "score", "--qrels", qrels, "--trec-run", run, "--metrics", "precision@3,ndcg@3"
    )
    assert code == 0
    assert table_value(stdout, "ndcg@3") == "0.760"
    assert table_value(stdout, "precision@3") == "0.667"


def test_missing_question_is_scored_zero_and_reported(tmp_path: Path) -> None:
    run = tmp_path / "partial.jsonl"
    run.write_text("\n".join(FOUR_RUN.read_text().splitlines()[:3]) + "\n")
    code, stdout, _ = invoke(
        "score", "--testset", FOUR_TESTSET, "--run", run, "--metrics", "hit_rate@3"
    )
    assert code == 0
    assert "3 ok, 1 missing" in stdout
    assert "missing: error-404" in stdout
    assert table_value(stdout, "hit_rate@3") == "0.750"  # error-404 failed anyway


def test_conflicting_inputs_are_a_usage_error() -> None:
    code, _, stderr = invoke("score", "--testset", FOUR_TESTSET, "--qrels", FOUR_RUN)
    assert code == 2
    assert "exactly one of --testset, --qrels or --beir" in stderr


def test_demo_prints_the_seed_examples(tmp_path: Path) -> None:
    code, stdout, _ = invoke("demo", "--seed", "--out", tmp_path)
    assert code == 0
    assert "nDCG@3 = 0.760" in stdout
    assert table_value(stdout, "mrr") in {"1.000", "0.625"}


def test_console_script_is_installed() -> None:
    completed = subprocess.run(
        [Path(sys.executable).with_name("ragguard"), "--help"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert completed.returncode == 0
    for command in ("score", "report", "explain", "demo"):
        assert command in completed.stdout


def test_a_one_question_score_loads_no_template_table_or_http_library(tmp_path: Path) -> None:
    """Start-up counts for a CLI (benchmarks/startup.py): the retrieval-only `score` path
    must not import jinja2, tabulate, importlib.metadata or requests."""
    (tmp_path / "t.yaml").write_text("- id: q1\n  question: q?\n  relevant: {a: 1}\n")
    (tmp_path / "r.jsonl").write_text('{"id": "q1", "retrieved": ["a", "b"]}\n')
    script = (
        "import sys\nfrom ragguard.cli.app import main\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    assert exit.code == 0, exit\n"
        "heavy = ('jinja2', 'tabulate', 'importlib.metadata', 'requests')\n"
        "print(sorted(m for m in sys.modules if m in heavy))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script, "score", "--testset", str(tmp_path / "t.yaml"),
         "--run", str(tmp_path / "r.jsonl"), "--out", str(tmp_path / "results.json")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines()[-1] == "[]"
    assert "hit_rate@1" in completed.stdout


def test_help_lists_commands_in_the_order_of_use_with_whole_summaries(ragguard_cli):
    result = ragguard_cli("--help")

    commands = result.stdout.split("Commands:\n", 1)[1]
    names = [line.split()[0] for line in commands.splitlines() if line[2:3].strip()]
    assert names[:5] == ["demo", "init", "run", "score", "compare"]
    assert "import" in names and names.index("ci") > names.index("calibrate")
    assert "..." not in commands
