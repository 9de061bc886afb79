"""The recorded adapter: ``recorded: eval/run.jsonl``, a run made elsewhere.

The file is JSON Lines (or a TREC run); its records are replayed as they are. A question the
file has no entry for is left out, and scoring reports it as ``missing``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ragguard.config.model import SystemConfig
from ragguard.results.records import Run, RunRecord
from ragguard.testset.formats import load_run_file
from ragguard.testset.model import Question


class RecordedAdapter:
    def __init__(self, run: Run, name: str) -> None:
        self.run = run
        self.name = name

    @classmethod
    def from_config(cls, system: SystemConfig, root: Path) -> RecordedAdapter:
        path = Path(system.target)
        try:
            name = path.relative_to(root).as_posix()
        except ValueError:
            name = path.name
        return cls(load_run_file(path), name)

    def identity(self) -> dict[str, Any]:
        return {"kind": "recorded", "target": self.name}

    def check_known(self, questions: Sequence[Question]) -> None:
        """Refuse a run file with entries for questions the test set does not have."""
        self.run.check_known(question.id for question in questions)

    def run_batch(
        self,
        questions: Sequence[Question],
        timeout: float,
        emit: Callable[[RunRecord], None],
        stop: threading.Event,
    ) -> None:
        for question in questions:
            if stop.is_set():
                return
            record = self.run.records.get(question.id)
            if record is not None:
                emit(record)
