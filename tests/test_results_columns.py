"""The columns block of a results file: read instead of every question's line, the same
results as parsing the file whole, and a block that disagrees with its lines refused."""

from __future__ import annotations

import copy
import json
import pickle
import zlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import Result
from tests.conftest import assert_input_error

from ragguard.compare.baseline import load_baseline
from ragguard.core.errors import InputError
from ragguard.results import columns as results_columns
from ragguard.results.columns import (
    LINE_FIELDS,
    LazyQuestion,
    read_columns_results,
)
from ragguard.results.io import load_results, write_results
from ragguard.results.model import QuestionResult, RepeatRun, Results
from ragguard.results.usage import Usage
from test_results import RESULTS
from test_results_lines import VARIED, _full_read, _loaded, _mixed

REPEATED = replace(
    RESULTS,
    questions=(
        replace(
            RESULTS.questions[1],
            repeats=(
                RepeatRun("ok", {"hit_rate@3": 1.0, "mrr": 0.5}, latency_ms=3.0),
                RepeatRun("error", {}, error="boom"),
            ),
        ),
        *RESULTS.questions[2:],
    ),
)
METRIC_SETS = replace(  # questions with different metrics, in different orders
    VARIED,
    questions=tuple(
        replace(q, metrics=[{"mrr": 0.5, "ndcg@3": 0.25}, {"ndcg@3": 1.0, "mrr": 0.0}, {}][i % 3])
        for i, q in enumerate(VARIED.questions)
    ),
)
USAGE = replace(
    VARIED,
    questions=(replace(VARIED.questions[0], usage=Usage(10, 5, 15, 0.01)), *VARIED.questions[1:]),
)


@pytest.mark.parametrize(
    "results",
    [RESULTS, VARIED, _mixed(40), REPEATED, METRIC_SETS, USAGE],
    ids=["sentences-and-statuses", "every-kind-of-id", "mixed", "repeats", "metric-sets", "usage"],
)
def test_a_written_file_is_read_from_its_columns_and_equal(
    tmp_path: Path, results: Results
) -> None:
    path = write_results(results, tmp_path / "results.json")
    fast = read_columns_results(path)
    assert fast is not None
    assert {type(q) for q in fast.questions} == {LazyQuestion}
    assert fast == results == _full_read(path)  # every field, the lines' parsed on the way
    assert load_results(path) == results and load_baseline(path).results == results
    for loaded, written in zip(
        read_columns_results(path).questions, results.questions, strict=True
    ):
        assert list(loaded.metrics.items()) == list(written.metrics.items())  # order kept


def test_a_file_without_questions_has_no_block(tmp_path: Path) -> None:
    path = write_results(replace(RESULTS, questions=()), tmp_path / "results.json")
    assert '"columns"' not in path.read_text(encoding="utf-8")
    assert read_columns_results(path) is None
    assert load_results(path) == replace(RESULTS, questions=())


def test_a_question_line_is_parsed_only_when_a_field_outside_the_block_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[int] = []
    entry = results_columns.LineStore.entry
    monkeypatch.setattr(
        results_columns.LineStore, "entry", lambda store, i: parsed.append(i) or entry(store, i)
    )
    path = write_results(RESULTS, tmp_path / "results.json")
    loaded = load_results(path)
    first, last = loaded.questions[0], loaded.questions[-1]
    assert (first.id, first.question, first.status, first.tags) == (
        RESULTS.questions[0].id,
        RESULTS.questions[0].question,
        RESULTS.questions[0].status,
        RESULTS.questions[0].tags,
    )
    assert loaded.counts == RESULTS.counts and parsed == []
    for name in LINE_FIELDS:  # not set until the line is parsed
        with pytest.raises(AttributeError):
            QuestionResult.__dict__[name].__get__(last)
    assert last.retrieved == RESULTS.questions[-1].retrieved
    assert last.answer == RESULTS.questions[-1].answer and parsed == [2]


def test_a_question_from_the_block_behaves_as_the_dataclass(tmp_path: Path) -> None:
    loaded = load_results(write_results(RESULTS, tmp_path / "results.json")).questions[0]
    written = RESULTS.questions[0]
    assert loaded == written and written == loaded
    assert loaded != RESULTS.questions[1] and loaded != "q1"
    assert repr(loaded).endswith(repr(written)[len("QuestionResult") :])
    changed = replace(loaded, status="error", answer="changed")
    assert (changed.status, changed.answer, changed.question) == (
        "error",
        "changed",
        written.question,
    )
    assert changed == replace(written, status="error", answer="changed")
    assert pickle.loads(pickle.dumps(loaded)) == written
    assert copy.deepcopy(loaded) == written
    with pytest.raises(AttributeError):
        loaded.answer = "x"  # type: ignore[misc]  # frozen: not even through the property


def test_a_loaded_file_written_again_gives_the_same_bytes(tmp_path: Path) -> None:
    first = write_results(_mixed(30), tmp_path / "a.json")
    second = write_results(load_results(first), tmp_path / "b.json")
    assert first.read_bytes() == second.read_bytes()


def _edit_block(text: str, edit: Callable[[dict], None], recheck: bool) -> str:
    """The text with its block edited; ``recheck``: its check computed again, as someone
    who knows the format would."""
    start = text.index('\n ],\n "columns": ') + len('\n ],\n "columns": ')
    end = text.rindex(',\n "columns_check"')
    block = json.loads(text[start:end])
    edit(block)
    encoded = json.dumps(block, ensure_ascii=False, separators=(",", ":"))
    text = text[:start] + encoded + text[end:]
    if recheck:
        first = text.index(' "questions": [\n') + len(' "questions": [\n')
        check = zlib.crc32(text[first : start + len(encoded)].encode())
        text = text[: text.rindex("crc32:") + 6] + f"{check:08x}" + '"\n}\n'
    return text


def _status(block: dict) -> None:
    block["status"][1] = "ok"


def test_a_block_edited_apart_from_its_lines_is_refused(
    tmp_path: Path, ragguard_cli: Callable[..., Result]
) -> None:
    text = write_results(RESULTS, tmp_path / "results.json").read_text(encoding="utf-8")
    path = tmp_path / "edited.json"
    path.write_text(_edit_block(text, _status, recheck=False), encoding="utf-8")
    assert read_columns_results(path) is None
    assert _loaded(path) == _full_read(path)
    message = str(_loaded(path))
    assert (
        "columns.status: the columns block disagrees with the questions (at questions[1])"
        in message
    )
    result = ragguard_cli("report", path)
    assert_input_error(
        result.exit_code, result.stderr, "edited.json", "columns.status", "re-create"
    )


def test_a_block_with_its_check_forged_is_refused_when_a_line_is_read(tmp_path: Path) -> None:
    """The check ties lines and block as written, not against someone who recomputes it:
    a line read then (its answer, its ids) is compared with the block and refused."""
    text = write_results(RESULTS, tmp_path / "results.json").read_text(encoding="utf-8")
    path = tmp_path / "forged.json"
    path.write_text(_edit_block(text, _status, recheck=True), encoding="utf-8")
    loaded = read_columns_results(path)
    assert loaded is not None and loaded.questions[1].status == "ok"
    with pytest.raises(InputError, match=r"questions\[1\]\.status: the question line disagrees"):
        loaded.questions[1].answer  # noqa: B018
    assert loaded.questions[0].answer == RESULTS.questions[0].answer  # others unaffected


def _rechecked(text: str) -> str:
    """The text with its check computed again over what it now holds (as a forger would)."""
    first = text.index(' "questions": [\n') + len(' "questions": [\n')
    end = text.rindex(',\n "columns_check"')
    check = zlib.crc32(text[first:end].encode())
    return text[: text.rindex("crc32:") + 6] + f"{check:08x}" + '"\n}\n'


def test_a_lone_surrogate_escape_in_a_line_with_its_check_forged_is_refused_when_read(
    tmp_path: Path,
) -> None:
    """An answer edited to an escape of the same length, the check recomputed: the block is
    read, and the line is refused when its answer is first used, as the whole parse would
    (docs/formats.md, "Decisions the formats leave open")."""
    text = write_results(RESULTS, tmp_path / "results.json").read_text(encoding="utf-8")
    assert '"answer": "Wait 3' in text
    path = tmp_path / "forged.json"
    path.write_text(_rechecked(text.replace('"answer": "Wait 3', '"answer": "\\ud800', 1)))
    loaded = read_columns_results(path)
    assert loaded is not None
    with pytest.raises(InputError, match=r"questions\[0\]: lone surrogate \\ud800 in a string"):
        loaded.questions[0].answer  # noqa: B018
    assert loaded.questions[1].answer == RESULTS.questions[1].answer


def test_a_lone_surrogate_escape_in_the_block_is_left_to_the_whole_parse(tmp_path: Path) -> None:
    text = write_results(RESULTS, tmp_path / "results.json").read_text(encoding="utf-8")
    block = text.rindex('\n "columns": ')
    assert '"error":[null' in text[block:]
    forged = text[:block] + text[block:].replace('"error":[null', '"error":["\\udfff"', 1)
    path = tmp_path / "forged.json"
    path.write_text(_rechecked(forged), encoding="utf-8")
    assert read_columns_results(path) is None
    assert "lone surrogate \\udfff in a string" in str(_loaded(path)) == str(_full_read(path))


def test_a_line_edited_outside_the_block_fields_is_read_whole(tmp_path: Path) -> None:
    text = write_results(RESULTS, tmp_path / "results.json").read_text(encoding="utf-8")
    answer = RESULTS.questions[0].answer
    written = json.dumps(answer, ensure_ascii=False)
    assert answer and written in text
    path = tmp_path / "edited.json"
    path.write_text(text.replace(written, '"edited by hand"', 1), encoding="utf-8")
    assert read_columns_results(path) is None  # the check fails: not read from the block
    loaded = load_results(path)
    assert loaded.questions[0].answer == "edited by hand"
    assert loaded == replace(
        RESULTS,
        questions=(replace(RESULTS.questions[0], answer="edited by hand"), *RESULTS.questions[1:]),
    )


@pytest.mark.parametrize(
    ("edit", "refused"),
    [
        (lambda b: b.update(status=b["status"][:-1]), True),
        (lambda b: b["metrics"].update(values=[*b["metrics"]["values"][:-1], "x"]), True),
        (lambda b: b["metrics"].update(set=[9] * len(b["metrics"]["set"])), True),
        (lambda b: b.update(tags=[{}] * len(b["tags"])), True),
        (lambda b: b.pop("id"), True),
        (lambda b: b.update(line_bytes=[1] * len(b["line_bytes"])), False),
    ],
    ids=["short-column", "not-a-number", "no-such-set", "tags-objects", "no-ids", "line-lengths"],
)
def test_a_block_not_as_written_is_not_read_from(tmp_path: Path, edit, refused: bool) -> None:
    """Even with its check recomputed, a block the writer would not write is left to the
    whole parse, which refuses it as disagreeing with the questions (the lines' lengths
    only locate lines in the writer's layout: the whole parse does not need them)."""
    text = write_results(RESULTS, tmp_path / "results.json").read_text(encoding="utf-8")
    path = tmp_path / "edited.json"
    path.write_text(_edit_block(text, edit, recheck=True), encoding="utf-8")
    assert read_columns_results(path) is None
    assert _loaded(path) == _full_read(path)
    if refused:
        assert "the columns block disagrees with the questions" in str(_loaded(path))
    else:
        assert _loaded(path) == RESULTS


def test_compare_of_unchanged_files_parses_no_question_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ragguard_cli: Callable[..., Result]
) -> None:
    """What compare and its comment show of every question is in the block."""
    parsed: list[int] = []
    entry = results_columns.LineStore.entry
    monkeypatch.setattr(
        results_columns.LineStore, "entry", lambda store, i: parsed.append(i) or entry(store, i)
    )
    results = _mixed(30)
    baseline = write_results(results, tmp_path / "baseline.json")
    head = write_results(results, tmp_path / "head.json")
    out = tmp_path / "comment.md"
    result = ragguard_cli(
        "compare", baseline, head, "--markdown", out, "--json", tmp_path / "c.json"
    )
    assert result.exit_code in (0, 1), result.output
    assert out.read_text(encoding="utf-8") and parsed == []
