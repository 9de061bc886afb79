"""Calibration: agreement with human verdicts (accuracy, Cohen's kappa), lexical and judge."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAI

from ragguard.judge.calibrate import (
    cohen_kappa,
    judge_agreements,
    lexical_agreement,
    load_calibration,
)
from ragguard.judge.client import JudgeClient
from ragguard.metrics.settings import JudgeSettings

CALIBRATION = """\
- id: a
  kind: supported
  context: {rate-limits: "Each API key may send 100 requests per minute."}
  sentence: Each API key may send 100 requests per minute.
  supported: true
- id: b
  kind: changed number
  context: ["Each API key may send 100 requests per minute."]
  sentence: Each API key may send 200 requests per minute.
  supported: false
- id: c
  kind: paraphrase
  context: "Each API key may send 100 requests per minute."
  answer: You get a hundred calls each minute. That is per key.
  faithful: true
"""


def test_kappa_by_hand():
    # 10 items: both yes 4, both no 3, human yes / method no 2, human no / method yes 1.
    pairs = [(True, True)] * 4 + [(False, False)] * 3 + [(True, False)] * 2 + [(False, True)]
    observed = 0.7
    chance = 0.6 * 0.5 + 0.4 * 0.5
    assert cohen_kappa(pairs) == pytest.approx((observed - chance) / (1 - chance))
    assert cohen_kappa([(True, True), (False, False)]) == 1.0
    assert cohen_kappa([(True, False), (False, True)]) == -1.0


def test_kappa_when_chance_agreement_is_total():
    assert cohen_kappa([(True, True)] * 3) == 1.0
    assert cohen_kappa([]) == 0.0
    assert cohen_kappa([(True, True), (True, True), (True, True)]) == 1.0


def test_lexical_agreement_on_a_small_set(write):
    items = load_calibration(write("cal.yaml", CALIBRATION))
    assert [(i.id, i.level, i.human) for i in items] == [
        ("a", "sentence", True),
        ("b", "sentence", False),
        ("c", "answer", True),
    ]
    assert items[1].context == (("c1", "Each API key may send 100 requests per minute."),)
    result = lexical_agreement(items)
    assert (result.n, result.agree) == (3, 3)  # the paraphrase is accepted
    assert result.accuracy == 1.0


def test_yaml_number_ids_of_items_and_chunks_are_read_as_written(write):
    """#31: YAML 1.1 would read 007 as 7 and 0x1F as 31; ids are the text as written."""
    text = CALIBRATION.replace("id: a", "id: 007").replace("id: b", "id: 1_000")
    text = text.replace("{rate-limits:", "{0x1F:")
    items = load_calibration(write("cal.yaml", text))
    assert [i.id for i in items] == ["007", "1_000", "c"]
    assert items[0].context[0][0] == "0x1F"


def test_judge_agreement_counts_failures_apart(write):
    items = load_calibration(write("cal.yaml", CALIBRATION))
    with FakeOpenAI(by_text={"hundred": "non_json"}) as server:
        judge = JudgeClient(JudgeSettings(server.base_url, "m", cache_dir=None))
        result = judge_agreements(items, judge.judge_many)
    # The fake judge ignores short words, so it misses the changed number (200): 1 of 2.
    sentences, answers = result["sentence"], result["answer"]
    assert (sentences.n, sentences.agree, sentences.failed) == (2, 1, 0)
    assert sentences.kappa == 0.0
    assert (answers.n, answers.agree, answers.failed) == (0, 0, 1)
    assert list(result) == ["answer", "sentence"]


def test_calibrate_command_prints_the_table(write, ragguard_cli):
    result = ragguard_cli("calibrate", write("cal.yaml", CALIBRATION))
    assert result.exit_code == 0, result.output
    assert "3 items: 2 sentence verdicts, 1 answer verdicts" in result.stdout
    rows = table_rows(result.stdout)
    assert "method level n agree accuracy kappa failed" in rows
    assert "lexical answer 1 1 1.00 1.00 0" in rows
    assert "lexical sentence 2 2 1.00 1.00 0" in rows
    assert "  paraphrase: 1/1 = 1.00" in result.stdout


def test_calibrate_command_with_the_judge(write, ragguard_cli, monkeypatch, tmp_path):
    monkeypatch.setenv("CAL_KEY", "k")
    with FakeOpenAI() as server:
        config = write(
            "ragguard.yml",
            f"judge: {{base_url: '{server.base_url}', model: m, api_key_env: CAL_KEY, cache: false}}\n",
        )
        result = ragguard_cli(
            "calibrate", write("cal.yaml", CALIBRATION), "--config", config, "--judge"
        )
        assert server.calls == 3
    assert result.exit_code == 0, result.output
    rows = table_rows(result.stdout)
    assert any(row.startswith("judge answer 1 ") for row in rows), result.stdout
    assert any(row.startswith("judge sentence 2 ") for row in rows), result.stdout


def test_calibrate_with_a_judge_that_answers_nothing_measures_nothing(
    write, ragguard_cli, monkeypatch
):
    """It printed accuracy 0.00 and kappa 0.00 with n=0 and exited 0."""
    monkeypatch.setenv("CAL_KEY", "k")
    with FakeOpenAI(default="503") as server:
        config = write(
            "ragguard.yml",
            f"judge: {{base_url: '{server.base_url}', model: m, api_key_env: CAL_KEY, "
            "cache: false, max_retries: 0}\n",
        )
        result = ragguard_cli(
            "calibrate", write("cal.yaml", CALIBRATION), "--config", config, "--judge"
        )
    assert result.exit_code == 3, result.output
    rows = [row.split() for row in table_rows(result.stdout) if row.startswith("judge ")]
    assert rows and all(row[2] == "0" and row[4:6] == ["n/a", "n/a"] for row in rows), rows
    assert "the judge answered none of the 3 items" in result.output


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("- id: a\n  context: x\n  supported: true\n", ["cal.yaml:1:", "exactly one of sentence"]),
        (
            "- id: a\n  context: x\n  sentence: s\n  supported: maybe\n",
            ["cal.yaml:4: supported:", "true or false"],
        ),
        ("- id: a\n  context: 3\n  sentence: s\n  supported: true\n", ["cal.yaml:2: context:"]),
        (
            "- id: a\n  sentence: s\n  supported: true\n  verdict: 1\n",
            ["cal.yaml:4: verdict:", "unknown key"],
        ),
        (
            "- {id: a, context: x, sentence: s, supported: true}\n- {id: a, context: x, sentence: t, supported: true}\n",
            ["cal.yaml:2: id:", "duplicate"],
        ),
        ("a: 1\n", ["cal.yaml:", "expected a list"]),
    ],
)
def test_bad_calibration_files(write, cli_error, text, fragments):
    cli_error(["calibrate", write("cal.yaml", text)], *fragments)


def test_context_is_required(write, cli_error):
    cli_error(
        ["calibrate", write("cal.yaml", "- {id: a, sentence: s, supported: true}\n")],
        "cal.yaml:1: context:",
        "is required",
    )


HUMAN_TESTSET = """\
- id: rpm
  question: How many requests per minute are allowed?
  relevant: [rate-limits]
  meta:
    human:
      faithful: false
      sentences: {s1: true, s3: false}
- id: unlabelled
  question: Anything else?
  relevant: [rate-limits]
"""
HUMAN_RUN = (
    '{"id": "rpm", "retrieved": ["rate-limits"], "answer": "You can send 100 requests per '
    'minute per API key. Extra requests return status 429. Limits reset every hour."}\n'
    '{"id": "unlabelled", "retrieved": ["rate-limits"], "answer": "Yes."}\n'
)
HUMAN_CORPUS = (
    '{"id": "rate-limits", "text": "Each API key may send 100 requests per minute. Extra '
    'requests return status 429 with a Retry-After header."}\n'
)


def calibrate_on_the_human_testset(write, ragguard_cli, *options: str):
    return ragguard_cli(
        "calibrate",
        "--testset",
        write("testset.yaml", HUMAN_TESTSET),
        "--run",
        write("run.jsonl", HUMAN_RUN),
        "--corpus",
        write("chunks.jsonl", HUMAN_CORPUS),
        *options,
    )


def table_rows(output: str) -> list[str]:
    return [" ".join(line.split()) for line in output.splitlines()]


def test_verdicts_carried_by_the_test_set(write, ragguard_cli):
    result = calibrate_on_the_human_testset(write, ragguard_cli)
    assert result.exit_code == 0, result.output
    assert "3 items: 2 sentence verdicts, 1 answer verdicts" in result.stdout
    rows = table_rows(result.stdout)
    assert "lexical answer 1 1 1.00 1.00 0" in rows
    assert "lexical sentence 2 2 1.00 1.00 0" in rows


def test_the_judge_is_asked_once_per_answer_for_its_sentence_verdicts(
    write, ragguard_cli, monkeypatch
):
    monkeypatch.setenv("CAL_KEY", "k")
    with FakeOpenAI() as server:
        config = write(
            "ragguard.yml",
            f"judge: {{base_url: '{server.base_url}', model: m, api_key_env: CAL_KEY, cache: false}}\n",
        )
        result = calibrate_on_the_human_testset(write, ragguard_cli, "--config", config, "--judge")
        assert server.calls == 1  # one answer: its two sentence verdicts come from that call
        prompt = server.requests[0].body["messages"][1]["content"]
    assert result.exit_code == 0, result.output
    assert "s3: Limits reset every hour." in prompt
    rows = table_rows(result.stdout)
    assert "judge answer 1 1 1.00 1.00 0" in rows
    assert "judge sentence 2 2 1.00 1.00 0" in rows


def test_sentence_ids_in_meta_human_are_checked(write, cli_error):
    testset = HUMAN_TESTSET.replace("s3: false", "s9: false")
    cli_error(
        [
            "calibrate",
            "--testset",
            write("testset.yaml", testset),
            "--run",
            write("run.jsonl", HUMAN_RUN),
            "--corpus",
            write("chunks.jsonl", HUMAN_CORPUS),
        ],
        "testset.yaml:7: meta.human:",  # the line of the sentence verdicts
        "sentence 's9' must be one of the answer's ids (s1, s2, s3)",
    )


def test_sentence_ids_in_a_jsonl_test_set_are_checked_naming_the_questions_line(write, cli_error):
    entry = {
        "id": "rpm",
        "question": "How many requests per minute are allowed?",
        "relevant": ["rate-limits"],
        "meta": {"human": {"sentences": {"s9": False}}},
    }
    testset = write(
        "testset.jsonl",
        '{"id": "other", "question": "Q?", "relevant": ["a"]}\n' + json.dumps(entry) + "\n",
    )
    cli_error(
        [
            "calibrate",
            "--testset",
            testset,
            "--run",
            write("run.jsonl", HUMAN_RUN),
            "--corpus",
            write("chunks.jsonl", HUMAN_CORPUS),
        ],
        "testset.jsonl:2: meta.human:",
        "sentence 's9' must be one of the answer's ids",
    )


def test_a_run_of_chunk_ids_without_a_corpus_is_refused_as_score_refuses_it(
    write, ragguard_cli, cli_error
):
    """Judging the answers against no context would call every sentence unsupported."""
    testset, run = write("testset.yaml", HUMAN_TESTSET), write("run.jsonl", HUMAN_RUN)
    scored = ragguard_cli("score", "--testset", testset, "--run", run, "--metrics", "faithfulness")
    line = cli_error(
        ["calibrate", "--testset", testset, "--run", run],
        f"{run}:1: retrieved:",
        "retrieved chunk 'rate-limits' of question 'rpm' has no text, and none (no --corpus given)",
    )
    assert scored.exit_code == 2 and scored.stderr == line + "\n"
