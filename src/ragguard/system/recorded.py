"""The recorded adapter: ``recorded: eval/run.jsonl``, a run made elsewhere.

The file is JSON Lines, a trace file (OTLP JSON, docs/traces.md) or a TREC run; its records
are replayed as they are. A question the file has no entry for is left out, and scoring
reports it as ``missing``. A run file is read when the adapter is built; a trace file's
traces are matched to questions by their text, so it is read once the questions are known (:meth:`RecordedAdapter.check_known`, which
the runner calls before the run); what its reader skipped is in :attr:`notes`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ragguard.config.model import SystemConfig
from ragguard.results.records import Run, RunRecord
from ragguard.testset.formats import is_trace_run_file, load_run_file
from ragguard.testset.model import Question


class RecordedAdapter:
    def __init__(self, run: Run | Path, name: str) -> None:
        self._run = run if isinstance(run, Run) else None
        self.path = run if isinstance(run, Path) else Path(run.source)
        self.name = name

    @classmethod
    def from_config(cls, system: SystemConfig, root: Path) -> RecordedAdapter:
        path = Path(system.target)
        try:
            name = path.relative_to(root).as_posix()
        except ValueError:
            name = path.name
        return cls(path if is_trace_run_file(path) else load_run_file(path), name)

    def identity(self) -> dict[str, Any]:
        return {"kind": "recorded", "target": self.name}

    @property
    def notes(self) -> tuple[str, ...]:
        """What the file's reader skipped, one line each (a trace file's)."""
        return self._run.notes if self._run is not None else ()

    def check_known(self, questions: Sequence[Question], known_ids: Iterable[str] = ()) -> None:
        """Read the file for these questions, and refuse entries for questions the test set
        does not have (``known_ids``: more ids it may answer, such as drafts left out)."""
        asked = [question.id for question in questions]
        self.run_for(questions).check_known([*asked, *known_ids])

    def run_for(self, questions: Sequence[Question]) -> Run:
        """The recorded run, read on first use with the test set's ``questions``."""
        if self._run is None:
            self._run = load_run_file(self.path, {q.id: q.question for q in questions})
        return self._run

    def run_batch(
        self,
        questions: Sequence[Question],
        timeout: float,
        emit: Callable[[RunRecord], None],
        stop: threading.Event,
    ) -> None:
        run = self.run_for(questions)
        for question in questions:
            if stop.is_set():
                return
            record = run.records.get(question.id)
            if record is not None:
                emit(record)
