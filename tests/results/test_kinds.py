"""A results file and a recorded run, given one for the other, are named as such."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragguard.core.errors import InputError
from ragguard.results.io import load_results
from ragguard.results.kinds import is_recorded_run, is_results_file
from ragguard.results.records import load_run

RUN_LINE = '{"id": "q1", "retrieved": ["auth"], "answer": "Send the key."}\n'


def test_a_one_question_run_given_as_results_is_named_a_run(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(RUN_LINE, encoding="utf-8")  # one line: valid JSON, not a results file
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert str(caught.value).startswith(f"{path}: is a recorded run (JSON Lines)")


def test_a_results_file_given_as_a_run_is_named_a_results_file(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text('\ufeff{\n "schema": "ragguard.results/1",\n "suite": "s"\n}\n', "utf-8")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert str(caught.value).startswith(f"{path}: is a results file, not a recorded run")


@pytest.mark.parametrize(
    "text",
    ['{"id": "q1"}\n', '{"schema": "x", "id": "q1", "answer": "a"}\n', "[1]\n", "{\n"],
)
def test_other_json_is_neither_kind(tmp_path: Path, text: str) -> None:
    path = tmp_path / "f.json"
    path.write_text(text, encoding="utf-8")
    assert not is_recorded_run(path)
    assert not is_results_file(path)


def test_a_broken_run_keeps_its_own_error(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(RUN_LINE + "{broken\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_run(path)
    assert str(caught.value).startswith(f"{path}:2: invalid JSON")
