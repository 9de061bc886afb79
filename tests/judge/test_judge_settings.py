"""Generation settings from ragguard.yml: defaults, shorthands and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragguard.config.sections.generation import generation_settings
from ragguard.core.errors import InputError
from ragguard.core.yaml_lines import parse_yaml
from ragguard.metrics.faithfulness import DEFAULT_THRESHOLD
from ragguard.metrics.faithfulness_model import shipped_model
from ragguard.metrics.settings import DEFAULT_CACHE


def settings(text: str, path: str = "/repo/ragguard.yml", **kwargs):
    return generation_settings(parse_yaml(text, path), path, **kwargs)


def error(text: str, **kwargs) -> str:
    with pytest.raises(InputError) as caught:
        settings(text, **kwargs)
    return str(caught.value)


def test_defaults_without_a_config():
    result = generation_settings(None, "ragguard.yml")
    assert (result.faithfulness_method, result.threshold) == ("lexical", DEFAULT_THRESHOLD)
    assert (result.relevance_method, result.abstention_method) == ("lexical", "lexical")
    assert result.judge is None and not result.uses_judge


@pytest.mark.parametrize("level", ["lenient", "balanced", "strict"])
def test_a_strictness_level_is_its_measured_threshold(level):
    result = settings(f"faithfulness: {{strictness: {level}}}\n")
    assert result.threshold == shipped_model().threshold(level)
    assert result.fingerprint(["faithfulness"])["faithfulness"]["threshold"] == result.threshold


def test_strictness_errors_name_the_key():
    assert "faithfulness.strictness: strictness must be one of lenient, balanced, strict, " in (
        error("faithfulness: {strictness: [strict]}\n")
    )
    both = error("faithfulness:\n  strictness: strict\n  threshold: 0.5\n")
    assert "ragguard.yml:3: faithfulness.threshold: set strictness or threshold, not both" in both


def test_full_judge_section():
    result = settings(
        """
faithfulness: judge
answer_relevance: {method: judge}
judge:
  base_url: http://127.0.0.1:11434/v1/
  model: llama3.1
  api_key_env: OLLAMA_KEY
  api_version: 2024-06-01
  temperature: 0.2
  seed: 3
  max_tokens: 512
  json_mode: false
  concurrency: 8
  timeout: 2m
  max_retries: 2
  max_calls: 100
  cache: .cache/judge
"""
    )
    judge = result.judge
    assert result.faithfulness_method == "judge" and result.relevance_method == "judge"
    assert judge.chat_url == "http://127.0.0.1:11434/v1/chat/completions"
    assert (judge.model, judge.api_key_env, judge.api_version) == (
        "llama3.1",
        "OLLAMA_KEY",
        "2024-06-01",
    )
    assert (judge.temperature, judge.seed, judge.max_tokens, judge.json_mode) == (
        0.2,
        3,
        512,
        False,
    )
    assert (judge.concurrency, judge.timeout, judge.max_retries, judge.max_calls) == (
        8,
        120.0,
        2,
        100,
    )
    assert judge.cache_dir == Path("/repo/.cache/judge")
    assert result.fingerprint(["faithfulness", "answer_f1"]) == {
        "faithfulness": {"method": "judge"},
        "judge": {"model": "llama3.1", "temperature": 0.2, "seed": 3, "prompt": "ragguard-judge/2"},
    }


def test_judge_defaults_and_cache_off():
    judge = settings("judge: {base_url: 'https://x.example/v1', model: m}").judge
    assert (judge.temperature, judge.seed, judge.max_tokens, judge.concurrency) == (0.0, 0, 1024, 4)
    assert judge.cache_dir == Path("/repo") / DEFAULT_CACHE
    assert judge.api_key_env is None
    off = settings("judge: {base_url: 'https://x.example/v1', model: m, cache: false}").judge
    assert off.cache_dir is None


def test_command_line_judge_switches_every_metric():
    result = settings("judge: {base_url: 'https://x.example/v1', model: m}", judge_override=True)
    assert set(result.methods().values()) == {"judge"}


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        (
            "faithfulness: {method: llm}\n",
            ["ragguard.yml:1: faithfulness.method:", "lexical or judge"],
        ),
        (
            "faithfulness:\n  threshold: 1.5\n",
            ["ragguard.yml:2: faithfulness.threshold:", "(0, 1]"],
        ),
        (
            "faithfulness:\n  method: lexical\n  treshold: 0.8\n",
            ["ragguard.yml:3: faithfulness.treshold:", "did you mean 'threshold'?"],
        ),
        ("faithfulness: [judge]\n", ["ragguard.yml:1: faithfulness:", "found a list"]),
        ("faithfulness: judge\n", ["ragguard.yml:1: judge:", "no judge: section"]),
        ("judge:\n  model: m\n", ["ragguard.yml:1: judge.base_url:", "is required"]),
        (
            "judge:\n  base_url: ftp://x\n  model: m\n",
            ["ragguard.yml:2: judge.base_url:", "http(s) URL"],
        ),
        ("judge:\n  base_url: http://x/v1\n", ["judge.model:", "is required"]),
        (
            "judge:\n  base_url: http://x/v1\n  model: m\n  concurrency: 0\n",
            ["ragguard.yml:4: judge.concurrency:", "from 1 to 256"],
        ),
        (
            "judge:\n  base_url: http://x/v1\n  model: m\n  timeout: soon\n",
            ["ragguard.yml:4: judge.timeout:", "duration"],
        ),
        (
            "judge:\n  base_url: http://x/v1\n  model: m\n  json_mode: yes please\n",
            ["ragguard.yml:4: judge.json_mode:", "true or false"],
        ),
        (
            "judge:\n  base_url: http://x/v1\n  model: m\n  api_key: sk-123\n",
            ["ragguard.yml:4: judge.api_key:", "did you mean 'api_key_env'?"],
        ),
        (
            "judge:\n  base_url: http://x/v1\n  model: m\n  cache: 3\n",
            ["ragguard.yml:4: judge.cache:", "false to turn the cache off"],
        ),
        (
            "judge:\n  base_url: http://x/v1\n  model: m\n  max_calls: -1\n",
            ["ragguard.yml:4: judge.max_calls:", ">= 0"],
        ),
    ],
)
def test_errors_name_file_line_and_key(text, fragments):
    message = error(text)
    for fragment in fragments:
        assert fragment in message, message
    assert "\n" not in message
