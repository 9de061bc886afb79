"""The run records file written as the run goes, so a crash or a cancel keeps the work done.

Each finished question's record is appended as one JSON line and flushed at once. On
``ragguard run --resume`` the file is read back: a last line cut short by a crash is
dropped, a later line for the same question wins, and questions whose record has no error
are not asked again (errored ones are retried). When the run ends the file is rewritten
whole, one record per question in test-set order, as ``ragguard score --run`` reads it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO

from ragguard.core.errors import InputError, Where
from ragguard.core.files import write_report
from ragguard.core.sources import iter_jsonl_objects, read_text
from ragguard.results.records import RunRecord, dump_run, record_from_mapping


class RecordJournal:
    """Appends records as JSON lines, flushed one by one (thread-safe).

    The file is opened (and, unless appending, emptied) at the first record, so a run that
    stops on bad input before asking anything leaves an earlier records file as it was.
    """

    def __init__(self, path: Path, *, append: bool) -> None:
        self.path = path
        self._mode = "a" if append else "w"
        self._file: IO[str] | None = None
        self._lock = threading.Lock()

    def __call__(self, record: RunRecord) -> None:
        line = json.dumps(record.to_dict(), ensure_ascii=False, allow_nan=False) + "\n"
        with self._lock:
            if self._file is None:
                self._file = self._open()
            self._file.write(line)
            self._file.flush()

    def _open(self) -> IO[str]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return self.path.open(self._mode, encoding="utf-8")
        except OSError as exc:
            raise InputError(
                self.path, f"cannot write the run records: {exc.strerror or exc}"
            ) from None

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()


def read_journal(path: Path) -> dict[str, RunRecord]:
    """The records of an earlier, possibly unfinished run (none if there is no file)."""
    if not path.exists():
        return {}
    text = read_text(path, what="run records")
    if not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]  # the line being written when the run died
    records: dict[str, RunRecord] = {}
    for number, obj in iter_jsonl_objects(text, path):
        record = record_from_mapping(obj, Where(path, number))
        records[record.id] = record
    return records


def records_to_keep(
    previous: Mapping[str, RunRecord], question_ids: Iterable[str], path: Path
) -> dict[str, RunRecord]:
    """The earlier records a resumed run keeps: those without an error.

    A record for a question this run does not have means the file belongs to another
    run (another ``--shard`` or test set): refused rather than silently mixed in.
    """
    wanted = set(question_ids)
    for question_id in previous:
        if question_id not in wanted:
            raise InputError(
                path,
                f"has a record for question {question_id!r}, which this run does not ask "
                "(another --shard or test set?); delete the file or run without --resume",
            )
    return {qid: record for qid, record in previous.items() if not record.error}


def write_records(path: Path, records: Iterable[RunRecord]) -> None:
    """Replace the records file atomically with the final, ordered records."""
    write_report(path, dump_run(records))


def pass_records_path(path: Path, index: int) -> Path:
    """The records file of pass ``index`` (from 0) of a repeated run: the run's own file
    for the first pass, a numbered sibling for each further one (``results.run.jsonl``,
    ``results.run.2.jsonl``, ``results.run.3.jsonl`` ...)."""
    if index == 0:
        return path
    stem, dot, ext = path.name.rpartition(".")
    name = f"{stem}.{index + 1}.{ext}" if dot else f"{path.name}.{index + 1}"
    return path.with_name(name)


class PassJournals:
    """The records files of a run's passes (``repeat: N``), each a :class:`RecordJournal`.

    A fresh run (not ``--resume``) removes the files of passes 2 and later left by an
    earlier run when its first record arrives (when pass 1's file is emptied), so a run
    interrupted in pass 1 cannot later be resumed with an older run's passes.
    """

    def __init__(self, path: Path, repeat: int, *, append: bool, most: int) -> None:
        self.path = path
        self.most = most
        self.journals = [
            RecordJournal(pass_records_path(path, index), append=append) for index in range(repeat)
        ]
        self._fresh = not append

    def __call__(self, index: int, record: RunRecord) -> None:
        if self._fresh:
            self._fresh = False
            remove_stale_passes(self.path, 1, self.most)
        self.journals[index](record)

    def close(self) -> None:
        for journal in self.journals:
            journal.close()


def remove_stale_passes(path: Path, repeat: int, most: int) -> None:
    """Remove the records files of passes beyond ``repeat`` left by an earlier run with more
    passes, so they cannot be taken for this run's."""
    for index in range(repeat, most):
        pass_records_path(path, index).unlink(missing_ok=True)
