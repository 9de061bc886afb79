"""The shell around rechecks in `ragguard ci`: run the newly failing critical questions
again through the same system adapter and decide the verdict with the tallies.

Each rerun's records and results are written under ``<results dir>/rechecks/<i>/`` before
anything is sent to GitHub. A rerun asks each question once, whatever ``system.repeat``
says: the tally counts each rerun as one run of the question. A recorded system cannot be asked again: its questions are
not rechecked and the gate decides as without rechecks (the log says so).
What judging the reruns cost goes into the comparison (``recheck_judge``), so that the
reports' judge totals count it (the ``judge_cost`` budget stays the head run's).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from ragguard.compare.model import Comparison
from ragguard.compare.rechecks import recheck_ids, tally_rechecks, with_rechecks
from ragguard.config.model import Config, with_repeat
from ragguard.render.text import printable
from ragguard.results.io import write_results
from ragguard.results.model import Results

EvaluateOnly = Callable[[Config, Mapping[str, str | None], Path, frozenset[str]], Results]


def recheck_comparison(
    comparison: Comparison,
    config: Config,
    out: Path,
    git: Mapping[str, str | None],
    evaluate_only: EvaluateOnly,
    log: Callable[[str], None],
) -> Comparison:
    """The comparison with its newly failing critical questions rechecked (``gate.recheck``
    more runs each), or unchanged when there is nothing to recheck."""
    ids = recheck_ids(comparison)
    if not ids:
        return comparison
    n = comparison.rules.recheck
    what = f"{len(ids)} newly failing question{'s' if len(ids) != 1 else ''}"
    listed = ", ".join(printable(i, 80) for i in ids)
    if config.system.kind == "recorded":
        log(
            "ragguard: not rechecked (the system is a recorded run and cannot be asked "
            f"again; one run decides): {listed}"
        )
        return comparison
    log(f"ragguard: rechecking {what} {n} more time{'s' if n != 1 else ''}: {listed}")
    reruns = [
        _rerun(config, out / "rechecks" / str(i), git, evaluate_only, ids) for i in range(1, n + 1)
    ]
    tallies = tally_rechecks(comparison, ids, reruns)
    for question_id, tally in tallies.items():
        verdict = "flaky" if tally.flaky else "fails"
        log(f"ragguard: recheck {printable(question_id, 80)}: {verdict} ({tally.line()})")
    return with_rechecks(comparison, tallies, reruns)


def _rerun(
    config: Config,
    where: Path,
    git: Mapping[str, str | None],
    evaluate_only: EvaluateOnly,
    ids: tuple[str, ...],
) -> Results:
    where.mkdir(parents=True, exist_ok=True)
    results = evaluate_only(with_repeat(config, 1), git, where, frozenset(ids))
    write_results(results, where / "results.json")
    return results
