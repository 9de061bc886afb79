"""Metric names, exactly as they appear in config, JSON, outputs and comments.

A name is a base and, for cut-off metrics, ``@k``: ``hit_rate@3``, ``ndcg@10``, ``mrr``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from ragguard.core.sources import ascii_int

CHUNK_NEEDS_K = ("hit_rate", "recall", "precision", "ndcg", "ndcg_exp")
CHUNK_OPTIONAL_K = ("mrr", "map")
DOC_PREFIX = "doc_"  # document-level twins: doc_recall@5 scores the ranking of documents
RETRIEVAL_NEEDS_K = (*CHUNK_NEEDS_K, "judged", *(DOC_PREFIX + base for base in CHUNK_NEEDS_K))
RETRIEVAL_OPTIONAL_K = (*CHUNK_OPTIONAL_K, *(DOC_PREFIX + base for base in CHUNK_OPTIONAL_K))
RETRIEVAL = RETRIEVAL_NEEDS_K + RETRIEVAL_OPTIONAL_K
INFORMATIONAL = ("judged",)
FAITHFULNESS, HALLUCINATION_FREE = "faithfulness", "hallucination_free"
ABSTENTION = "abstention"  # scored by default where the test set has answerable: false
GENERATION = ("faithfulness", "hallucination_free", "answer_relevance", "answer_f1", "abstention")
# An agent's run (docs/agents.md): its hops, scored against the retrieval step that answers
# each, and its tool calls. They apply to the questions that have hops or expected tools.
HOP_NEEDS_K = ("hop_recall", "hop_ndcg")
HOP_OPTIONAL = ("hops_reached",)
TOOL = ("tool_recall", "tool_precision", "trajectory_match")
AGENT = (*HOP_NEEDS_K, *HOP_OPTIONAL, *TOOL)
NO_CUTOFF = (*GENERATION, *HOP_OPTIONAL, *TOOL)
# What an answer costs, compared and gated beside the metrics but lower-is-better: the run's
# latency percentiles (seconds) and the mean tokens and cost per answer from ``usage``; and
# ``judge_cost``, what the judge cost over the head run (results.json ``judge.cost``).
JUDGE_COST = "judge_cost"
COST_METRICS = ("latency_p50", "latency_p95", "tokens", "cost", "steps", JUDGE_COST)
LATENCY_METRICS = ("latency_p50", "latency_p95")
MAX_CUTOFF = 100_000  # a table of k discounts is built per metric: a huge k would not fit

DEFAULT_METRICS = (
    "hit_rate@1",
    "hit_rate@3",
    "recall@5",
    "precision@3",
    "mrr",
    "ndcg@3",
    "map@10",
)


class MetricNameError(ValueError):
    """A metric name that ragguard does not know, with a hint."""


@dataclass(frozen=True, slots=True, order=True)
class MetricSpec:
    base: str
    k: int | None = None

    @property
    def name(self) -> str:
        return self.base if self.k is None else f"{self.base}@{self.k}"

    @property
    def is_retrieval(self) -> bool:
        return self.base in RETRIEVAL

    @property
    def is_informational(self) -> bool:
        """Reported but not gated unless a gate rule names it: ``judged@k`` falls when a
        retriever finds chunks nobody labelled, which is no regression of the system."""
        return self.base in INFORMATIONAL

    @property
    def is_document_level(self) -> bool:
        """``doc_recall@5`` and the like: scored on the ranking of documents."""
        return self.base.startswith(DOC_PREFIX)

    @property
    def chunk_level(self) -> MetricSpec:
        """The same metric on chunks (``doc_recall@5`` -> ``recall@5``)."""
        if not self.is_document_level:
            return self
        return MetricSpec(self.base[len(DOC_PREFIX) :], self.k)

    @property
    def is_generation(self) -> bool:
        return self.base in GENERATION

    @property
    def is_agent(self) -> bool:
        """A hop or tool metric, scored from a run's steps."""
        return self.base in AGENT

    @property
    def is_binary(self) -> bool:
        """Per-question values are 0 or 1 (used to pick McNemar's test)."""
        return self.base in (
            "hit_rate",
            "abstention",
            "hallucination_free",
            "hops_reached",
            "trajectory_match",
        )

    def __str__(self) -> str:
        return self.name


def higher_is_better(name: str) -> bool:
    """The metric's direction: every quality metric goes up, a cost metric goes down."""
    return name not in COST_METRICS


def parse_metric(name: str) -> MetricSpec:
    """Parse ``base@k``; raise :class:`MetricNameError` with a suggestion."""
    text = name.strip()
    base, sep, k_text = text.partition("@")
    if base in NO_CUTOFF:
        if sep:
            raise MetricNameError(f"metric {base!r} takes no cut-off; write {base}")
        return MetricSpec(base)
    if base not in RETRIEVAL + HOP_NEEDS_K:
        close = difflib.get_close_matches(base, RETRIEVAL + GENERATION + AGENT, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise MetricNameError(
            f"unknown metric {text!r}; {hint}known: "
            + ", ".join(f"{b}@k" for b in CHUNK_NEEDS_K)
            + ", mrr, mrr@k, map, map@k, judged@k, the doc_ form of each (doc_recall@k), "
            + ", ".join(GENERATION)
            + ", hop_recall@k, hop_ndcg@k, "
            + ", ".join((*HOP_OPTIONAL, *TOOL))
        )
    if not sep:
        if base in RETRIEVAL_NEEDS_K + HOP_NEEDS_K:
            raise MetricNameError(f"metric {base!r} needs a cut-off, for example {base}@5")
        return MetricSpec(base)
    k = ascii_int(k_text)
    if k is None or k < 1:
        raise MetricNameError(f"metric {text!r}: the cut-off after @ must be a whole number >= 1")
    if k > MAX_CUTOFF:
        raise MetricNameError(
            f"metric {text!r}: the cut-off is over {MAX_CUTOFF:,}; no ranking is that deep"
        )
    return MetricSpec(base, k)


def parse_metric_list(names: str | list[str] | tuple[str, ...]) -> tuple[MetricSpec, ...]:
    """Parse a comma-separated string or a list of names, keeping order, dropping repeats;
    ``faithfulness`` brings ``hallucination_free`` with it (:func:`with_companions`)."""
    items = names.split(",") if isinstance(names, str) else list(names)
    specs = [parse_metric(item) for item in items if item.strip()]
    if not specs:
        raise MetricNameError("no metric named")
    return with_companions(tuple(dict.fromkeys(specs)))


def with_companions(specs: tuple[MetricSpec, ...]) -> tuple[MetricSpec, ...]:
    """``hallucination_free`` right after ``faithfulness`` when only the latter is listed.

    Both come from the same sentence verdicts (no extra judge call), and the share of
    answers that hallucinate is what a default config must gate: a fourfold rise moves the
    faithfulness mean by only about 0.05 (docs/compare.md "Generation defaults").
    """
    names = [spec.name for spec in specs]
    if FAITHFULNESS not in names or HALLUCINATION_FREE in names:
        return specs
    at = names.index(FAITHFULNESS) + 1
    return (*specs[:at], MetricSpec(HALLUCINATION_FREE), *specs[at:])


def is_hop_metric(name: str) -> bool:
    """``hops_reached``, ``hop_recall@5`` and the like: scored from an agent's hops."""
    return name.partition("@")[0] in (*HOP_NEEDS_K, *HOP_OPTIONAL)


AGENT_DEFAULTS = {"hops": ("hops_reached", "hop_recall@5"), "tools": TOOL}


def with_agent_metrics(
    specs: tuple[MetricSpec, ...], has_hops: bool, has_tools: bool
) -> tuple[MetricSpec, ...]:
    """The metrics with an agent's defaults added when the test set has hops or expected
    tools and the list names no agent metric (docs/agents.md): ``hops_reached`` and
    ``hop_recall@5``; ``tool_recall``, ``tool_precision`` and ``trajectory_match``."""
    if any(spec.is_agent for spec in specs) or not (has_hops or has_tools):
        return specs
    added = (AGENT_DEFAULTS["hops"] if has_hops else ()) + (
        AGENT_DEFAULTS["tools"] if has_tools else ()
    )
    return (*specs, *(parse_metric(name) for name in added))
