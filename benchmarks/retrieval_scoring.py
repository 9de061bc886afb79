"""Retrieval scoring speed: ragguard against pytrec_eval and ranx, in one process, same data.

Seeded random data: N questions (default 10,000) x K ranked chunks (default 100), each with
about 5 graded labels (3 to 7, grades 0-3, at least one relevant, some never retrieved).
Metrics: ndcg@10, recall@100, mrr@10 and map@100, per question.

- ragguard: in-memory rankings (lists of chunk ids) and labels (dicts of grades) in,
  per-question values out: ``Labels.from_grades`` + ``score_ranking`` for every question.
- pytrec_eval: its in-memory dicts (qrels, and a run of chunk -> score) in, per-question
  values out. mrr@10 is trec_eval's recip_rank on the run cut at 10 chunks, so that needs a
  second evaluator over a second, cut run, as a user would do it; the cut run is built
  before the clock starts (in pytrec_eval's favour).
- ranx (when installed: ``pip install ranx``; it is not in the test extra, it brings numba):
  ``Qrels(grades)``, ``Run(run)`` and ``evaluate(..., return_mean=False)``, which gives the
  per-question values. Its numba functions are compiled by a warm-up call on a tiny input
  before the clock starts (in ranx's favour: a user's first call in a process pays for it).

Every per-question value of the tools is checked equal (to 1e-9) before any figure is printed.
Each tool runs ``--repeat`` times, interleaved, garbage collector on; the ratios are printed
for the best runs, the medians and the best CPU times. Two figures: end to end (set-up
included: what one evaluation costs, the target) and scoring only (set-up reused).

    python benchmarks/retrieval_scoring.py                 # 10,000 x 100
    python benchmarks/retrieval_scoring.py --questions 100000
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from _common import Timing, environment, measure, ratio_line

from ragguard.metrics.names import parse_metric_list
from ragguard.metrics.retrieval import Labels, score_ranking

try:
    import pytrec_eval
except ImportError:  # pragma: no cover - a message, not a traceback
    sys.exit("pytrec_eval is missing: pip install -e '.[test]' (package pytrec-eval-terrier)")

try:
    import ranx
except ImportError:  # pragma: no cover - ranx is optional
    ranx = None

METRICS = "ndcg@10,recall@100,mrr@10,map@100"
MAIN_MEASURES = {"ndcg_cut.10", "recall.100", "map_cut.100"}
MRR_CUT = 10
TOLERANCE = 1e-9
POOL_SIZE = 200_000
SEED = 20240607


@dataclass(frozen=True)
class Data:
    rankings: dict[str, list[str]]
    grades: dict[str, dict[str, int]]
    run: dict[str, dict[str, float]]
    run_top: dict[str, dict[str, float]]


def make_data(questions: int, chunks: int, seed: int = SEED) -> Data:
    """Chunk ids are fresh strings per ranking and per label, as read from a run file and a
    test set file: equal ids in the two are equal strings, not the same object."""
    rng = random.Random(seed)
    rankings: dict[str, list[str]] = {}
    grades: dict[str, dict[str, int]] = {}
    for number in range(questions):
        qid = f"q{number}"
        drawn = rng.sample(range(POOL_SIZE), chunks)
        labels: dict[str, int] = {}
        for _ in range(rng.randint(3, 7)):
            chunk = rng.choice(drawn) if rng.random() < 0.6 else rng.randrange(POOL_SIZE)
            labels[_chunk_id(chunk)] = rng.choice((0, 1, 1, 2, 2, 3))
        labels[rng.choice(list(labels))] = rng.randint(1, 3)
        rankings[qid], grades[qid] = [_chunk_id(chunk) for chunk in drawn], labels
    run = {q: {c: float(chunks - r) for r, c in enumerate(rk)} for q, rk in rankings.items()}
    run_top = {
        q: {c: float(chunks - r) for r, c in enumerate(rk[:MRR_CUT])} for q, rk in rankings.items()
    }
    return Data(rankings, grades, run, run_top)


def _chunk_id(number: int) -> str:
    return f"chunk-{number:07d}"


def ragguard_end_to_end(data: Data) -> dict[str, dict[str, float]]:
    specs = parse_metric_list(METRICS)
    grades = data.grades
    return {
        qid: score_ranking(ranking, Labels.from_grades(grades[qid]), specs)
        for qid, ranking in data.rankings.items()
    }


def pytrec_eval_end_to_end(data: Data) -> tuple[dict, dict]:
    main = pytrec_eval.RelevanceEvaluator(data.grades, MAIN_MEASURES).evaluate(data.run)
    rr = pytrec_eval.RelevanceEvaluator(data.grades, {"recip_rank"}).evaluate(data.run_top)
    return main, rr


RANX_METRICS = ["ndcg@10", "recall@100", "mrr@10", "map@100"]


def ranx_end_to_end(data: Data) -> tuple[list[str], dict]:
    qrels, run = ranx.Qrels(data.grades), ranx.Run(data.run)
    return run.keys(), ranx.evaluate(qrels, run, RANX_METRICS, return_mean=False)


def warm_up_ranx() -> None:
    """Compile ranx's numba functions before any clock starts."""
    tiny = make_data(3, 10)
    ranx_end_to_end(tiny)


def ranx_as_ragguard_names(result: tuple[list[str], dict]) -> dict[str, dict[str, float]]:
    qids, values = result
    return {
        qid: {name: float(values[name][index]) for name in RANX_METRICS}
        for index, qid in enumerate(qids)
    }


def as_ragguard_names(main: Mapping, rr: Mapping) -> dict[str, dict[str, float]]:
    return {
        qid: {
            "ndcg@10": values["ndcg_cut_10"],
            "recall@100": values["recall_100"],
            "mrr@10": rr[qid]["recip_rank"],
            "map@100": values["map_cut_100"],
        }
        for qid, values in main.items()
    }


def check_equal(ours: Mapping, theirs: Mapping, tool: str = "pytrec_eval") -> int:
    """Compare every per-question value; exit with the first difference."""
    if set(ours) != set(theirs):
        sys.exit(f"FAIL: ragguard and {tool} evaluated different questions")
    compared = 0
    for qid, values in ours.items():
        for name, value in values.items():
            if abs(value - theirs[qid][name]) > TOLERANCE:
                sys.exit(f"FAIL: {qid} {name}: ragguard {value!r}, {tool} {theirs[qid][name]!r}")
            compared += 1
    return compared


def scoring_only(data: Data, repeat: int) -> dict[str, Timing]:
    """Each tool with its per-evaluation set-up (Labels, RelevanceEvaluator, ranx's Qrels and
    Run) done beforehand."""
    specs = parse_metric_list(METRICS)
    labels = {qid: Labels.from_grades(g) for qid, g in data.grades.items()}
    rankings = data.rankings
    main_evaluator = pytrec_eval.RelevanceEvaluator(data.grades, MAIN_MEASURES)
    rr_evaluator = pytrec_eval.RelevanceEvaluator(data.grades, {"recip_rank"})
    steps = {
        "ragguard": lambda: {q: score_ranking(r, labels[q], specs) for q, r in rankings.items()},
        "pytrec_eval": lambda: (
            main_evaluator.evaluate(data.run),
            rr_evaluator.evaluate(data.run_top),
        ),
    }
    if ranx is not None:
        qrels, run = ranx.Qrels(data.grades), ranx.Run(data.run)
        steps["ranx"] = lambda: ranx.evaluate(qrels, run, RANX_METRICS, return_mean=False)
    timings, _ = measure(steps, repeat)
    return timings


def report(title: str, timings: Mapping[str, Timing]) -> None:
    ours = timings["ragguard"]
    print(title)
    for name, timing in timings.items():
        print(f"  {name:<12} {timing.describe()}")
    for name, timing in timings.items():
        if name != "ragguard":
            print(f"  ratio {name} / ragguard: {ratio_line(timing, ours)}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--chunks", type=int, default=100, help="ranked chunks per question")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)

    data = make_data(args.questions, args.chunks)
    labels = sum(len(g) for g in data.grades.values()) / args.questions
    print(
        f"{args.questions:,} questions x {args.chunks} ranked chunks, "
        f"{labels:.2f} graded labels per question; metrics {METRICS}"
    )
    print(environment())
    print(
        f"timing: {args.repeat} runs of each, interleaved; ratios of the best runs, of the "
        "medians, and of the best CPU times (this process only)"
    )

    steps = {
        "ragguard": lambda: ragguard_end_to_end(data),
        "pytrec_eval": lambda: pytrec_eval_end_to_end(data),
    }
    if ranx is None:
        print("ranx: not installed (pip install ranx), left out")
    else:
        warm_up_ranx()
        steps["ranx"] = lambda: ranx_end_to_end(data)
    timings, results = measure(steps, args.repeat)
    compared = check_equal(results["ragguard"], as_ragguard_names(*results["pytrec_eval"]))
    print(f"values equal: {compared:,} per-question values agree with pytrec_eval to {TOLERANCE:g}")
    if "ranx" in results:
        compared = check_equal(results["ragguard"], ranx_as_ragguard_names(results["ranx"]), "ranx")
        print(f"values equal: {compared:,} per-question values agree with ranx to {TOLERANCE:g}")
    report(
        "end to end, what one evaluation costs (the target; ragguard: Labels.from_grades + "
        "score_ranking per question; pytrec_eval: 2 x RelevanceEvaluator(qrels, measures) + "
        "evaluate(run), the cut run for mrr@10 prepared beforehand; ranx: Qrels + Run + evaluate):",
        timings,
    )
    report(
        "scoring only (Labels, RelevanceEvaluators, ranx Qrels and Run built beforehand and reused):",
        scoring_only(data, args.repeat),
    )


if __name__ == "__main__":
    main()
