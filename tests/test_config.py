"""ragguard.yml: typed settings, and one-line errors naming the file, key and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragguard.config.load import load_config
from ragguard.config.model import DEFAULT_CONCURRENCY
from ragguard.config.reader import parse_duration
from ragguard.core.errors import InputError
from ragguard.metrics.names import DEFAULT_METRICS

TESTSET = """\
- id: q1
  question: How do I authenticate?
  relevant: [authentication]
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "testset.yaml").write_text(TESTSET, encoding="utf-8")
    (tmp_path / "eval" / "chunks.jsonl").write_text('{"id": "a", "text": "x"}\n')
    return tmp_path


def write_config(folder: Path, text: str) -> Path:
    path = folder / "ragguard.yml"
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path) -> InputError:
    with pytest.raises(InputError) as caught:
        load_config(path)
    return caught.value


def test_full_config_is_typed_and_paths_are_relative_to_the_file(suite: Path) -> None:
    path = write_config(
        suite,
        """\
suite: orders-api-docs
testset: eval/testset.yaml
corpus: eval/chunks.jsonl
system:
  http: http://127.0.0.1:8000/ask
  method: GET
  concurrency: 8
  timeout: 500ms
  retries: 3
  max_error_rate: 0.1
metrics: [hit_rate@1, mrr, ndcg@3]
gate:
  metrics:
    mrr: {max_drop: 0.02}
judge: {model: gpt-4o-mini}
""",
    )
    config = load_config(path)
    assert config.suite == "orders-api-docs"
    assert config.root == suite.resolve()
    assert config.testset == suite.resolve() / "eval" / "testset.yaml"
    assert config.corpus == suite.resolve() / "eval" / "chunks.jsonl"
    assert config.system.kind == "http"
    assert config.system.target == "http://127.0.0.1:8000/ask"
    assert config.system.options == {"method": "GET"}
    run = config.system.run
    assert (run.concurrency, run.timeout, run.retries, run.max_error_rate) == (8, 0.5, 3, 0.1)
    assert [spec.name for spec in config.metrics] == ["hit_rate@1", "mrr", "ndcg@3"]
    assert set(config.sections) == {"gate", "judge"}
    # sections owned by other code keep their line numbers for their own errors
    assert config.sections["gate"].key_lines["metrics"] == 13
    assert config.sections["judge"]["model"] == "gpt-4o-mini"


def test_defaults(suite: Path) -> None:
    config = load_config(
        write_config(suite, "testset: eval/testset.yaml\nsystem: {python: app.rag:answer}\n")
    )
    assert config.suite == suite.name
    assert config.corpus is None
    assert config.system.run.concurrency == DEFAULT_CONCURRENCY
    assert config.system.run.timeout == 30.0
    assert [spec.name for spec in config.metrics] == list(DEFAULT_METRICS)


def test_a_folder_name_that_is_not_utf8_names_no_suite(tmp_path: Path) -> None:
    """Its bytes reach Python as lone surrogates, which no results file could hold
    (docs/formats.md, "Decisions the formats leave open"): set suite: instead."""
    folder = tmp_path / "eval-\udcff"  # the byte 0xff, as os.fsdecode gives it
    folder.mkdir()
    (folder / "testset.yaml").write_text(TESTSET, encoding="utf-8")
    body = "testset: testset.yaml\nsystem: {python: app.rag:answer}\n"
    error = error_of(write_config(folder, body))
    assert error.key == "suite"
    assert "the folder's name ('eval-\\udcff') is not UTF-8 text" in error.message
    assert load_config(write_config(folder, "suite: eval\n" + body)).suite == "eval"


@pytest.mark.parametrize(
    ("text", "line", "key", "fragment"),
    [
        ("testset: eval/testset.yaml\nsytem: {python: a:b}\n", 2, "sytem", "did you mean 'system'"),
        ("testset: eval/nope.yaml\nsystem: {python: a:b}\n", 1, "testset", "not found"),
        ("testset: eval\nsystem: {python: a:b}\n", 1, "testset", "is a directory"),
        ("testset: [a]\nsystem: {python: a:b}\n", 1, "testset", "expected a file path"),
        ("system: {python: a:b}\n", 1, "testset", "missing"),
        ("testset: eval/testset.yaml\n", 1, "system", "missing"),
        (
            "testset: eval/testset.yaml\ncorpus: eval/missing.jsonl\nsystem: {python: a:b}\n",
            2,
            "corpus",
            "not found",
        ),
        ("testset: eval/testset.yaml\nsystem: python\n", 2, "system", "expected a mapping"),
        (
            "testset: eval/testset.yaml\nsystem:\n  python: a:b\n  http: http://x\n",
            3,
            "system",
            "found python and http",
        ),
        ("testset: eval/testset.yaml\nsystem:\n  timeout: 3s\n", 3, "system", "found none"),
        (
            "testset: eval/testset.yaml\nsystem:\n  python: a:b\n  concurency: 2\n",
            4,
            "system.concurency",
            "did you mean 'concurrency'",
        ),
        (
            "testset: eval/testset.yaml\nsystem:\n  python: a:b\n  method: GET\n",
            4,
            "system.method",
            "unknown key",
        ),
        (
            "testset: eval/testset.yaml\nsystem:\n  python: a:b\n  concurrency: 0\n",
            4,
            "system.concurrency",
            "1 to 256",
        ),
        (
            "testset: eval/testset.yaml\nsystem:\n  python: a:b\n  concurrency: two\n",
            4,
            "system.concurrency",
            "whole number",
        ),
        (
            "testset: eval/testset.yaml\nsystem:\n  python: a:b\n\n  timeout: soon\n",
            5,
            "system.timeout",
            "duration such as 30s",
        ),
        (
            "testset: eval/testset.yaml\nsystem:\n  python: a:b\n  retries: -1\n",
            4,
            "system.retries",
            "0 to 10",
        ),
        (
            "testset: eval/testset.yaml\nsystem:\n  python: a:b\n  max_error_rate: 5\n",
            4,
            "system.max_error_rate",
            "share from 0 to 1",
        ),
        (
            "testset: eval/testset.yaml\nsystem:\n  recorded: eval/run.jsonl\n",
            3,
            "system.recorded",
            "not found",
        ),
        (
            "testset: eval/testset.yaml\nsystem: {python: a:b}\nmetrics:\n  - mrr\n  - hitrate@3\n",
            5,
            "metrics",
            "unknown metric 'hitrate@3'",
        ),
        (
            "testset: eval/testset.yaml\nsystem: {python: a:b}\nmetrics: [recall]\n",
            3,
            "metrics",
            "needs a cut-off",
        ),
        (
            "testset: eval/testset.yaml\nsystem: {python: a:b}\nmetrics: {mrr: 1}\n",
            3,
            "metrics",
            "expected a list",
        ),
        ("testset: eval/testset.yaml\nsuite: a b\nsystem: {python: a:b}\n", 2, "suite", "name"),
    ],
)
def test_bad_config_names_file_key_and_line(
    suite: Path, text: str, line: int | None, key: str, fragment: str
) -> None:
    path = write_config(suite, text)
    error = error_of(path)
    assert error.source == str(path)
    assert error.line == line
    assert error.key == key
    assert fragment in error.message
    assert str(error).startswith(f"{path}:{line}: {key}:" if line else f"{path}: {key}:")


def test_not_a_mapping_and_missing_file(tmp_path: Path) -> None:
    assert "expected a mapping" in error_of(write_config(tmp_path, "- a\n- b\n")).message
    missing = error_of(tmp_path / "nothing.yml")
    assert "ragguard init" in missing.message


def test_yaml_syntax_error_names_the_line(suite: Path) -> None:
    error = error_of(write_config(suite, "testset: eval/testset.yaml\nsystem: {python: [\n"))
    assert "YAML syntax error" in error.message
    assert error.line is not None


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("30s", 30.0), ("500ms", 0.5), ("2m", 120.0), ("1.5s", 1.5), (10, 10.0), (0.25, 0.25)],
)
def test_durations(value: object, seconds: float) -> None:
    assert parse_duration(value) == seconds


@pytest.mark.parametrize("value", ["0s", 0, -1, "fast", "10 hours", True, None, float("nan")])
def test_bad_durations(value: object) -> None:
    assert parse_duration(value) is None


SECTIONS_SUITE = """\
suite: s
testset: eval/testset.yaml
system: {{recorded: run.jsonl}}
metrics: [mrr, faithfulness]
{extra}"""


@pytest.mark.parametrize(
    "extra",
    [
        "faithfulness: {threshold: 0.6}\ngate: {max_drop: 0.1}\n",
        "faithfulness:\n  method: lexical\n  treshold: 0.8\n",
        "answer_relevance: judge\n",
        "judge:\n  base_url: ftp://x\n  model: m\n",
        "gate:\n  metrics:\n    mrr: {max_dorp: 0.1}\n",
    ],
)
def test_sections_are_typed_from_the_loaded_config_as_from_the_file(
    suite: Path, extra: str
) -> None:
    """generation_settings_of and gate_rules_of type the sections load_config parsed: the
    same settings and, for a mistake, the same one-line error as reading the file again."""
    from ragguard.config.sections.gate import gate_rules_from_mapping, gate_rules_of
    from ragguard.config.sections.generation import generation_settings, generation_settings_of
    from ragguard.core.yaml_lines import parse_yaml

    (suite / "run.jsonl").write_text('{"id": "q1", "retrieved": ["a"]}\n')
    path = write_config(suite, SECTIONS_SUITE.format(extra=extra))
    config = load_config(path)
    raw = parse_yaml(path.read_text(encoding="utf-8"), path)

    def outcome(typed):
        try:
            return typed()
        except InputError as exc:
            return str(exc)

    assert outcome(lambda: generation_settings_of(config)) == outcome(
        lambda: generation_settings(raw, str(path))
    )
    assert outcome(lambda: gate_rules_of(config)) == outcome(
        lambda: gate_rules_from_mapping(raw.get("gate"), path)
    )


def test_a_run_reads_ragguard_yml_once(suite: Path, ragguard_cli, monkeypatch) -> None:
    (suite / "run.jsonl").write_text(
        '{"id": "q1", "retrieved": [{"id": "a", "text": "Send a bearer token."}], '
        '"answer": "Send a bearer token."}\n'
    )
    path = write_config(
        suite,
        SECTIONS_SUITE.format(extra="faithfulness: {threshold: 0.6}\ngate: {max_drop: 0.1}\n"),
    )
    reads: list[Path] = []
    read_bytes = Path.read_bytes

    def counted(self: Path) -> bytes:
        if self.name == "ragguard.yml":
            reads.append(self)
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    result = ragguard_cli("run", "-c", path, "--out", suite / "results.json")
    assert result.exit_code == 0, result.output
    assert len(reads) == 1


DIGITS = "9" * 400


@pytest.mark.parametrize("value", [f"{DIGITS}s", f"{DIGITS}ms", DIGITS, f"{DIGITS}.5m"])
def test_a_duration_of_hundreds_of_digits_is_refused_not_infinite(value: str) -> None:
    """It became infinity and was accepted; an infinite timeout then failed every question."""
    assert parse_duration(value) is None


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (f"system:\n  python: app:answer\n  timeout: {DIGITS}s\n", "system.timeout"),
        (
            "system:\n  python: app:answer\n"
            f"gate:\n  metrics:\n    latency_p95: {{max_increase: '{DIGITS}%'}}\n",
            "gate.metrics.latency_p95.max_increase",
        ),
        (
            "system:\n  python: app:answer\n"
            f"judge: {{base_url: 'http://127.0.0.1:1/v1', model: m, timeout: {DIGITS}s}}\n",
            "judge.timeout",
        ),
    ],
)
def test_numbers_of_hundreds_of_digits_in_text_are_one_line_errors(
    suite: Path, text: str, key: str
) -> None:
    path = write_config(suite, "suite: s\ntestset: eval/testset.yaml\n" + text)
    with pytest.raises(InputError) as caught:
        config = load_config(path)
        typed = [config.gate, config.generation]  # the sections are typed on first use
        pytest.fail(f"accepted: {typed}")
    assert caught.value.key == key
    assert "\n" not in str(caught.value)
