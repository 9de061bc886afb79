"""The recorded adapter replays a run file made elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragguard.core.errors import InputError
from ragguard.system import build_adapter
from ragguard.system.recorded import RecordedAdapter
from ragguard.testset.load import load_testset


def test_records_are_replayed_and_absent_questions_left_out(
    suite_dir: Path, make_config, run_suite
) -> None:
    (suite_dir / "runs").mkdir()
    (suite_dir / "runs" / "run.jsonl").write_text(
        '{"id": "auth", "retrieved": ["authentication"], "answer": "Use a token."}\n'
        '{"id": "rate", "retrieved": [], "error": "upstream timeout"}\n'
    )
    config = make_config("recorded: runs/run.jsonl")
    outcome = run_suite(config)
    assert list(outcome.records) == ["auth", "rate"]
    assert outcome.records["auth"].answer == "Use a token."
    assert outcome.records["rate"].error == "upstream timeout"
    assert build_adapter(config).identity() == {"kind": "recorded", "target": "runs/run.jsonl"}


def test_trec_runs_work_too(suite_dir: Path, make_config, run_suite) -> None:
    (suite_dir / "run.trec").write_text("auth Q0 authentication 1 2.0 bm25\n")
    outcome = run_suite(make_config("recorded: run.trec"))
    assert outcome.records["auth"].retrieved_ids == ["authentication"]


def test_unknown_question_ids_are_refused(suite_dir: Path, make_config) -> None:
    (suite_dir / "run.jsonl").write_text('{"id": "ghost", "retrieved": []}\n')
    config = make_config("recorded: run.jsonl")
    adapter = build_adapter(config)
    assert isinstance(adapter, RecordedAdapter)
    with pytest.raises(InputError, match="unknown question id 'ghost'"):
        adapter.check_known(load_testset(config.testset).questions)
