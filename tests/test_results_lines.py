"""The fast reader of results files in the writer's layout: the same results and the same
errors as parsing the file whole, the ids split only when used.

It reads files without a columns block (written before it, or edited since: the columns
reader, tests/test_results_columns.py, declines those), so the files here are written
without one; the edits are also tried on files with one."""

from __future__ import annotations

import copy
import json
import pickle
import random
from dataclasses import replace
from pathlib import Path

import pytest

from ragguard.compare.baseline import load_baseline
from ragguard.core.errors import InputError
from ragguard.results import lines as results_lines
from ragguard.results.io import (
    load_results,
    read_json_file,
    read_written_results,
    results_from_dict,
)
from ragguard.results.io import write_results as write_with_columns
from ragguard.results.lines import PLAIN_KEYS, LazyIds
from ragguard.results.model import Results, ShardInfo
from ragguard.results.usage import Usage
from test_results import RESULTS


def without_columns(text: str) -> str:
    """The text as ragguard wrote it before the columns block (results_columns.py)."""
    end = text.rfind('\n ],\n "columns": ')
    return text if end < 0 else text[:end] + "\n ]\n}\n"


def write_results(results: Results, path: Path) -> Path:
    """The file in the writer's layout without a columns block: what the line reader reads."""
    text = write_with_columns(results, path).read_text(encoding="utf-8")
    path.write_text(without_columns(text), encoding="utf-8", newline="")
    return path


def _full_read(path: Path) -> Results | str:
    """What parsing the file whole gives: the results, or the error line."""
    try:
        return results_from_dict(read_json_file(path, "results file"), path)
    except InputError as exc:
        return str(exc)


def _loaded(path: Path) -> Results | str:
    try:
        return load_results(path)
    except InputError as exc:
        return str(exc)


def _with_ids(*rankings: tuple[str, ...]) -> Results:
    """Questions without verdicts (those take the field-by-field reader) holding these ids."""
    plain = replace(RESULTS.questions[1], status="ok", metrics={"mrr": 2 / 3})
    questions = tuple(replace(plain, id=f"q{i}", retrieved=ids) for i, ids in enumerate(rankings))
    return replace(RESULTS, questions=questions)


VARIED = _with_ids(
    ("plain-1", "plain-2", "plain-3"),
    ('say "hi"', "back\\slash"),
    ("tab\there", "bell\x07"),
    ("ünïcode", "no\u00a0break", "emoji-\U0001f600", ', "retrieved": ['),
    (),
    ("",),
    ("a", "", "b"),
)


@pytest.mark.parametrize(
    "results",
    [
        RESULTS,
        VARIED,
        replace(RESULTS, questions=()),
        replace(RESULTS, shard=ShardInfo(1, 2, 6, (0, 2, 4))),
        replace(VARIED, questions=(replace(VARIED.questions[0], usage=Usage(10, 5, 15, 0.01)),)),
    ],
    ids=["sentences-and-statuses", "every-kind-of-id", "no-questions", "shard", "usage"],
)
def test_a_written_file_is_read_fast_and_equal(tmp_path: Path, results: Results) -> None:
    path = write_results(results, tmp_path / "results.json")
    fast = read_written_results(path)
    assert fast is not None  # the writer's layout: the fast reader took it
    assert fast == results == _full_read(path)
    assert load_results(path) == results
    assert load_baseline(path).results == results


def test_plain_ids_stay_text_until_used_and_behave_as_a_tuple(tmp_path: Path) -> None:
    path = write_results(VARIED, tmp_path / "results.json")
    loaded = read_written_results(path)
    assert loaded is not None
    kinds = [type(q.retrieved).__name__ for q in loaded.questions]
    assert kinds == ["LazyIds", "tuple", "tuple", "tuple", "tuple", "LazyIds", "LazyIds"]
    assert (
        loaded.questions[4].retrieved == ()
        and loaded.questions[3].retrieved[3] == ', "retrieved": ['
    )
    ids = loaded.questions[0].retrieved
    assert isinstance(ids, LazyIds)
    expected = ("plain-1", "plain-2", "plain-3")
    assert ids == expected and expected == ids  # both ways round, as tuple compares
    assert ids != ("plain-1",) and ids != ["plain-1", "plain-2", "plain-3"]
    assert len(ids) == 3 and ids[1] == "plain-2" and ids[:2] == ("plain-1", "plain-2")
    assert "plain-3" in ids and "x" not in ids and ids.index("plain-3") == 2
    assert list(ids) == ["plain-1", "plain-2", "plain-3"] and ids.count("plain-1") == 1
    assert hash(ids) == hash(("plain-1", "plain-2", "plain-3"))
    assert copy.deepcopy(ids) == ids and pickle.loads(pickle.dumps(ids)) == ids
    assert repr(ids) == repr(("plain-1", "plain-2", "plain-3"))
    assert loaded.questions[5].retrieved == ("",)
    assert loaded.questions[6].retrieved == ("a", "", "b")


def test_a_loaded_file_written_again_gives_the_same_bytes(tmp_path: Path) -> None:
    first = write_results(VARIED, tmp_path / "a.json")
    second = write_results(load_results(first), tmp_path / "b.json")
    assert first.read_bytes() == second.read_bytes()


def _written(tmp_path: Path, columns: bool = False) -> str:
    write = write_with_columns if columns else write_results
    return write(VARIED, tmp_path / "written.json").read_text(encoding="utf-8")


def _question_line(text: str, index: int) -> str:
    return [line for line in text.split("\n") if line.startswith("  {")][index]


# Each edit of the written text: (name, edit). All keep or break JSON validity on purpose.
EDITS = [
    ("crlf", lambda t: t.replace("\n", "\r\n")),
    ("bom", lambda t: "\ufeff" + t),
    ("compact", lambda t: t.replace("\n", "")),
    ("no-final-newline", lambda t: t.rstrip("\n")),
    ("trailing-blank-line", lambda t: t + "\n"),
    ("extra-data", lambda t: t + "{}\n"),
    ("trailing-comma", lambda t: t.replace("\n ]", ",\n ]")),
    ("missing-comma", lambda t: t.replace("},\n  {", "}\n  {", 1)),
    ("missing-bracket", lambda t: t.replace("\n ]\n", "\n")),
    ("tab-indent", lambda t: t.replace("\n  {", "\n\t{", 1)),
    ("retrieved-first", lambda t: t.replace('  {"id": "q0"', '  {"retrieved": ["x"], "id": "q0"')),
    (
        "retrieved-twice",
        lambda t: t.replace('"status": "ok"', '"retrieved": [], "status": "ok"', 1),
    ),
    ("duplicate-key", lambda t: t.replace('"status": "ok"', '"status": "ok", "status": "ok"', 1)),
    ("nan-metric", lambda t: t.replace('"mrr": 0.6666666666666666', '"mrr": NaN', 1)),
    ("huge-metric", lambda t: t.replace('"mrr": 0.6666666666666666', '"mrr": 1e400', 1)),
    ("integer-metric", lambda t: t.replace('"mrr": 0.6666666666666666', '"mrr": 1', 1)),
    ("raw-tab-in-id", lambda t: t.replace('"plain-2"', '"plain\t2"', 1)),
    ("unescaped-quote-in-id", lambda t: t.replace('"plain-2"', '"pla"in-2"', 1)),
    ("number-in-ids", lambda t: t.replace('"plain-2"', "2", 1)),
    ("ids-not-a-list", lambda t: t.replace('["plain-1", "plain-2", "plain-3"]', '"plain"', 1)),
    ("no-space-after-comma", lambda t: t.replace('"plain-1", "plain-2"', '"plain-1","plain-2"')),
    ("unclosed-head", lambda t: t.replace('"critical": true', '"critical": {"x": true', 1)),
    ("duplicate-id", lambda t: t.replace('"id": "q1"', '"id": "q0"', 1)),
    ("bad-status", lambda t: t.replace('"status": "ok"', '"status": "fine"', 1)),
    ("status-a-list", lambda t: t.replace('"status": "ok"', '"status": ["ok"]', 1)),
    (
        "metrics-a-list",
        lambda t: t.replace('"metrics": {"mrr": 0.6666666666666666}', '"metrics": [0.5]', 1),
    ),
    ("tags-an-object", lambda t: t.replace('"tags": []', '"tags": {}', 1)),
    ("sentences-an-object", lambda t: t.replace('"sentences": []', '"sentences": {}', 1)),
    ("grade-true", lambda t: t.replace('"relevant": {}', '"relevant": {"x": true}', 1)),
    ("schema", lambda t: t.replace("ragguard.results/1", "ragguard.results/9", 1)),
    ("questions-in-header", lambda t: t.replace('"suite"', '"questions": [], "suite"', 1)),
    ("empty-line-between", lambda t: t.replace("},\n  {", "},\n\n  {", 1)),
    ("lone-surrogate-in-id", lambda t: t.replace('"plain-2"', '"plain\\ud800"', 1)),
    ("lone-surrogate-in-header", lambda t: t.replace('"suite": "', '"suite": "\\udc00', 1)),
    ("surrogate-pair-in-id", lambda t: t.replace('"plain-2"', '"plain\\ud83d\\ude00"', 1)),
    ("backslash-then-ud800", lambda t: t.replace('"plain-2"', '"plain\\\\ud800"', 1)),
]


@pytest.mark.parametrize("columns", [False, True], ids=["lines", "with-columns"])
@pytest.mark.parametrize("edit", [edit for _, edit in EDITS], ids=[name for name, _ in EDITS])
def test_any_other_text_reads_as_parsing_it_whole_does(tmp_path: Path, edit, columns: bool) -> None:
    text = edit(_written(tmp_path, columns))
    path = tmp_path / "edited.json"
    path.write_text(text, encoding="utf-8", newline="")
    assert _loaded(path) == _full_read(path)


@pytest.mark.parametrize("columns", [False, True], ids=["lines", "with-columns"])
def test_random_one_character_edits_read_as_parsing_it_whole_does(
    tmp_path: Path, columns: bool
) -> None:
    """A character deleted, doubled or replaced anywhere (seeded): the fast readers never
    accept what the full reader refuses, nor read it differently."""
    text = _written(tmp_path, columns)
    rng = random.Random(20261203)
    path = tmp_path / "edited.json"
    fast_taken = 0
    for _ in range(400):
        at = rng.randrange(len(text))
        kind = rng.choice(["delete", "double", "replace"])
        char = rng.choice('"\\,:[]{} \nx0')
        edited = {
            "delete": text[:at] + text[at + 1 :],
            "double": text[:at] + text[at] + text[at:],
            "replace": text[:at] + char + text[at + 1 :],
        }[kind]
        path.write_text(edited, encoding="utf-8", newline="")
        assert _loaded(path) == _full_read(path), (kind, at, char)
        fast_taken += read_written_results(path) is not None
    assert fast_taken > 0  # some edits (inside a string) keep the writer's layout


def test_a_missing_or_unreadable_file_is_left_to_the_full_reader(tmp_path: Path) -> None:
    assert read_written_results(tmp_path / "absent.json") is None
    assert read_written_results(tmp_path) is None
    with pytest.raises(InputError, match="not found"):
        load_results(tmp_path / "absent.json")


def test_a_question_line_of_the_checking_reader_keeps_its_ids(tmp_path: Path) -> None:
    """A line with sentences goes to the field-by-field reader with its ids put back."""
    path = write_results(RESULTS, tmp_path / "results.json")
    assert '"sentences": [{' in _question_line(path.read_text(encoding="utf-8"), 0)
    loaded = read_written_results(path)
    assert loaded is not None
    assert loaded.questions[0].sentences == RESULTS.questions[0].sentences
    assert loaded.questions[0].retrieved == ("error-codes", "rate-limits")


def test_the_plain_keys_are_the_writers_keys_in_its_order(tmp_path: Path) -> None:
    """A question without verdicts, labels of evidence, usage or repeats is read in bulk
    only while its line holds exactly PLAIN_KEYS (then ``retrieved``): a field added to
    the writer must be added to the bulk reader, or such files take the slow way."""
    path = write_results(replace(VARIED, questions=VARIED.questions[:1]), tmp_path / "r.json")
    head = _question_line(path.read_text(encoding="utf-8"), 0).strip().rstrip(",")
    assert tuple(json.loads(head)) == (*PLAIN_KEYS, "retrieved")


def _mixed(count: int) -> Results:
    """Plain questions with labels, a colon or a non-ASCII character in their text, and
    every seventh question with verdicts (read one by one)."""
    plain = replace(
        RESULTS.questions[1], status="ok", metrics={"mrr": 0.5, "hit_rate@3": 1.0}, error=None
    )
    verdicts = RESULTS.questions[0]
    questions = []
    for i in range(count):
        base = verdicts if i % 7 == 3 else plain
        questions.append(
            replace(
                base,
                id=f"q{i}",
                question=["plain", "Note: a colon", "ünïcode — ✓"][i % 3],
                retrieved=tuple(f"d{i}-{k}" for k in range(i % 5)),
                relevant={f"d{i}-0": 2, f"d{i}-9": 0} if i % 2 else {},
                tags=("t",) if i % 4 == 0 else (),
                latency_ms=None if i % 3 else float(i),
            )
        )
    return replace(RESULTS, questions=tuple(questions))


@pytest.mark.parametrize("block_bytes", [1, 97, 1000, 1 << 20])
def test_a_file_read_in_many_blocks_is_read_fast_and_equal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block_bytes: int
) -> None:
    """Blocks cut anywhere (in a line, in a UTF-8 character), plain questions read in bulk
    next to ones read one by one: the same results as the writer's and the whole parse."""
    monkeypatch.setattr(results_lines, "BLOCK_BYTES", block_bytes)
    results = _mixed(60)
    path = write_results(results, tmp_path / "results.json")
    fast = read_written_results(path)
    assert fast is not None
    assert fast == results == _full_read(path)
    kinds = [type(q.retrieved).__name__ for q in fast.questions[:3]]
    assert kinds == ["tuple", "LazyIds", "LazyIds"]  # no ids: [] is decoded
    assert all(type(q.metrics) is dict and type(q.relevant) is dict for q in fast.questions)


@pytest.mark.parametrize("block_bytes", [1, 2, 3, 5, 97, 1 << 20])
@pytest.mark.parametrize("columns", [False, True], ids=["lines", "with-columns"])
def test_a_lone_surrogate_escape_is_refused_with_its_line_however_blocks_fall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block_bytes: int, columns: bool
) -> None:
    """No fast reader takes an escape that may be a lone surrogate (not even one cut between
    two blocks): the whole parse refuses it, naming the line (docs/formats.md, "Decisions
    the formats leave open")."""
    monkeypatch.setattr(results_lines, "BLOCK_BYTES", block_bytes)
    text = _written(tmp_path, columns)
    line = _question_line(text, 0)
    path = tmp_path / "edited.json"
    path.write_text(text.replace('"plain-2"', '"plain\\ud800"', 1), encoding="utf-8")
    number = text.split("\n").index(line) + 1
    column = line.index('plain-2"') + len("plain") + 1
    expected = (
        f"{path}:{number}: lone surrogate \\ud800 in a string (column {column}); write the "
        "character itself or a valid surrogate pair"
    )
    assert read_written_results(path) is None
    assert _loaded(path) == expected == _full_read(path)


def test_plain_questions_after_blocks_of_verdicts_read_as_parsing_it_whole_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a block whose questions were mostly not plain, the next is parsed by the
    strict decoder (a guess of speed): a repeated key is refused there as anywhere."""
    monkeypatch.setattr(results_lines, "BLOCK_BYTES", 2000)
    verdicts = [replace(RESULTS.questions[0], id=f"v{i}") for i in range(12)]
    plain = [replace(q, id=f"p{i}") for i, q in enumerate(_mixed(12).questions) if i % 7 != 3]
    results = replace(RESULTS, questions=(*verdicts, *plain))
    path = write_results(results, tmp_path / "results.json")
    assert read_written_results(path) == results
    text = path.read_text(encoding="utf-8")
    last = _question_line(text, len(results.questions) - 1)
    repeated = last.replace('"mrr": 0.5', '"mrr": 0.5, "mrr": 0.25', 1)
    assert repeated != last
    path.write_text(text.replace(last, repeated), encoding="utf-8")
    assert read_written_results(path) is None
    assert _loaded(path) == _full_read(path)
    assert "duplicate key 'mrr'" in str(_loaded(path))


LABELLED = _mixed(6)
# Edits of a plain question with labels: a repeated key where the bulk reader parses
# without the strict decoder's check (with and without a colon in the question's text).
REPEATS = [
    ("metric", 1, '"mrr": 0.5', '"mrr": 0.5, "mrr": 0.25'),
    ("label", 1, '"d1-0": 2', '"d1-0": 2, "d1-0": 1'),
    ("label-colon-text", 5, '"d5-0": 2', '"d5-0": 2, "d5-0": 1'),
    ("question-key", 2, '"status": "ok"', '"status": "ok", "status": "ok"'),
    ("key-for-a-colon", 4, '"error": null', '"error": null, "x": "a: b"'),
    ("colon-key", 1, '"error": null', '"error": null, ":": 1'),
]


@pytest.mark.parametrize(
    ("index", "old", "new"), [r[1:] for r in REPEATS], ids=[r[0] for r in REPEATS]
)
def test_a_repeated_key_in_a_plain_question_reads_as_parsing_it_whole_does(
    tmp_path: Path, index: int, old: str, new: str
) -> None:
    text = write_results(LABELLED, tmp_path / "r.json").read_text(encoding="utf-8")
    line = _question_line(text, index)
    assert old in line
    path = tmp_path / "edited.json"
    path.write_text(text.replace(line, line.replace(old, new, 1)), encoding="utf-8")
    assert _loaded(path) == _full_read(path)
