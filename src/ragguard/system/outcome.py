"""What a run came to: its records, its verdict, and the lines that describe it.

:class:`RunOutcome` holds every pass's records; its verdict is ``error`` once more calls
failed than ``max_error_rate`` allows. The failure lines group the failed questions by error
(:mod:`ragguard.render.failures`) and the cost line says what a repeated run cost.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragguard.render.failures import NOT_RUN, failure_lines, group_failures
from ragguard.render.text import duration
from ragguard.results.records import RunRecord

if TYPE_CHECKING:  # the client (and requests) is imported when a judge is built
    from ragguard.judge.usage import Usage as JudgeUsage

VERDICT_OK = "ok"
VERDICT_ERROR = "error"


@dataclass(frozen=True)
class RunVerdict:
    """The calls a run was to make and those without a good answer, by kind."""

    calls: int
    system_errors: int
    missing: int
    judge_errors: int
    max_error_rate: float
    unit: str = "questions"
    asked: str = ""  # " (40 questions asked 3 times)" with repeats

    @property
    def failed(self) -> int:
        return self.system_errors + self.missing + self.judge_errors

    @property
    def rate(self) -> float:
        return self.failed / self.calls if self.calls else 0.0

    @property
    def verdict(self) -> str:
        return VERDICT_ERROR if self.rate > self.max_error_rate else VERDICT_OK

    def line(self) -> str:
        """``run verdict: ok: 0/60 questions failed (0.0%), within max_error_rate 5.0%``;
        with calls missing or not judged, what each kind counts."""
        if self.missing or self.judge_errors:
            kinds = [f"{self.system_errors} failed"]
            if self.missing:
                kinds.append(f"{self.missing} missing")
            if self.judge_errors:
                kinds.append(f"{self.judge_errors} not judged (judge errors)")
            share = (
                f"{self.failed}/{self.calls} {self.unit} without a good answer "
                f"({self.rate:.1%}: {', '.join(kinds)})"
            )
        else:
            share = f"{self.failed}/{self.calls} {self.unit} failed ({self.rate:.1%})"
        limit = f"max_error_rate {self.max_error_rate:.1%}"
        if self.verdict == VERDICT_ERROR:
            return f"run verdict: error: {share}{self.asked}, above {limit}"
        return f"run verdict: ok: {share}{self.asked}, within {limit}"


@dataclass(frozen=True)
class RunOutcome:
    """The records of a run (in test-set order) and whether it may be trusted.

    With ``system.repeat`` N the test set is asked N times: ``records`` holds the first pass
    and ``later_passes`` the others (a pass not started, after Ctrl-C, is absent). The
    error rate and the early stop are then over all N x ``total`` calls.
    """

    records: dict[str, RunRecord]
    total: int  # questions in one pass
    max_error_rate: float
    interrupted: bool = False
    early_stop_message: str | None = None  # the run stopped early: the not-run questions' error
    later_passes: tuple[dict[str, RunRecord], ...] = ()
    repeat: int = 1

    @property
    def passes(self) -> tuple[dict[str, RunRecord], ...]:
        return (self.records, *self.later_passes)

    @property
    def calls(self) -> int:
        """The system calls the run was to make: every question once per pass."""
        return self.total * self.repeat

    @property
    def unit(self) -> str:
        return "questions" if self.repeat == 1 else "calls"

    @property
    def stopped_early(self) -> bool:
        return self.early_stop_message is not None

    @property
    def not_run(self) -> int:
        """The questions (calls, with repeats) not made because the run stopped early."""
        message = self.early_stop_message
        records = (record for records in self.passes for record in records.values())
        return sum(1 for record in records if message and record.error == message)

    def stopped_early_line(self) -> str:
        failed = self.errors - self.not_run
        not_made = "questions were not run" if self.repeat == 1 else "calls were not made"
        return (
            f"stopped early: {failed} of {self.calls} {self.unit} failed{self._asked()}, more "
            f"than max_error_rate {self.max_error_rate:.1%} allows, so the verdict is error "
            f"whatever the rest does; {self.not_run} {not_made} (recorded as errors)"
        )

    def _asked(self) -> str:
        if self.repeat == 1:
            return ""
        return f" ({self.total} questions asked {self.repeat} times)"

    @property
    def errors(self) -> int:
        return sum(1 for records in self.passes for record in records.values() if record.error)

    @property
    def error_rate(self) -> float:
        return self.errors / self.calls if self.calls else 0.0

    def trust(self, judge_errors: int = 0) -> RunVerdict:
        """The run's verdict counting every call without a good answer: the failed ones, the
        ones not made (interrupted), and ``judge_errors`` (known once it is scored)."""
        return RunVerdict(
            calls=self.calls,
            system_errors=self.errors,
            missing=max(self.calls - self.done, 0),
            judge_errors=judge_errors,
            max_error_rate=self.max_error_rate,
            unit=self.unit,
            asked=self._asked(),
        )

    @property
    def verdict(self) -> str:
        """``error`` when more calls have no good answer than ``max_error_rate`` allows."""
        return self.trust().verdict

    def verdict_line(self) -> str:
        return self.trust().line()

    @property
    def done(self) -> int:
        """The calls with a record (all of them unless interrupted)."""
        return sum(len(records) for records in self.passes)


def allowed_failures(total: int, max_error_rate: float) -> int:
    """The most questions of ``total`` that may fail with the verdict still ``ok`` (the same
    comparison as :attr:`RunOutcome.verdict`, so the two cannot disagree by rounding)."""
    allowed = int(max_error_rate * total)
    while allowed < total and (allowed + 1) / total <= max_error_rate:
        allowed += 1
    while allowed > 0 and allowed / total > max_error_rate:
        allowed -= 1
    return allowed


def stopped_early_message(
    failed: int, total: int, max_error_rate: float, unit: str = "questions"
) -> str:
    """The error of a question not asked because the run's verdict was already certain."""
    return (
        f"{NOT_RUN} the run stopped early after {failed} of {total} {unit} failed, "
        f"more than max_error_rate {max_error_rate:.1%} allows"
    )


def cost_line(outcome: RunOutcome, judge: JudgeUsage | None, seconds: float) -> str:
    """What a repeated run cost: ``asked 40 questions 3 times: 120 system calls (3 failed),
    45 judge calls (75 answered from the cache), 2m 10s`` (judge calls are requests, retries
    and re-asks included)."""
    made = outcome.done - outcome.not_run
    calls = f"{made} system calls ({outcome.errors - outcome.not_run} failed"
    calls += f", {outcome.not_run} not made)" if outcome.not_run else ")"
    judged = "no judge calls"
    if judge is not None:
        judged = f"{judge.requests} judge calls ({judge.cached} answered from the cache)"
    times = "once" if outcome.repeat == 1 else f"{outcome.repeat} times"
    return f"asked {outcome.total} questions {times}: {calls}, {judged}, {duration(seconds)}"


def run_failure_lines(records: Iterable[RunRecord]) -> list[str]:
    """The failed questions of a run, grouped by error (:mod:`ragguard.render.failures`)."""
    failed = ((record.id, "error", record.error) for record in records if record.error)
    return failure_lines(group_failures(failed))


def pass_failure_lines(outcome: RunOutcome) -> list[str]:
    """The failed calls of every pass, grouped by error, each named ``q7 (pass 2)``."""
    failed = (
        (f"{record.id} (pass {index + 1})", "error", record.error)
        for index, records in enumerate(outcome.passes)
        for record in records.values()
        if record.error
    )
    return failure_lines(group_failures(failed))


def outcome_failure_lines(outcome: RunOutcome) -> list[str]:
    """The run's grouped failure lines: with repeats, of every pass (each call named with
    its pass), else of the one pass."""
    if outcome.repeat > 1:
        return pass_failure_lines(outcome)
    return run_failure_lines(outcome.records.values())
