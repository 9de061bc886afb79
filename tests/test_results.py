"""The results file (ragguard.results/1): lossless round trip, no NaN, clear refusals."""

from __future__ import annotations

import copy
import json
import os
import stat
from dataclasses import FrozenInstanceError, fields, replace
from itertools import repeat
from typing import Any

import pytest

from ragguard.core.errors import InputError
from ragguard.results.io import load_results, results_from_dict, write_results
from ragguard.results.model import (
    SCHEMA,
    MetricSummary,
    QuestionResult,
    Results,
    SentenceVerdict,
    question_result,
    question_results,
)

RESULTS = Results(
    suite="orders-api",
    created_at="2026-12-02T16:00:00+00:00",
    metrics=("hit_rate@3", "mrr", "faithfulness"),
    summary={
        "hit_rate@3": MetricSummary(0.5, 2, 0.0, 1.0),
        "mrr": MetricSummary(1 / 3, 2, 0.1, 2 / 3),
    },
    questions=(
        QuestionResult(
            id="retry-after-429",
            question="How should a client retry after a 429?",
            status="ok",
            metrics={"hit_rate@3": 1.0, "mrr": 2 / 3},
            retrieved=("error-codes", "rate-limits"),
            relevant={"rate-limits": 2, "error-codes": 1, "pagination": 0},
            fingerprint="0123456789abcdef",
            critical=True,
            tags=("rate-limits", "errors"),
            reference_answer="Wait for Retry-After.",
            answer="Wait 30 s.\nThen retry — *carefully* <b>.",
            sentences=(
                SentenceVerdict("s1", "Wait 30 s.", False, 0.25, None, "number 30 not in evidence"),
                SentenceVerdict("s2", "Then retry.", True, 1.0, "rate-limits"),
                SentenceVerdict("s3", "Unchecked.", None),
            ),
            latency_ms=412.5,
        ),
        QuestionResult(
            id="ünïcode",
            question="",
            status="error",
            metrics={"hit_rate@3": 0.0, "mrr": 0.0},
            error="HTTP 500",
        ),
        QuestionResult(
            id="refund",
            question="Refund in bitcoin?",
            status="abstained",
            metrics={},
            answerable=False,
            answer="I don't know.",
        ),
    ),
    testset_fingerprint="fedcba9876543210",
    config={"system": {"python": "app:answer"}, "k": [1, 3], "threshold": 0.75},
    git={"sha": "a" * 40, "ref": "refs/heads/main"},
)


def test_write_then_read_gives_equal_results(tmp_path):
    path = write_results(RESULTS, tmp_path / "results.json")
    assert load_results(path) == RESULTS


def test_writing_twice_gives_identical_bytes(tmp_path):
    first = write_results(RESULTS, tmp_path / "a" / "results.json").read_bytes()
    second = write_results(RESULTS, tmp_path / "b.json").read_bytes()
    assert first == second
    again = write_results(load_results(tmp_path / "b.json"), tmp_path / "c.json").read_bytes()
    assert again == first
    assert not list(tmp_path.rglob("*.tmp"))


def test_the_file_carries_the_schema_fingerprints_and_counts():
    data = json.loads(RESULTS.to_json())
    assert data["schema"] == SCHEMA == "ragguard.results/1"
    assert data["testset"] == {"fingerprint": "fedcba9876543210", "size": 3}
    assert data["config"]["fingerprint"] == RESULTS.config_fingerprint
    assert data["summary"]["mrr"] == {"value": 1 / 3, "n": 2, "ci": [0.1, 2 / 3]}
    assert data["counts"] == {
        "ok": 1,
        "error": 1,
        "missing": 0,
        "abstained": 1,
        "judge_error": 0,
    }
    assert set(data) == {
        "schema",
        "suite",
        "created_at",
        "ragguard_version",
        "git",
        "testset",
        "config",
        "metrics",
        "summary",
        "counts",
        "questions",
        "columns",
        "columns_check",
    }


def test_config_fingerprint_ignores_key_order_but_not_values():
    reordered = replace(
        RESULTS, config={"threshold": 0.75, "k": [1, 3], "system": {"python": "app:answer"}}
    )
    assert reordered.config_fingerprint == RESULTS.config_fingerprint
    changed = replace(RESULTS, config={**RESULTS.config, "threshold": 0.8})
    assert changed.config_fingerprint != RESULTS.config_fingerprint


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_no_nan_or_infinity_can_be_written(tmp_path, bad):
    question = replace(RESULTS.questions[0], metrics={"mrr": bad})
    broken = replace(RESULTS, questions=(question,))
    path = tmp_path / "results.json"
    with pytest.raises(ValueError):
        write_results(broken, path)
    assert list(tmp_path.iterdir()) == []


def test_a_score_run_results_file_round_trips_through_the_cli(
    ragguard_cli, good_testset, good_run, tmp_path
):
    out = tmp_path / "results.json"
    assert (
        ragguard_cli("score", "--testset", good_testset, "--run", good_run, "--out", out).exit_code
        == 0
    )
    results = load_results(out)
    assert [q.id for q in results.questions] == ["q1", "q2"]
    assert write_results(results, tmp_path / "again.json").read_bytes() == out.read_bytes()
    printed = ragguard_cli("report", out, "--format", "json")
    assert printed.exit_code == 0, printed.stderr
    assert json.loads(printed.stdout)["counts"]["ok"] == 2


# --- refusals -----------------------------------------------------------------------------------


def _mutated(change) -> dict:
    data = copy.deepcopy(json.loads(RESULTS.to_json()))
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "key", "fragment"),
    [
        (lambda d: d.pop("suite"), "suite", "missing"),
        (lambda d: d["testset"].pop("fingerprint"), "testset.fingerprint", "missing"),
        (lambda d: d["config"].pop("settings"), "config.settings", "missing"),
        (lambda d: d["summary"]["mrr"].pop("n"), "summary.mrr.n", "missing"),
        (lambda d: d["questions"][1].pop("status"), "questions[1].status", "missing"),
        (
            lambda d: d["questions"][0]["sentences"][1].pop("text"),
            "questions[0].sentences[1].text",
            "missing",
        ),
        (
            lambda d: d["questions"][0].update(critical="yes"),
            "questions[0].critical",
            "expected true or false, found a string",
        ),
        (
            lambda d: d["summary"]["mrr"].update(value="0.5"),
            "summary.mrr.value",
            "expected a number, found a string",
        ),
        (
            lambda d: d["summary"]["mrr"].update(n=2.5),
            "summary.mrr.n",
            "expected an integer, found a number",
        ),
        (lambda d: d["summary"]["mrr"].update(ci=[0.1]), "summary.mrr.ci", "expected [low, high]"),
        (
            lambda d: d["questions"][2].update(status="great"),
            "questions[2].status",
            "unknown status 'great'",
        ),
        (
            lambda d: d["questions"][0]["metrics"].update(mrr=None),
            "questions[0].metrics.mrr",
            "metric values must be finite numbers",
        ),
        (
            lambda d: d["questions"][0]["retrieved"].append(7),
            "questions[0].retrieved[2]",
            "expected a string, found a number",
        ),
        (
            lambda d: d["questions"][0]["relevant"].update(x=-1),
            "questions[0].relevant.x",
            "expected a non-negative integer grade",
        ),
        (
            lambda d: d["questions"][0]["tags"].append(None),
            "questions[0].tags[2]",
            "expected a string, found null",
        ),
        (lambda d: d["metrics"].append(["x"]), "metrics[3]", "expected a string, found a list"),
        (lambda d: d.update(questions={}), "questions", "expected a list, found a mapping"),
    ],
    ids=lambda value: value if isinstance(value, str) and ("." in value or "[" in value) else None,
)
def test_a_bad_or_missing_key_names_its_path(write, cli_error, change, key, fragment):
    path = write("results.json", json.dumps(_mutated(change)))
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert caught.value.key == key
    assert fragment in caught.value.message
    cli_error(["report", path], f"{path}: {key}: {fragment}")


@pytest.mark.parametrize("schema", ["ragguard.results/2", "ragguard.results/0", "something-else"])
def test_an_unknown_schema_version_is_refused_with_the_supported_versions(write, cli_error, schema):
    path = write("results.json", json.dumps(_mutated(lambda d: d.update(schema=schema))))
    cli_error(
        ["report", path],
        f"{path}: schema: results schema '{schema}' is not supported",
        "reads ragguard.results/1",
        "upgrade ragguard",
    )


def test_a_truncated_results_file_is_refused_with_its_line(write, cli_error, process_error):
    text = RESULTS.to_json()
    cut = text[: len(text) // 2]
    path = write("results.json", cut)
    line = cli_error(["report", path], f"{path}:", "not valid JSON", "truncated")
    assert f"{path}:{cut.count(chr(10)) + 1}:" in line
    process_error(["report", path], f"{path}:", "truncated")


def test_a_results_file_that_is_not_an_object(write, cli_error):
    path = write("results.json", "[1, 2]\n")
    cli_error(["report", path], f"{path}: expected an object, found a list")


def test_nan_in_a_results_file_is_refused(write, cli_error):
    path = write("results.json", RESULTS.to_json().replace('"value": 0.5', '"value": NaN'))
    cli_error(["report", path], f"{path}: not valid JSON", "NaN is not a valid number")


def test_results_from_dict_accepts_integers_for_numbers():
    data = _mutated(lambda d: d["summary"]["hit_rate@3"].update(value=1, ci=[1, 1]))
    assert results_from_dict(data).summary["hit_rate@3"] == MetricSummary(1.0, 2, 1.0, 1.0)


def test_out_pointing_at_a_directory_is_refused_without_a_traceback(
    cli_error, good_testset, good_run, tmp_path
):
    folder = tmp_path / "out"
    folder.mkdir()
    cli_error(
        ["score", "--testset", good_testset, "--run", good_run, "--out", folder],
        f"{folder}: is a directory; give a file name",
    )
    assert not list(tmp_path.glob("*.tmp"))
    assert list(folder.iterdir()) == []


def test_an_unwritable_out_path_is_refused_without_a_traceback(
    cli_error, good_testset, good_run, tmp_path
):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    target = blocker / "results.json"
    cli_error(
        ["score", "--testset", good_testset, "--run", good_run, "--out", target],
        f"{target}: cannot write the results file",
    )


def test_a_baseline_rewritten_through_a_link_keeps_the_link_and_its_mode(tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "baseline.json").write_text("{}")
    os.chmod(tmp_path / "shared" / "baseline.json", 0o664)
    link = tmp_path / "baseline.json"
    os.symlink("shared/baseline.json", link)
    write_results(RESULTS, link)
    assert link.is_symlink() and os.readlink(link) == "shared/baseline.json"
    assert load_results(tmp_path / "shared" / "baseline.json") == load_results(
        write_results(RESULTS, tmp_path / "plain.json")
    )
    assert stat.S_IMODE((tmp_path / "shared" / "baseline.json").stat().st_mode) == 0o664
    assert not list(tmp_path.rglob("*.tmp"))


@pytest.mark.parametrize(
    "retrieved",
    [
        ("plain-1", "plain-2"),
        ('say "hi"', "back\\slash"),
        ("tab\there", "bell\x07", "nl\nx"),
        ("ünïcode", "no\u00a0break", "emoji-\U0001f600"),
        (),
    ],
    ids=["plain", "quote-backslash", "control", "non-ascii", "empty"],
)
def test_retrieved_ids_are_written_as_json_whatever_they_hold(tmp_path, retrieved):
    """Ids needing no escape are joined directly, the others go through the encoder; both
    give JSON that reads back to the same ids, one question a line."""
    question = replace(RESULTS.questions[1], retrieved=retrieved)
    results = replace(RESULTS, questions=(question,))
    path = write_results(results, tmp_path / "results.json")
    assert load_results(path) == results
    line = next(x for x in path.read_text().splitlines() if x.lstrip().startswith('{"id"'))
    assert json.loads(line)["retrieved"] == list(retrieved)


def test_a_question_not_as_ragguard_writes_it_is_read_by_the_checking_reader(write):
    """Integers for numbers take the field-by-field reader, with the same result."""
    data = json.loads(RESULTS.to_json())
    del data["columns"], data["columns_check"]  # as another writer or an older ragguard
    data["questions"][1]["metrics"] = {"hit_rate@3": 0, "mrr": 0}
    data["questions"][1]["latency_ms"] = 12
    loaded = load_results(write("results.json", json.dumps(data)))
    assert loaded.questions[1].metrics == {"hit_rate@3": 0.0, "mrr": 0.0}
    assert loaded.questions[1].latency_ms == 12.0
    assert loaded.questions[0] == RESULTS.questions[0]


def test_question_result_builds_what_the_frozen_dataclass_builds():
    """The bulk paths' constructor: every field given, the same value, still frozen."""
    question = RESULTS.questions[0]
    values = {f.name: getattr(question, f.name) for f in fields(QuestionResult)}
    built = question_result(**values)
    assert type(built) is QuestionResult and built == question
    with pytest.raises(FrozenInstanceError):
        built.id = "changed"  # type: ignore[misc]
    with pytest.raises(KeyError):
        question_result(**{name: v for name, v in values.items() if name != "error"})


def test_question_results_builds_column_by_column_what_the_dataclass_builds():
    """The block reader's constructor: a column (or a repeated value) per field, every field
    given; each question equal to the dataclass's, frozen, with its own values."""
    questions = RESULTS.questions
    columns: dict[str, Any] = {
        f.name: [getattr(q, f.name) for q in questions] for f in fields(QuestionResult)
    }
    columns["usage"] = repeat(None)
    built = question_results(columns, len(questions))
    assert built == list(questions) and all(type(q) is QuestionResult for q in built)
    with pytest.raises(FrozenInstanceError):
        built[0].id = "changed"  # type: ignore[misc]
    fresh = question_results({**columns, "evidence": map(dict, repeat(()))}, 2)
    assert fresh[0].evidence == {} and fresh[0].evidence is not fresh[1].evidence
    with pytest.raises(KeyError):
        question_results({n: c for n, c in columns.items() if n != "error"}, len(questions))
