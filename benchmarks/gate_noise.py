"""How often the gate fails on pure noise, and how often it catches a real drop.

    python benchmarks/gate_noise.py [--seeds 200] [--alpha 0.05] [--max-drop 0.05]
                                    [--noise faithfulness|retrieval]

Each seed makes a system of 60 questions (easy, medium and hard retrieval) and runs it twice:
``faithfulness`` noise jitters per-question faithfulness by +-0.1 on each run with retrieval
fixed (a deterministic retriever); ``retrieval`` noise also redraws every question's rank of
its relevant chunk from that question's distribution on each run. The real drop pushes the
relevant chunk out of the top k on 15% of the questions of the second run.
The same runs go through two gates with the same ``max_drop``: ragguard's (a drop fails only
when the paired test finds it significant, p < alpha) and a plain-mean gate (``alpha: off``,
what a threshold on the means does). Prints the counts quoted in docs/compare.md.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import replace

from ragguard.compare import FAIL, compare
from ragguard.config.sections.gate import GateRules, MetricRule
from ragguard.metrics.names import parse_metric_list
from ragguard.results.chunks import Chunk
from ragguard.results.model import Results
from ragguard.results.records import RunRecord
from ragguard.scoring.score import score_question
from ragguard.testset.model import Question

N = 60
SPECS = parse_metric_list("hit_rate@1,hit_rate@3,recall@5,mrr,ndcg@3")
QUESTIONS = tuple(Question(f"q{i:02d}", f"Question {i}?", {f"c{i}": 2}) for i in range(N))
FILLER = ["f1", "f2", "f3", "f4", "f5"]
RANKS = {
    "easy": ([1, 2], [0.9, 0.1]),
    "medium": ([1, 2, 3, 4], [0.4, 0.3, 0.2, 0.1]),
    "hard": ([1, 2, 3, 4, 5, 0], [0.15] * 5 + [0.25]),
}
FIXED_RANK = {"easy": 1, "medium": 2, "hard": 4}


def run(ranks: dict[str, int], faithfulness: dict[str, float]) -> Results:
    scored = []
    for question in QUESTIONS:
        rank = ranks[question.id]
        ranking = FILLER[:4] if rank else FILLER[:5]
        if rank:
            ranking = [*ranking[: rank - 1], next(iter(question.relevant)), *ranking[rank - 1 :]]
        result = score_question(question, RunRecord(question.id, tuple(map(Chunk, ranking))), SPECS)
        metrics = {**result.metrics, "faithfulness": faithfulness[question.id]}
        scored.append(replace(result, metrics=metrics))
    names = (*(spec.name for spec in SPECS), "faithfulness")
    return Results("noise", "2026-01-01T00:00:00+00:00", names, {}, tuple(scored), "fp")


def trial(seed: int, noise: str, gates: dict[str, GateRules]) -> dict[str, tuple[bool, bool]]:
    """Per gate: (the noise run fails, the real drop fails)."""
    rng = random.Random(seed)
    kinds = {q.id: rng.choices(list(RANKS), [0.5, 0.3, 0.2])[0] for q in QUESTIONS}
    quality = {q.id: rng.uniform(0.6, 1.0) for q in QUESTIONS}

    def draw() -> tuple[dict[str, int], dict[str, float]]:
        if noise == "retrieval":
            ranks = {k: rng.choices(*RANKS[v])[0] for k, v in kinds.items()}
        else:
            ranks = {k: FIXED_RANK[v] for k, v in kinds.items()}
        faith = {k: min(1.0, max(0.0, v + rng.uniform(-0.1, 0.1))) for k, v in quality.items()}
        return ranks, faith

    baseline = run(*draw())
    ranks, faith = draw()
    head = run(ranks, faith)
    in_top = sorted(k for k, rank in ranks.items() if 1 <= rank <= 3)
    pushed = set(rng.sample(in_top, round(0.15 * N)))
    dropped = run({k: 0 if k in pushed else r for k, r in ranks.items()}, faith)
    return {
        name: (
            compare(baseline, head, rules).verdict == FAIL,
            compare(baseline, dropped, rules).verdict == FAIL,
        )
        for name, rules in gates.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--max-drop", type=float, default=0.05)
    parser.add_argument("--noise", choices=["faithfulness", "retrieval"], default="faithfulness")
    args = parser.parse_args()
    gates = {
        f"ragguard (alpha={args.alpha})": GateRules(
            default=MetricRule(alpha=args.alpha, max_drop=args.max_drop)
        ),
        "plain means (alpha off)": GateRules(
            default=MetricRule(alpha=None, max_drop=args.max_drop)
        ),
    }
    trials = [trial(seed, args.noise, gates) for seed in range(args.seeds)]
    print(f"noise={args.noise} max_drop={args.max_drop}, {args.seeds} seeds")
    for name in gates:
        outcomes = [t[name] for t in trials]
        print(
            f"  {name:<24} noise runs failing {sum(n for n, _ in outcomes)}/{args.seeds}, "
            f"real drops caught {sum(d for _, d in outcomes)}/{args.seeds}"
        )


if __name__ == "__main__":
    main()
