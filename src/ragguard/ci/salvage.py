"""What `ragguard ci` leaves behind when something fails: the files and outputs still say what
happened, and GitHub being down never stops the evaluation.

- The ``pending`` status is a courtesy: if GitHub refuses it (after PyGithub's retries), the run
  logs that and evaluates anyway; the final status is tried again at the end.
- After any failure, ``comment.md`` is on disk (this run's report if it got that far, else a
  short error report), and the step outputs name ``results.json`` (when this run wrote it),
  ``comment.md``, the verdict and the ``error`` status, so a later ``if: always()`` step can
  upload or post them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

from ragguard.ci.outputs import write_outputs
from ragguard.core.files import write_report
from ragguard.github import GitHubError
from ragguard.render.notes import error_comment

RESULTS, COMMENT, COMPARISON = "results.json", "comment.md", "comparison.json"
Marks = Mapping[str, tuple[int, int, int] | None]


def mark_reports(results_dir: Path) -> Marks:
    """The report files as they are before the run (a self-hosted runner may keep an earlier
    run's), so that afterwards only what this run wrote is reported as its own."""
    return {name: _signature(results_dir / name) for name in (RESULTS, COMMENT, COMPARISON)}


def set_pending(
    set_status: Callable[[str, str], None], description: str, log: Callable[[str], None]
) -> None:
    """Set ``pending``; a GitHub failure is logged, not raised, so the evaluation still runs."""
    try:
        set_status("pending", description)
    except GitHubError as exc:
        log(f"ragguard: could not set the pending status ({exc}); evaluating anyway")


def leave_reports(
    results_dir: Path,
    output_file: Path | None,
    suite: str,
    failure: BaseException,
    log: Callable[[str], None],
    before: Marks,
) -> None:
    """After ``failure``: ensure comment.md exists and write the outputs that point at the files.

    Files unchanged since ``before`` (from :func:`mark_reports` at the run's start) belong to
    an earlier run and are not reported as this run's. Never raises: the original failure is
    what the step must end with.
    """
    try:
        results = _fresh(results_dir, RESULTS, before)
        comment = results_dir / COMMENT
        if _fresh(results_dir, COMMENT, before) is None:
            write_report(comment, error_comment(suite, failure, results is not None, RESULTS))
        write_outputs(
            output_file,
            {
                "verdict": _verdict(_fresh(results_dir, COMPARISON, before)),
                "status": "error",
                "results-path": str(results) if results else "",
                "comment-path": str(comment),
            },
        )
    except Exception as exc:  # the original failure is what the user needs to see
        log(f"ragguard: could not leave the report files: {exc}")
        return
    log(f"ragguard: report files kept: {comment}" + (f", {results}" if results else ""))


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns)


def _fresh(results_dir: Path, name: str, before: Marks) -> Path | None:
    """The file ``name`` if this run wrote it (it exists and changed since ``before``)."""
    now = _signature(results_dir / name)
    return results_dir / name if now is not None and now != before.get(name) else None


def _verdict(comparison: Path | None) -> str:
    """This run's verdict if it got as far as comparing, else ``error``."""
    if comparison is None:
        return "error"
    try:
        verdict = json.loads(comparison.read_text(encoding="utf-8")).get("verdict")
    except (OSError, ValueError, AttributeError):
        return "error"
    return verdict if isinstance(verdict, str) else "error"
