"""What a comparison is made of: verdicts, question kinds, and the values compare returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ragguard.compare.agents import HopChange, HopRow, ToolChange
from ragguard.compare.detectable import Detectable
from ragguard.config.sections.gate import GateRules
from ragguard.results.judging import JudgeCosts, combined_costs
from ragguard.results.model import (
    STATUS_ERROR,
    STATUS_JUDGE_ERROR,
    STATUS_MISSING,
    SentenceVerdict,
)

PASS, WARN, FAIL, ERROR, INCOMPARABLE = "pass", "warn", "fail", "error", "incomparable"
VERDICTS = (PASS, WARN, FAIL, ERROR, INCOMPARABLE)
# A pass with nothing compared, as the outputs, logs and terminal say it (never "pass").
NO_BASELINE = "no-baseline"
FAILED_STATUSES = (STATUS_ERROR, STATUS_MISSING, STATUS_JUDGE_ERROR)

NEWLY_FAILING, FIXED, STILL_FAILING, PASSING = "newly_failing", "fixed", "still_failing", "passing"
ADDED, REMOVED = "added", "removed"
QUESTION_KINDS = (NEWLY_FAILING, FIXED, STILL_FAILING, PASSING, ADDED, REMOVED)
STABLE_PASS, FLAKY, STABLE_FAIL = "stable_pass", "flaky", "stable_fail"
STABILITY_CLASSES = (STABLE_PASS, FLAKY, STABLE_FAIL)

EPSILON = 1e-9
HALLUCINATION_METRIC = "faithfulness"


@dataclass(frozen=True, slots=True)
class Reason:
    """One thing that moved the verdict away from pass, and how far (warn/fail/error/...).

    ``text`` is ragguard's own words; ``subject`` (a metric name or question id, which may
    come from the evaluated system) is kept apart so a renderer can escape it.
    """

    tier: str
    text: str
    subject: str | None = None


@dataclass(frozen=True)
class MetricComparison:
    """One metric over the paired questions. ``values`` None: in one file only."""

    name: str
    n: int
    baseline: float | None
    head: float | None
    delta: float | None = None
    low: float | None = None
    high: float | None = None
    p_value: float | None = None  # one-sided: the chance of a drop this large with no change
    test: str = ""
    p_adjusted: float | None = None  # Holm-adjusted across the gated metrics (None: not in it)
    verdict: str = PASS
    notes: tuple[str, ...] = ()
    only_in: str | None = None
    head_overall: float | None = None
    head_interval: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class RankChange:
    """Where the best relevant chunk sat in the baseline and in the head (None: not retrieved).

    With evidence labels (``evidence``) each side's chunk is the one holding the evidence in
    that run: after a rechunk every id is new, so ``head_chunk`` names the chunk holding it
    now when that is another than ``chunk`` (and ``head_rank`` is its rank; None: no
    retrieved chunk holds it).
    """

    chunk: str
    k: int
    baseline_rank: int | None
    head_rank: int | None
    head_chunk: str | None = None
    evidence: bool = False


@dataclass(frozen=True, slots=True)
class Unlabelled:
    """Chunks newly in the head's top ``k`` that no label judges: a "drop" may be a better
    retriever finding evidence nobody labelled (``k``: the smallest cut-off it missed)."""

    k: int
    chunks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RuleMiss:
    """A per-question rule the head misses: the metric, both values and the threshold."""

    metric: str
    baseline: float | None
    head: float | None
    threshold: float


@dataclass(frozen=True, slots=True)
class Recheck:
    """A newly failing question run again: in how many of its runs (the first included) it
    failed. It fails for real only when it fails in a majority of them; otherwise it is
    flaky. ``runs`` 1 means it could not be run again (a recorded system)."""

    failed: int
    runs: int

    @property
    def flaky(self) -> bool:
        return self.runs > 1 and 2 * self.failed <= self.runs

    def line(self) -> str:
        return f"failed {self.failed} of {self.runs} runs"


@dataclass(frozen=True, slots=True)
class RunTally:
    """A question asked several times (``system.repeat``): in how many of its runs it passed the
    per-question rule. It passes when it passed in a strict majority of them (a run that
    errored counts as failed); its class says whether the runs agreed."""

    passed: int
    runs: int
    errored: int = 0  # runs that could not be evaluated (system or judge error), among the failed

    @property
    def failed(self) -> int:
        return self.runs - self.passed

    @property
    def passes(self) -> bool:
        return 2 * self.passed > self.runs

    @property
    def stability(self) -> str:
        if self.passed == self.runs:
            return STABLE_PASS
        return STABLE_FAIL if self.passed == 0 else FLAKY

    def line(self) -> str:
        return f"failed {self.failed} of {self.runs} runs"


@dataclass(frozen=True)
class QuestionDiff:
    """One question's change between baseline and head, with the why of a failure."""

    id: str
    question: str
    kind: str
    tags: tuple[str, ...] = ()
    critical: bool = False  # in the baseline or the head: unmarking takes effect once merged
    unmarked_critical: bool = False  # critical in the baseline, no longer in the head
    relabelled: bool = False
    baseline_status: str | None = None
    head_status: str | None = None
    baseline_passed: bool | None = None  # a removed question: whether it passed in the baseline
    passes_by_relabel: bool = False  # passed before, passes now, fails under the old labels
    relabel_kept: bool = False  # relabelled, the baseline's values kept (evidence labels)
    error: str | None = None
    misses: tuple[RuleMiss, ...] = ()
    rank_change: RankChange | None = None
    hallucinated: tuple[SentenceVerdict, ...] = ()
    unlabelled: Unlabelled | None = None
    hops: tuple[HopChange, ...] = ()  # an agent's hops that lost evidence (agents.py)
    tools: ToolChange | None = None  # an agent's tool calls that changed
    conversation: str | None = None  # a failing turn of a conversation: the conversation
    recheck: Recheck | None = None
    # asked several times (None: asked once on that side): passes tallied over the runs
    baseline_runs: RunTally | None = None
    head_runs: RunTally | None = None

    @property
    def decided_by(self) -> Recheck | RunTally | None:
        """The runs that decide whether a newly failing question blocks: its rechecks' tally,
        else its repeats'; None when one run decides."""
        runs = self.recheck or self.head_runs
        return runs if runs is not None and runs.runs > 1 else None

    @property
    def flaky_failure(self) -> bool:
        """Failing in no majority of its runs (a tie included): flaky, not a regression."""
        runs = self.decided_by
        return runs is not None and 2 * runs.failed <= runs.runs


@dataclass(frozen=True, slots=True)
class TagMetric:
    name: str
    baseline: float
    head: float
    delta: float


@dataclass(frozen=True)
class TagBreakdown:
    tag: str
    n: int
    newly_failing: int
    metrics: tuple[TagMetric, ...]

    @property
    def worst_delta(self) -> float:
        return min((m.delta for m in self.metrics), default=0.0)


@dataclass(frozen=True, slots=True)
class Latency:
    """Latency percentiles in milliseconds (None: no latencies recorded on that side)."""

    baseline_p50: float | None
    head_p50: float | None
    baseline_p95: float | None
    head_p95: float | None


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where the baseline came from; the CI layer may know better and pass its own."""

    commit: str | None = None
    branch: str | None = None
    created_at: str | None = None
    age: str | None = None


@dataclass(frozen=True, slots=True)
class SettingDiff:
    key: str
    baseline: str
    head: str


@dataclass(frozen=True)
class Repeats:
    """How often the questions were asked (``system.repeat``) and how stable they were; on a
    comparison where either side asked a question more than once (compare/stability.py)."""

    head_runs: tuple[int, int]  # the fewest and the most runs of a head question
    baseline_runs: tuple[int, int] | None  # None: no baseline
    head_calls: int  # calls to the system: the head questions' runs summed
    head_system_ms: float | None  # the head runs' latencies summed (None: none recorded)
    head_classes: Mapping[str, int]  # questions per class (STABILITY_CLASSES)
    baseline_classes: Mapping[str, int] | None  # None: the baseline asked each question once
    became_flaky: tuple[str, ...] = ()  # paired questions stable in the baseline, flaky now
    became_stable: tuple[str, ...] = ()  # flaky in the baseline, stable now
    head_failed_calls: int = 0  # head runs that errored (system, judge) or were missing

    @property
    def flakiness_known(self) -> bool:
        """Whether both sides asked the questions more than once (one run shows no flakiness)."""
        return self.head_runs[0] > 1 and self.baseline_classes is not None


@dataclass(frozen=True)
class Comparison:
    suite: str
    verdict: str
    reasons: tuple[Reason, ...]
    metrics: tuple[MetricComparison, ...]
    questions: tuple[QuestionDiff, ...]
    tags: tuple[TagBreakdown, ...]
    latency: Latency
    provenance: Provenance
    rules: GateRules
    per_question_rule: Mapping[str, float]
    baseline_missing: bool = False
    setting_diffs: tuple[SettingDiff, ...] = ()
    n_head: int = 0
    n_baseline: int = 0
    head_errors: int = 0
    baseline_errors: int = 0
    head_sha: str | None = None
    # Latency, tokens and cost per answer (compare/costs.py): lower is better, own budgets.
    costs: tuple[MetricComparison, ...] = ()
    # The smallest drop each gated metric's test can see (compare/power.py).
    power: tuple[Detectable, ...] = ()
    # Each question asked several times (compare/stability.py); None: asked once on both sides.
    repeats: Repeats | None = None
    # An agent's test set: each hop position's metrics, baseline against head (agents.py).
    hops: tuple[HopRow, ...] = ()
    # What judging the head run cost (results.json ``judge``); None: no judge was used.
    judge: JudgeCosts | None = None
    # What judging the rechecks' reruns cost (compare/rechecks.py); None: none was judged.
    recheck_judge: JudgeCosts | None = None

    @property
    def judge_spent(self) -> JudgeCosts | None:
        """What the judge cost in all: the head run and its rechecks (the reports' totals)."""
        return combined_costs((self.judge, self.recheck_judge))

    @property
    def incomparable(self) -> bool:
        return bool(self.setting_diffs)

    @property
    def reported_verdict(self) -> str:
        """The verdict as the action output, the comment's hidden outcome line, the job log and
        the terminal say it: ``no-baseline`` for a pass with no baseline to compare with."""
        return NO_BASELINE if self.baseline_missing and self.verdict == PASS else self.verdict

    @property
    def blocks(self) -> bool:
        """Whether the merge should be blocked (fail, error, incomparable set to fail)."""
        if self.verdict == INCOMPARABLE:
            return self.rules.on_incomparable == FAIL
        return self.verdict in (FAIL, ERROR)

    def of_kind(self, kind: str) -> tuple[QuestionDiff, ...]:
        return tuple(q for q in self.questions if q.kind == kind)

    @property
    def relabelled(self) -> tuple[QuestionDiff, ...]:
        return tuple(q for q in self.questions if q.relabelled)

    @property
    def unmarked_critical(self) -> tuple[QuestionDiff, ...]:
        """Questions the head's test set no longer marks critical; they stay critical."""
        return tuple(q for q in self.questions if q.unmarked_critical)

    @property
    def n_paired(self) -> int:
        return sum(1 for q in self.questions if q.kind not in (ADDED, REMOVED))
