"""Property-based tests (hypothesis) of every loader and the CLI entry points.

Whatever the bytes of an input file, a loader returns a value or raises InputError whose
message is one line; the CLI exits with a documented code and, on bad input, prints exactly
one ``ragguard: error:`` line and no traceback. The generated inputs lean towards what broke
ragguard before: JSON and YAML of every shape, digits that are not ASCII, huge numbers,
Unicode line separators, control characters, deep nesting, numbers out of float range.

Derandomized, so that CI sees the same examples on every run; ``RAGGUARD_PROPERTY_EXAMPLES``
widens the search by hand (random, that many examples per property).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragguard.cli.app import cli
from ragguard.config.load import load_config
from ragguard.core.errors import InputError
from ragguard.core.sources import ascii_int, split_lines
from ragguard.github.events import load_event
from ragguard.judge.calibrate import load_calibration
from ragguard.metrics.names import MetricNameError, parse_metric_list
from ragguard.results.io import load_results
from ragguard.results.records import load_corpus
from ragguard.system.journal import read_journal
from ragguard.testset.formats import load_run_file
from ragguard.testset.formats.beir import load_beir
from ragguard.testset.formats.trec import load_qrels
from ragguard.testset.formats.trec_runs import load_trec_run
from ragguard.testset.load import load_testset
from ragguard.testset.shards import parse_shard

COMMON = Path(__file__).parent / "common"
PROPERTY = settings(
    max_examples=int(os.environ.get("RAGGUARD_PROPERTY_EXAMPLES", "60")),
    deadline=None,
    derandomize="RAGGUARD_PROPERTY_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Characters that broke a parser once: non-ASCII digits, line separators, controls, BOM.
AWKWARD = "²³¹٣٤۵०\u2028\u2029\x85\x0c\x1c\x1d\x1e\x00\ufeff\r\t é\u0301-+.eE:;,#{}[]\"'\\"
awkward_text = st.text(
    alphabet=st.one_of(st.sampled_from(AWKWARD), st.characters(codec="utf-8")), max_size=40
)
numbers = st.one_of(
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([10**400, -(10**400), 2**64]),
)
json_scalars = st.one_of(st.none(), st.booleans(), numbers, awkward_text)
KEYS = (
    "id", "question", "relevant", "retrieved", "answer", "score", "text", "_id", "suite",
    "schema", "questions", "metrics", "summary", "value", "ci", "n", "status", "number",
    "pull_request", "head", "sha", "testset", "system",
)  # fmt: skip
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(awkward_text, st.sampled_from(KEYS)), children, max_size=5),
    ),
    max_leaves=12,
)


def _number_text(value: int | float) -> str:
    return str(value) if isinstance(value, int) else repr(value)


def _jsonl(values: list[Any]) -> str:
    return "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values)


def _raw_numbers(text: str) -> str:
    """Some numbers written as JSON cannot hold: 1e400, a 5,000-digit integer, NaN."""
    return text.replace("0.5", "1e400").replace("17", "1" * 5000).replace("0.25", "NaN")


jsonl_texts = st.one_of(
    st.lists(json_values, max_size=5).map(_jsonl).map(_raw_numbers),
    awkward_text,
    st.integers(min_value=1, max_value=3000).map(lambda n: '{"id": ' + "[" * n + "]" * n + "}\n"),
)
yaml_texts = st.one_of(
    st.lists(json_values, max_size=4).map(lambda v: json.dumps(v, ensure_ascii=False)),
    awkward_text,
    st.lists(
        st.tuples(st.sampled_from(["id", "question", "relevant", "- id", "  - "]), awkward_text),
        max_size=6,
    ).map(lambda pairs: "".join(f"{key}: {value}\n" for key, value in pairs)),
)
tsv_texts = st.lists(
    st.lists(st.one_of(awkward_text, numbers.map(_number_text)), min_size=1, max_size=6),
    max_size=5,
)
results_texts = st.one_of(
    st.builds(
        lambda path, value: _edit_results(path, value),
        st.sampled_from([
            ("suite",), ("schema",), ("questions",), ("questions", 0, "metrics", "mrr"),
            ("questions", 0, "status"), ("questions", 0, "retrieved"), ("summary",),
            ("summary", "mrr", "value"), ("summary", "mrr", "ci"), ("metrics",),
            ("questions", 0, "relevant"), ("questions", 0, "latency_ms"),
        ]),
        json_values,
    ),
    jsonl_texts,
)  # fmt: skip


def _edit_results(path: tuple[Any, ...], value: Any) -> str:
    document = json.loads((COMMON / "results.json").read_text(encoding="utf-8"))
    container = document
    for step in path[:-1]:
        container = container[step]
    container[path[-1]] = value
    return _raw_numbers(json.dumps(document, ensure_ascii=False))


def _one_line_input_error(load: Callable[[Path], Any], folder: Path, name: str, text: str) -> None:
    path = folder / name
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        load(path)
    except InputError as exc:
        assert "\n" not in str(exc) and "\r" not in str(exc), str(exc)


def _check_loader(load: Callable[[Path], Any], name: str, text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        _one_line_input_error(load, Path(folder), name, text)


@PROPERTY
@given(text=yaml_texts)
def test_a_yaml_test_set_loads_or_is_one_input_error(text: str) -> None:
    _check_loader(load_testset, "testset.yaml", text)


@PROPERTY
@given(text=jsonl_texts)
def test_a_jsonl_test_set_loads_or_is_one_input_error(text: str) -> None:
    _check_loader(load_testset, "testset.jsonl", text)


@PROPERTY
@given(rows=tsv_texts)
def test_a_csv_test_set_loads_or_is_one_input_error(rows: list[list[str]]) -> None:
    text = "id,question,relevant,answerable\n" + "".join(",".join(r) + "\n" for r in rows)
    _check_loader(load_testset, "testset.csv", text)


@PROPERTY
@given(text=jsonl_texts)
def test_a_run_file_loads_or_is_one_input_error(text: str) -> None:
    _check_loader(load_run_file, "run.jsonl", text)
    _check_loader(read_journal, "results.run.jsonl", text)
    _check_loader(load_corpus, "corpus.jsonl", text)


def _attribute(key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "value": value}


_SPANS = "resourceSpans", 0, "scopeSpans", 0, "spans"
TRACE = {"resourceSpans": [{"scopeSpans": [{"spans": [
    {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174",
     "startTimeUnixNano": "1", "endTimeUnixNano": "9", "status": {"code": 2, "message": "x"},
     "attributes": [_attribute("input.value", {"stringValue": "How do I authenticate?"})]},
    {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "7uGbfsPBsXQ=",
     "parentSpanId": "eee19b7ec3c1b174", "attributes": [
        _attribute("openinference.span.kind", {"stringValue": "RETRIEVER"}),
        _attribute("retrieval.documents.0.document.id", {"stringValue": "auth"}),
        _attribute("retrieval.documents.0.document.score", {"doubleValue": 0.5}),
        _attribute("llm.token_count.prompt", {"intValue": "17"}),
        _attribute("gen_ai.retrieval.documents", {"stringValue": '[{"id": "a"}]'})]},
]}]}]}  # fmt: skip
TRACE_PATHS = [
    ("resourceSpans",), ("resourceSpans", 0), ("resourceSpans", 0, "scopeSpans"),
    (*_SPANS,), (*_SPANS, 0), (*_SPANS, 0, "traceId"), (*_SPANS, 1, "spanId"),
    (*_SPANS, 1, "parentSpanId"), (*_SPANS, 0, "startTimeUnixNano"), (*_SPANS, 0, "status"),
    (*_SPANS, 0, "status", "code"), (*_SPANS, 0, "attributes"), (*_SPANS, 0, "attributes", 0),
    (*_SPANS, 0, "attributes", 0, "value"), (*_SPANS, 0, "attributes", 0, "value", "stringValue"),
    (*_SPANS, 1, "attributes", 0, "value", "stringValue"), (*_SPANS, 1, "attributes", 1, "value"),
    (*_SPANS, 1, "attributes", 2, "value", "doubleValue"), (*_SPANS, 1, "attributes", 3, "value"),
    (*_SPANS, 1, "attributes", 4, "value", "stringValue"), (*_SPANS, 1, "name"),
]  # fmt: skip


def _edit_trace(path: tuple[Any, ...], value: Any, lines: int) -> str:
    document = json.loads(json.dumps(TRACE))
    container = document
    for step in path[:-1]:
        container = container[step]
    container[path[-1]] = value
    return _raw_numbers(json.dumps(document, ensure_ascii=False, indent=2 if lines else None))


@PROPERTY
@given(
    text=st.builds(
        _edit_trace,
        st.sampled_from(TRACE_PATHS),
        json_values,
        st.integers(min_value=0, max_value=1),
    )
)
def test_a_trace_file_loads_or_is_one_input_error(text: str) -> None:
    _check_loader(
        lambda path: load_run_file(path, {"q1": "How do I authenticate?"}), "t.json", text
    )


@PROPERTY
@given(rows=tsv_texts)
def test_trec_files_load_or_are_one_input_error(rows: list[list[str]]) -> None:
    text = "".join(" ".join(r) + "\n" for r in rows)
    _check_loader(load_trec_run, "run.trec", text)
    _check_loader(load_qrels, "qrels.txt", text)


@PROPERTY
@given(queries=jsonl_texts, rows=tsv_texts)
def test_a_beir_folder_loads_or_is_one_input_error(queries: str, rows: list[list[str]]) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "qrels").mkdir()
        (folder / "corpus.jsonl").write_text('{"_id": "d1", "text": "x"}\n', encoding="utf-8")
        qrels = "".join("\t".join(r) + "\n" for r in rows)
        (folder / "qrels" / "test.tsv").write_text(qrels, encoding="utf-8", errors="replace")
        _one_line_input_error(lambda _path: load_beir(folder), folder, "queries.jsonl", queries)


@PROPERTY
@given(text=results_texts)
def test_a_results_file_loads_or_is_one_input_error(text: str) -> None:
    _check_loader(load_results, "results.json", text)


@PROPERTY
@given(text=yaml_texts)
def test_a_config_and_a_calibration_set_load_or_are_one_input_error(text: str) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for good in ("testset.yaml", "run.jsonl"):
            (folder / good).write_bytes((COMMON / good).read_bytes())
        _one_line_input_error(load_config, folder, "ragguard.yml", text)
        _one_line_input_error(load_calibration, folder, "calibration.yaml", text)


@PROPERTY
@given(text=jsonl_texts)
def test_an_event_payload_loads_or_is_one_value_error(text: str) -> None:
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / "event.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        env = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(path)}
        try:
            load_event(env)
        except ValueError as exc:  # read_settings turns it into the one-line InputError
            assert "\n" not in str(exc), str(exc)


@PROPERTY
@given(text=awkward_text)
def test_metric_names_and_shards_parse_or_are_refused_in_one_line(text: str) -> None:
    try:
        specs = parse_metric_list(f"ndcg@{text}")
    except MetricNameError as exc:
        assert "\n" not in str(exc)
    else:
        assert all(1 <= (spec.k or 1) <= 100_000 for spec in specs)
    try:
        shard = parse_shard(text)
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert 1 <= shard.index <= shard.count


@PROPERTY
@given(text=st.one_of(awkward_text, st.integers().map(str)))
def test_ascii_int_reads_exactly_ascii_digits(text: str) -> None:
    value = ascii_int(text)
    digits = text.removeprefix("-")
    if value is None:
        assert not (digits.isascii() and digits.isdigit() and len(digits) <= 18)
    else:
        assert str(value) == text.lstrip("0") or int(text) == value
        assert digits.isascii() and digits.isdigit()


@PROPERTY
@given(lines=st.lists(awkward_text.map(lambda t: t.replace("\r", "").replace("\n", ""))))
def test_split_lines_breaks_only_at_newlines(lines: list[str]) -> None:
    text = "".join(line + "\n" for line in lines)
    assert split_lines(text) == lines
    assert split_lines(text.replace("\n", "\r\n")) == lines


# ----- the CLI entry points, in-process, as a user calls them ---------------------------------

CLI_CASES = {  # arguments ({w}: the scratch folder), the file made broken, the exit codes
    "score": ("score --testset {w}/testset.yaml --run {w}/run.jsonl", "run.jsonl", {0, 2}),
    "score-testset": (
        "score --testset {w}/testset.jsonl --run {w}/run.jsonl",
        "testset.jsonl",
        {0, 2},
    ),
    "report": ("report {w}/head.json", "head.json", {0, 2}),
    "compare": ("compare {w}/results.json {w}/head.json", "head.json", {0, 1, 2, 3}),
    "merge": ("merge {w}/head.json --out {w}/merged.json", "head.json", {0, 2}),
    "explain": ("explain {w}/head.json q1", "head.json", {0, 2}),
    "run": ("run -c {w}/ragguard.yml --out {w}/out.json", "run.jsonl", {0, 2, 3}),
}


@pytest.mark.parametrize("name", sorted(CLI_CASES))
def test_the_cli_exits_with_a_documented_code_and_one_error_line(name: str) -> None:
    args, broken, codes = CLI_CASES[name]
    texts = results_texts if broken.endswith(".json") else jsonl_texts

    @PROPERTY
    @given(text=texts)
    def check(text: str) -> None:
        with tempfile.TemporaryDirectory() as folder:
            work = Path(folder)
            for good in COMMON.iterdir():
                (work / good.name).write_bytes(good.read_bytes())
            (work / broken).write_bytes(text.encode("utf-8", "surrogatepass"))
            argv = args.format(w=work).split()
            result = CliRunner().invoke(cli, argv, prog_name="ragguard")
        assert result.exit_code in codes, (result.exit_code, result.stderr, result.exception)
        assert "Traceback" not in result.stderr
        if result.exit_code == 2:
            assert result.stderr.count("\n") == 1, result.stderr
            assert result.stderr.startswith("ragguard: error: "), result.stderr

    check()


# ----- lone surrogates in JSON escapes (docs/formats.md, "Decisions the formats leave open") ---

SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
# Strings with surrogates among ordinary characters: json.dumps escapes each as \udXXX, so a
# high one followed by a low one is a valid pair (one character once read), any other alone.
surrogate_text = st.text(
    alphabet=st.one_of(SURROGATES, st.sampled_from('ab é\\"\n')), min_size=1, max_size=12
)
SURROGATE_PLACES = {  # where the string goes in a good line: (file, line number, the line)
    "run answer": (
        "run.jsonl",
        1,
        lambda s: {"id": "q1", "retrieved": ["auth", "errors"], "answer": s},
    ),
    "run chunk text": (
        "run.jsonl",
        2,
        lambda s: {"id": "q2", "retrieved": [{"id": "rate-limits", "text": s}], "answer": "Yes."},
    ),
    "test set question": (
        "testset.jsonl",
        1,
        lambda s: {"id": "q1", "question": "Q " + s, "relevant": {"auth": 2}},
    ),
    "test set meta key": (
        "testset.jsonl",
        2,
        lambda s: {"id": "q2", "question": "Q2?", "relevant": ["rate-limits"], "meta": {s: 1}},
    ),
}
GOOD_LINES = {
    "run.jsonl": [
        {"id": "q1", "retrieved": ["auth", "errors"], "answer": "Send the API key."},
        {"id": "q2", "retrieved": ["rate-limits"], "answer": "100 a minute."},
    ],
    "testset.jsonl": [
        {"id": "q1", "question": "How do I authenticate?", "relevant": {"auth": 2}},
        {"id": "q2", "question": "How many requests?", "relevant": ["rate-limits"]},
    ],
}


@pytest.mark.parametrize("place", sorted(SURROGATE_PLACES))
def test_a_lone_surrogate_escape_is_one_input_error_naming_its_line(place: str) -> None:
    """Whatever surrogates a string's escapes hold, the command exits 0 when they all pair
    up (each pair one character) and 2 with one line naming the file and line otherwise:
    never a traceback or a half-written results file."""
    name, number, line_with = SURROGATE_PLACES[place]

    @PROPERTY
    @given(text=surrogate_text)
    def check(text: str) -> None:
        lone = any(0xD800 <= ord(c) <= 0xDFFF for c in json.loads(json.dumps(text)))
        with tempfile.TemporaryDirectory() as folder:
            work = Path(folder)
            for good, lines in GOOD_LINES.items():
                lines = list(lines)
                if good == name:
                    lines[number - 1] = line_with(text)
                (work / good).write_text("".join(json.dumps(v) + "\n" for v in lines), "ascii")
            argv = ["score", "--testset", f"{work}/testset.jsonl", "--run", f"{work}/run.jsonl"]
            result = CliRunner().invoke(cli, [*argv, "--out", f"{work}/out.json"])
            written = sorted(p.name for p in work.iterdir())
        assert "Traceback" not in result.stderr
        if not lone:
            assert result.exit_code == 0, result.stderr
            return
        assert result.exit_code == 2, (result.stderr, result.exception)
        assert result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith(f"ragguard: error: {work}/{name}:{number}: "), result.stderr
        assert "lone surrogate \\ud" in result.stderr, result.stderr
        assert written == ["run.jsonl", "testset.jsonl"], written

    check()
