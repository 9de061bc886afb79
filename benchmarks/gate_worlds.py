"""False alarms and power of the default gate in simulated noise worlds, at n=40, 100, 200.

    python benchmarks/gate_worlds.py [--seeds 100] [--sizes 40 100 200] [--retrievers steady]
                                      [--cli-check 20] [--repeat 1] [--multiple-testing off]
                                      [--ungate METRIC ...] [--critical-odds SYSTEMS]

Each seed builds a system of n questions, each with a fixed per-question behaviour:
a retrieval difficulty (the rank of its relevant chunk is redrawn on every run from that
question's distribution: easy, medium or hard) and a probability of adding one unsupported
sentence to its answer (answers have 2 to 4 supported sentences; the probabilities average
5%). 5% of the questions are marked ``critical`` and are as noisy as the rest.
The worlds, each compared with a baseline run of the same system:

* ``noise``: the head is another run of the same system (every failure is a false alarm);
* ``noise + critical``: the same runs with ``critical: true`` blocking (the default);
* ``retrieval drop``: 15% of the questions lose their relevant chunk from the top 3;
* ``hallucination 5%->20%``: every question's probability of an unsupported sentence is x4;
* ``noise + critical, recheck``: ``noise + critical`` with rechecks (``gate.recheck``, 3
  by default): each newly failing critical question's run is redrawn that many more times
  from its fixed distribution, and it blocks only when it fails in a majority of its runs,
  the head's included (``tally_rechecks`` and ``with_rechecks``, the code ``ragguard ci``
  runs);
* ``critical regression, recheck``: the same, but one critical question that passed in the
  baseline now always fails (its relevant chunk is never retrieved, in the head run and in
  every recheck): it must still block. (A seed whose critical questions all fail in the
  baseline has nothing to break: that seed's head is the noise run.)

``--repeat N`` asks every question N times on both sides: the baseline and each world's head
are N runs (the noise drawn independently per run; a regression applies to every run)
combined with ``combine_repeats``, as ``system.repeat: N`` does, before ``compare``.

Every run is scored by ragguard's own code in this process (``score_question`` for the
retrieval metrics, ``faithfulness_score`` and, where the installed ragguard has it,
``hallucination_free_score`` on the sentence verdicts) and compared with ``compare`` under
the default gate rules (``GateRules()``), the code ``ragguard compare`` runs. Beside it, a
plain mean-threshold gate: fail when any gated metric's mean drops by more than its
``max_drop`` (no test), plus the same critical-question rule. ``--cli-check N`` runs the
first N seeds of one world through the real CLI (results files written, ``ragguard compare``
as a process) and counts the verdicts that differ from the in-process ones (expected 0).
``--critical-odds SYSTEMS`` prints, instead of simulating, the exact chance that pure noise
blocks through a critical question, per repeat and recheck setting (binomial sums over the
same systems' per-run failure probabilities).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ragguard.compare import FAIL, NEWLY_FAILING, Comparison, compare
from ragguard.compare.questions import passes, per_question_rule
from ragguard.compare.rechecks import recheck_ids, tally_rechecks, with_rechecks
from ragguard.config.sections.gate import GateRules, MetricRule
from ragguard.metrics import faithfulness as faith_module
from ragguard.metrics.names import DEFAULT_METRICS, parse_metric_list
from ragguard.results.chunks import Chunk
from ragguard.results.model import QuestionResult, Results, SentenceVerdict
from ragguard.results.records import RunRecord
from ragguard.scoring.repeats import combine_question, combine_repeats
from ragguard.scoring.score import score_question
from ragguard.testset.model import Question

SPECS = parse_metric_list(DEFAULT_METRICS)
FILLER = ("f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9")
RETRIEVERS = {
    # benchmarks/gate_noise.py's distributions: a hard question misses the top 3 55% of runs
    "noisy": {
        "easy": ([1, 2], [0.9, 0.1]),
        "medium": ([1, 2, 3, 4], [0.4, 0.3, 0.2, 0.1]),
        "hard": ([1, 2, 3, 4, 5, 0], [0.15] * 5 + [0.25]),
    },
    # a steadier retriever: the top 3 is missed in 0%, 3% and 10% of runs
    "steady": {
        "easy": ([1, 2], [0.9, 0.1]),
        "medium": ([1, 2, 3, 4], [0.6, 0.25, 0.12, 0.03]),
        "hard": ([1, 2, 3, 4, 0], [0.5, 0.25, 0.15, 0.05, 0.05]),
    },
}
KIND_SHARES = [0.5, 0.3, 0.2]
BASE_HALLUCINATION = 0.05
WORLDS = (
    "noise",
    "noise + critical",
    "retrieval drop",
    "hallucination 5%->20%",
    "noise + critical, recheck",
    "critical regression, recheck",
)
HALLUCINATION_FREE = getattr(faith_module, "hallucination_free_score", None)


@dataclass(frozen=True)
class System:
    """The fixed per-question behaviour that every run of one seed draws from."""

    questions: tuple[Question, ...]
    ranks: dict[str, tuple[list[int], list[float]]]
    kinds: dict[str, str]
    hallucination: dict[str, float]
    sentences: dict[str, int]

    @property
    def questions_by_id(self) -> dict[str, Question]:
        return {q.id: q for q in self.questions}


def make_system(rng: random.Random, n: int, retriever: str) -> System:
    n_critical = max(1, round(0.05 * n))
    critical = set(rng.sample(range(n), n_critical))
    questions = tuple(
        Question(f"q{i:03d}", f"Question {i}?", {f"c{i}": 2}, critical=i in critical)
        for i in range(n)
    )
    ranks = RETRIEVERS[retriever]
    return System(
        questions,
        ranks,
        {q.id: rng.choices(list(ranks), KIND_SHARES)[0] for q in questions},
        {q.id: rng.uniform(0.0, 2 * BASE_HALLUCINATION) for q in questions},
        {q.id: rng.randint(2, 4) for q in questions},
    )


def draw_ranks(system: System, rng: random.Random) -> dict[str, int]:
    return {qid: rng.choices(*system.ranks[kind])[0] for qid, kind in system.kinds.items()}


def draw_hallucinated(system: System, rng: random.Random, factor: float) -> set[str]:
    return {qid for qid, p in system.hallucination.items() if rng.random() < p * factor}


def run(system: System, ranks: dict[str, int], hallucinated: set[str]) -> Results:
    scored = [
        _question(question, ranks[question.id], question.id in hallucinated, system)
        for question in system.questions
    ]
    names = tuple(dict.fromkeys(name for q in scored for name in q.metrics))
    return Results("worlds", "2026-01-01T00:00:00+00:00", names, {}, tuple(scored), "fp")


def _question(question: Question, rank: int, hallucinated: bool, system: System) -> QuestionResult:
    relevant = next(iter(question.relevant))
    ranking = list(FILLER[:9])
    if rank:
        ranking.insert(rank - 1, relevant)
    result = score_question(question, RunRecord(question.id, tuple(map(Chunk, ranking))), SPECS)
    supported = system.sentences[question.id]
    verdicts = tuple(SentenceVerdict(f"s{i}", f"Sentence {i}.", True) for i in range(supported)) + (
        (SentenceVerdict("sx", "Made up.", False),) if hallucinated else ()
    )
    metrics = {**result.metrics, "faithfulness": faith_module.faithfulness_score(verdicts)}
    if HALLUCINATION_FREE is not None:
        metrics["hallucination_free"] = HALLUCINATION_FREE(verdicts)
    return replace(result, metrics=metrics, sentences=verdicts)


def world_runs(
    seed: int, n: int, retriever: str, repeat: int = 1
) -> tuple[Results, dict[str, Results]]:
    """The baseline and, per world, the head compared with it; with ``repeat`` N, each is N
    runs (the noise drawn independently per run) combined as ragguard combines them."""
    rng = random.Random(seed * 1000 + n)
    system = make_system(rng, n, retriever)
    baseline = combine_repeats([_noise_run(system, rng, 1.0) for _ in range(repeat)])
    draws = [(draw_ranks(system, rng), draw_hallucinated(system, rng, 1.0)) for _ in range(repeat)]
    head = combine_repeats([run(system, ranks, hallucinated) for ranks, hallucinated in draws])
    in_top = sorted(qid for qid, rank in draws[0][0].items() if 1 <= rank <= 3)
    pushed = set(rng.sample(in_top, min(len(in_top), round(0.15 * n))))
    dropped = combine_repeats(
        [
            run(system, {q: 0 if q in pushed else r for q, r in ranks.items()}, hallucinated)
            for ranks, hallucinated in draws
        ]
    )
    worse = combine_repeats([_noise_run(system, rng, 4.0) for _ in range(repeat)])
    uncritical = _without_critical(head)
    return baseline, {
        "noise": uncritical,
        "noise + critical": head,
        "retrieval drop": _without_critical(dropped),
        "hallucination 5%->20%": _without_critical(worse),
    }


def _noise_run(system: System, rng: random.Random, factor: float) -> Results:
    ranks = draw_ranks(system, rng)
    return run(system, ranks, draw_hallucinated(system, rng, factor))


def baseline_for(head: Results, baseline: Results) -> Results:
    """The baseline a world's head is compared with: ``compare`` keeps a question critical
    when the baseline marks it (unmarking takes effect once merged), so a world without
    critical questions unmarks them in the baseline too."""
    if any(q.critical for q in head.questions):
        return baseline
    return _without_critical(baseline)


def _without_critical(results: Results) -> Results:
    questions = tuple(replace(q, critical=False) for q in results.questions)
    return replace(results, questions=questions)


def plain_gate_fails(comparison: Comparison, rules: GateRules) -> bool:
    """A mean-threshold gate: any gated metric's mean drop above its max_drop fails; a
    critical question newly failing fails (as ragguard's default does)."""
    for metric in comparison.metrics:
        rule = rules.rule_for(metric.name)
        if metric.delta is not None and -metric.delta > rule.max_drop + 1e-9:
            return True
    return any(q.critical for q in comparison.of_kind(NEWLY_FAILING))


def trial(
    seed: int, n: int, retriever: str, rules: GateRules, repeat: int = 1
) -> dict[str, tuple[bool, bool]]:
    """Per world: (ragguard's gate fails, the plain gate fails)."""
    baseline, heads = world_runs(seed, n, retriever, repeat)
    outcome = {}
    for world, head in heads.items():
        comparison = compare(baseline_for(head, baseline), head, rules)
        outcome[world] = (comparison.verdict == FAIL, plain_gate_fails(comparison, rules))
    outcome.update(
        recheck_trials(seed, n, retriever, rules, baseline, heads["noise + critical"], repeat)
    )
    return outcome


def recheck_trials(
    seed: int,
    n: int,
    retriever: str,
    rules: GateRules,
    baseline: Results,
    head: Results,
    repeat: int = 1,
) -> dict[str, tuple[bool, bool]]:
    """The two recheck worlds. Rechecks draw from their own random stream, so the other
    worlds' runs are the same as without them. With repeats, each rerun is one more run of
    the question, tallied with the head's own runs (``tally_rechecks``)."""
    rng = random.Random(seed * 1000 + n)
    system = make_system(rng, n, retriever)  # the same system world_runs built
    recheck_rng = random.Random(f"recheck-{seed}-{n}")
    rule = per_question_rule(rules, baseline, head)
    candidates = [
        q.id for q in system.questions if q.critical and passes(baseline.by_id[q.id], rule)
    ]
    broken = recheck_rng.choice(candidates) if candidates else None
    regressed = _never_retrieved(system, head, broken, repeat)
    outcome = {}
    for world, this_head, never in (
        ("noise + critical, recheck", head, None),
        ("critical regression, recheck", regressed, broken),
    ):
        comparison = compare(baseline, this_head, rules)
        ids = recheck_ids(comparison)
        reruns = [_rerun(system, recheck_rng, never) for _ in range(rules.recheck if ids else 0)]
        rechecked = with_rechecks(comparison, tally_rechecks(comparison, ids, reruns))
        outcome[world] = (rechecked.verdict == FAIL, plain_gate_fails(comparison, rules))
    return outcome


def _rerun(system: System, rng: random.Random, never: str | None) -> Results:
    """Another run of the whole system (only the rechecked questions are looked at)."""
    ranks = draw_ranks(system, rng)
    if never is not None:
        ranks[never] = 0
    return run(system, ranks, draw_hallucinated(system, rng, 1.0))


def _never_retrieved(
    system: System, head: Results, question_id: str | None, repeat: int
) -> Results:
    """``head`` with one question's relevant chunk not retrieved, in each of its runs."""
    if question_id is None:
        return head
    broken = _question(system.questions_by_id[question_id], 0, False, system)
    if repeat > 1:
        broken = combine_question([broken] * repeat)
    return replace(
        head, questions=tuple(broken if q.id == question_id else q for q in head.questions)
    )


def table(
    seeds: int, sizes: Sequence[int], retriever: str, rules: GateRules, repeat: int = 1
) -> None:
    asked = f"each question asked {repeat} times, " if repeat > 1 else ""
    print(f"{retriever} retriever, {asked}{seeds} seeds per cell; failures / seeds (share)")
    header = f"  {'world':<30}" + "".join(f"{'n=' + str(n):>28}" for n in sizes)
    print(header)
    print(f"  {'':<30}" + "".join(f"{'ragguard':>14}{'plain mean':>14}" for _ in sizes))
    counts = {(w, n): [0, 0] for w in WORLDS for n in sizes}
    for n in sizes:
        started = time.perf_counter()
        for seed in range(seeds):
            for world, (ours, plain) in trial(seed, n, retriever, rules, repeat).items():
                counts[world, n][0] += ours
                counts[world, n][1] += plain
        print(f"  (n={n}: {time.perf_counter() - started:.0f} s)", file=sys.stderr)
    for world in WORLDS:
        cells = "".join(
            f"{_share(counts[world, n][0], seeds):>14}{_share(counts[world, n][1], seeds):>14}"
            for n in sizes
        )
        print(f"  {world:<30}{cells}")


def critical_odds(seeds: int, sizes: Sequence[int], retriever: str) -> None:
    """The exact chance, averaged over the seeds' systems, that pure noise blocks through a
    critical question: a critical question blocks when it passes by majority in the baseline,
    fails by majority in the head, and (with rechecks) still fails in a strict majority of
    the head's runs and the reruns. Per-run failure: its relevant chunk misses the top 3 or
    its answer hallucinates (the default per-question rule), independently per run."""
    plans = [(1, 0), (1, 3), (3, 0), (3, 3), (5, 0), (5, 3)]
    print(
        f"{retriever} retriever, {seeds} systems per cell: P(noise blocks on a critical question)"
    )
    print(f"  {'n':>5}" + "".join(f"{f'repeat {r}, recheck {c}':>22}" for r, c in plans))
    for n in sizes:
        cells = []
        for repeat, recheck in plans:
            total = 0.0
            for seed in range(seeds):
                system = make_system(random.Random(seed * 1000 + n), n, retriever)
                clear = 1.0
                for question in system.questions:
                    if question.critical:
                        fail = _run_failure(system, question.id)
                        clear *= 1 - _passes_by_majority(1 - fail, repeat) * _blocks(
                            fail, repeat, recheck
                        )
                total += 1 - clear
            cells.append(f"{100 * total / seeds:.1f}%")
        print(f"  {n:>5}" + "".join(f"{cell:>22}" for cell in cells))


def _run_failure(system: System, question_id: str) -> float:
    ranks, weights = system.ranks[system.kinds[question_id]]
    in_top = sum(w for rank, w in zip(ranks, weights, strict=True) if 1 <= rank <= 3)
    return 1 - in_top * (1 - system.hallucination[question_id])


def _binomial(n: int, k: int, p: float) -> float:
    return math.comb(n, k) * p**k * (1 - p) ** (n - k)


def _passes_by_majority(p_pass: float, runs: int) -> float:
    return sum(_binomial(runs, k, p_pass) for k in range(runs // 2 + 1, runs + 1))


def _blocks(p_fail: float, runs: int, recheck: int) -> float:
    """Newly failing in the head (no majority of passes) and failing in a strict majority of
    all runs, the rechecks' included (rechecks 0: the head's runs alone)."""
    total = 0.0
    for failed in range(runs + 1):
        if 2 * (runs - failed) > runs:
            continue
        for more in range(recheck + 1):
            if 2 * (failed + more) > runs + recheck:
                total += _binomial(runs, failed, p_fail) * _binomial(recheck, more, p_fail)
    return total


def _share(count: int, seeds: int) -> str:
    return f"{count} ({100 * count / seeds:.1f}%)"


def cli_check(
    seeds: int, n: int, world: str, retriever: str, rules: GateRules, repeat: int = 1
) -> None:
    """Run ``ragguard compare`` as a process on written results files for the first seeds
    of one world; count the verdicts that differ from the in-process comparison."""
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for seed in range(seeds):
            baseline, heads = world_runs(seed, n, retriever, repeat)
            baseline = baseline_for(heads[world], baseline)
            expected = compare(baseline, heads[world], rules).verdict == FAIL
            _write(folder / "baseline.json", baseline)
            _write(folder / "head.json", heads[world])
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "ragguard",
                    "compare",
                    str(folder / "baseline.json"),
                    str(folder / "head.json"),
                ],
                capture_output=True,
                text=True,
                check=False,
                cwd=folder,
            )
            if done.returncode not in (0, 1):
                raise SystemExit(f"ragguard compare exited {done.returncode}: {done.stderr}")
            differ += (done.returncode == 1) != expected
    print(f"CLI check, {world}, n={n}, {seeds} seeds: {differ} verdicts differ from in-process")


def _write(path: Path, results: Results) -> None:
    path.write_text(json.dumps(results.to_dict()), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--sizes", type=int, nargs="+", default=[40, 100, 200])
    parser.add_argument("--retrievers", nargs="+", choices=list(RETRIEVERS), default=["steady"])
    parser.add_argument("--cli-check", type=int, default=20, metavar="SEEDS")
    parser.add_argument(
        "--critical-odds",
        type=int,
        default=0,
        metavar="SYSTEMS",
        help="print the exact chance that noise blocks on a critical question, and stop",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="each question asked N times on both sides, combined with combine_repeats",
    )
    parser.add_argument(
        "--multiple-testing",
        choices=["max_t", "off"],
        default="max_t",
        help="gate.multiple_testing (default: the default gate's)",
    )
    parser.add_argument(
        "--ungate",
        nargs="+",
        default=[],
        metavar="METRIC",
        help="take these metrics out of the gate (max_drop: 1), as a team would",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat: expected a whole number from 1")
    if args.critical_odds:
        critical_odds(args.critical_odds, args.sizes, args.retrievers[0])
        return
    rules = GateRules(
        multiple_testing=args.multiple_testing,
        metrics={name: MetricRule(max_drop=1.0) for name in args.ungate},
    )
    print(f"hallucination_free scored: {'yes' if HALLUCINATION_FREE else 'no (not in ragguard)'}")
    for retriever in args.retrievers:
        table(args.seeds, args.sizes, retriever, rules, args.repeat)
    if args.cli_check:
        world, first = "noise + critical", args.retrievers[0]
        cli_check(args.cli_check, args.sizes[0], world, first, rules, args.repeat)


if __name__ == "__main__":
    main()
