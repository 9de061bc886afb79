"""An unset judge API key is found before the system is asked anything
(pipeline.passes.check_judge_key), also when the judged metric is the abstention a test set
with ``answerable: false`` questions gets by default: it was found only when scoring, after
the system had answered every question."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from ragguard.config.model import RunSettings
from ragguard.core.errors import InputError
from ragguard.core.exits import EXIT_ERROR
from ragguard.metrics.names import parse_metric_list
from ragguard.metrics.settings import GenerationSettings, JudgeSettings
from ragguard.pipeline.evaluate import evaluate_system
from ragguard.pipeline.passes import check_judge_key, judged_sections
from ragguard.pipeline.reporter import SilentReporter
from ragguard.system.base import Answer
from ragguard.testset.model import Question, TestSet

KEY_ENV = "RAGGUARD_TEST_JUDGEKEY_UNSET"
TESTSET = """\
- id: auth
  question: How do I authenticate?
  relevant: [auth]
- id: ceo
  question: What is the CEO's favourite colour?
  answerable: false
"""
ABSTENTION_JUDGED = "abstention: {method: judge}\n"
JUDGE = (
    "judge:\n"
    "  base_url: http://127.0.0.1:9/v1\n"
    "  model: m\n"
    "  max_retries: 0\n"
    f"  api_key_env: {KEY_ENV}\n"
)
KEY_LINE = 11  # api_key_env's line in the config _suite writes
BOTH = TestSet(
    (
        Question("auth", "How do I authenticate?", {"auth": 1}),
        Question("ceo", "What is the CEO's favourite colour?", answerable=False),
    )
)
JUDGE_SETTINGS = JudgeSettings(base_url="http://127.0.0.1:9/v1", model="m", api_key_env=KEY_ENV)


@pytest.fixture(autouse=True)
def _no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)


def _suite(folder: Path, sections: str = ABSTENTION_JUDGED, testset: str = TESTSET) -> Path:
    """A suite whose python system writes down every question it is asked (asked.txt)."""
    (folder / "testset.yaml").write_text(testset)
    module = f"judgekey_{uuid.uuid4().hex[:10]}"
    (folder / f"{module}.py").write_text(
        "def answer(question, id):\n"
        f"    with open({str(folder / 'asked.txt')!r}, 'a') as f:\n"
        "        f.write(id + '\\n')\n"
        "    return {'retrieved': ['auth'], 'answer': 'Send the key.'}\n"
    )
    config = folder / "ragguard.yml"
    config.write_text(
        f"suite: judgekey\ntestset: testset.yaml\nsystem:\n  python: {module}:answer\n"
        f"metrics: [hit_rate@1]\n{sections}{JUDGE}"
    )
    return config


def _asked(folder: Path) -> list[str]:
    asked = folder / "asked.txt"
    return asked.read_text().split() if asked.exists() else []


def test_run_with_the_default_abstention_judged_asks_the_system_nothing(tmp_path, cli_error):
    config = _suite(tmp_path)
    out = tmp_path / "out.json"
    line = cli_error(
        ["run", "--config", config, "--out", out],
        f"ragguard.yml:{KEY_LINE}: judge.api_key_env: ",
        f"environment variable {KEY_ENV} is not set",
        "abstention uses the judge",
        f"export the judge's API key in {KEY_ENV}",
        "abstention: {method: lexical}",
    )
    assert _asked(tmp_path) == [], line
    assert not out.exists() and not (tmp_path / "out.run.jsonl").exists()


def test_every_judged_metric_is_named_with_its_offline_method(tmp_path, cli_error):
    config = _suite(tmp_path, "faithfulness: judge\n" + ABSTENTION_JUDGED)
    config.write_text(config.read_text().replace("[hit_rate@1]", "[hit_rate@1, faithfulness]"))
    cli_error(
        ["run", "--config", config],
        "faithfulness and abstention use the judge",
        "(faithfulness: {method: lexical}, abstention: {method: lexical})",
    )
    assert _asked(tmp_path) == []


def test_a_recorded_run_is_checked_before_it_is_scored_or_its_records_written(tmp_path, cli_error):
    config = _suite(tmp_path)
    (tmp_path / "run.jsonl").write_text(
        '{"id": "auth", "retrieved": ["auth"], "answer": "Send the key."}\n'
        '{"id": "ceo", "retrieved": [], "answer": "Blue."}\n'
    )
    text = config.read_text()
    config.write_text(text.replace(text.split("\n")[3], "  recorded: run.jsonl"))
    out = tmp_path / "out.json"
    cli_error(["run", "--config", config, "--out", out], "judge.api_key_env:", KEY_ENV)
    assert not out.exists() and not (tmp_path / "out.run.jsonl").exists()


def test_an_estimate_needs_no_key(tmp_path, ragguard_cli):
    config = _suite(tmp_path)
    done = ragguard_cli("run", "--config", config, "--out", tmp_path / "out.json", "--estimate")
    assert done.exit_code == 0, done.output
    assert "judge dry run: 1 answers to judge" in done.stdout
    assert sorted(_asked(tmp_path)) == ["auth", "ceo"]


def test_with_the_key_set_the_system_is_asked(tmp_path, ragguard_cli, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    config = _suite(tmp_path)
    done = ragguard_cli("run", "--config", config, "--out", tmp_path / "out.json")
    assert sorted(_asked(tmp_path)) == ["auth", "ceo"]
    assert done.exit_code == EXIT_ERROR, done.output  # the judge at port 9 does not answer
    assert "api_key_env" not in done.stderr


@pytest.mark.parametrize(
    ("sections", "testset"),
    [
        ("abstention: {method: lexical}\n", TESTSET),
        ("abstention: {method: judge, auto: false}\n", TESTSET),
        (ABSTENTION_JUDGED, TESTSET.replace("  answerable: false\n", "  relevant: [auth]\n")),
        ("answer_relevance: judge\n", TESTSET),  # listed nowhere: not scored
    ],
    ids=["lexical", "auto-off", "all-answerable", "unlisted-judged-metric"],
)
def test_no_judged_metric_no_key_needed(tmp_path, ragguard_cli, sections, testset):
    config = _suite(tmp_path, sections, testset)
    done = ragguard_cli("run", "--config", config, "--out", tmp_path / "out.json")
    assert done.exit_code == 0, done.output
    assert sorted(_asked(tmp_path)) == ["auth", "ceo"]


def _generation(**methods: str) -> GenerationSettings:
    return GenerationSettings(judge=JUDGE_SETTINGS, **methods)


def test_judged_sections_follow_the_metrics_a_run_is_scored_with():
    metrics = parse_metric_list("hit_rate@1,hallucination_free,answer_relevance")
    judged = _generation(faithfulness_method="judge", relevance_method="judge")
    assert judged_sections(BOTH, metrics, judged) == ("faithfulness", "answer_relevance")
    unanswerable = TestSet((BOTH.questions[1],))
    assert judged_sections(unanswerable, metrics, judged) == ("faithfulness",)
    assert judged_sections(BOTH, metrics, _generation(abstention_method="judge")) == ("abstention",)
    auto_off = GenerationSettings(abstention_method="judge", abstention_auto=False)
    assert judged_sections(BOTH, metrics, auto_off) == ()


def test_a_server_without_a_key_needs_none():
    no_key = JudgeSettings(base_url="http://127.0.0.1:9/v1", model="m")
    generation = GenerationSettings(abstention_method="judge", judge=no_key)
    check_judge_key(BOTH, parse_metric_list("hit_rate@1"), generation, environ={})
    with pytest.raises(InputError, match="abstention uses the judge"):
        check_judge_key(
            BOTH,
            parse_metric_list("hit_rate@1"),
            _generation(abstention_method="judge"),
            environ={},
        )


class CountingSystem:
    """A system under test that counts the questions it is asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def identity(self) -> dict[str, Any]:
        return {"kind": "counting"}

    def ask(self, question: Question, timeout: float) -> Answer:
        self.asked.append(question.id)
        return Answer(answer="Send the key.")


def test_a_system_already_built_is_not_asked_either():
    """evaluate_system (the demo's pipelines) checks the key as evaluate does."""
    system = CountingSystem()
    with pytest.raises(InputError, match=r"judge\.api_key_env"):
        evaluate_system(
            system,
            BOTH,
            parse_metric_list("hit_rate@1"),
            RunSettings(),
            _generation(abstention_method="judge"),
            suite="judgekey",
            reporter=SilentReporter(),
        )
    assert system.asked == []
