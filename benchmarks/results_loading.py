"""Loading two results files as `ragguard compare` does: the head with ``load_results``,
the baseline with ``load_baseline``, timed in a fresh process (imports not counted).

Two seeded results files of N questions x D retrieved ids (ids like a TREC run's, 4 metric
values and 5 graded labels a question; the second file ranks a third of its questions
differently) are written by ragguard's own writer. Each reader runs in its own process,
``--repeat`` times, interleaved:

- ``ragguard``: this tree's ``load_results`` and ``load_baseline`` on the files as this tree
  writes them (read from their columns block, each question's line parsed on first use);
- ``ragguard-lines``: the same on the same files without their columns block, as ragguard
  wrote them before it (the line reader: each line's head parsed, ids split on first use);
- ``whole-parse``: this tree's parse of the whole file without the block (``read_json_file``
  and ``results_from_dict``), what any other layout of the same JSON gets;
- ``ragguard-before`` (with ``--before-src``): another tree's ``load_results`` and
  ``load_baseline`` on the files without the block, e.g. ``git archive main src | tar -x -C
  /tmp/before``;
- ``layout-floor``: what the line layout costs any reader built on json's C decoder that
  parses each question's line: read, decode and split the file, cut each line's head and
  parse it, nothing checked, nothing built (not a reader: a floor to compare with).

Wall and CPU time (of that process) around the two loads; best and median; the target is
both files in under 5 s. Before anything is printed, both files loaded from their block and
by the line reader are checked equal to the whole-file parse, every field and id compared.

    python benchmarks/results_loading.py                       # 100,000 x 100
    python benchmarks/results_loading.py --questions 10000 --before-src /tmp/before/src
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from _common import environment, use_installed_bytecode

from ragguard.results.io import load_results, read_json_file, results_from_dict, write_results
from ragguard.results.model import MetricSummary, QuestionResult, Results

TARGET = 5.0
SEED = 20261203
METRICS = ("ndcg@10", "recall@100", "mrr", "map@100")

CHILD = """
import json, sys, time
from pathlib import Path
head, baseline, reader = sys.argv[1:]
if reader == "whole-parse":
    from ragguard.core.bulk import collector_paused
    from ragguard.results.io import read_json_file, results_from_dict

    def load(path):
        with collector_paused():
            return results_from_dict(read_json_file(Path(path), "results file"), path)

    load_head = load_base = load
elif reader == "layout-floor":
    import gc
    from itertools import repeat
    from operator import add

    scan = json.JSONDecoder().scan_once
    key = ', "retrieved": '

    def load_floor(path):
        # Read, decode and split the file, cut and parse each question's head: no check,
        # no question built, the lines kept (as the reader keeps them for their ids).
        kept = []
        with open(path, "rb") as file:
            rest = ""
            while more := file.read(1 << 20):
                lines = more.decode().split("\\n")
                lines[0] = rest + lines[0]
                rest = lines.pop()
                rows = [line for line in lines if line.startswith("  {")]
                cuts = map(slice, repeat(2), map(str.find, rows, repeat(key)))
                heads = list(map(add, map(str.__getitem__, rows, cuts), repeat("}")))
                kept.append((rows, list(map(scan, heads, repeat(0)))))
        return kept

    def load(path):
        gc.disable()
        return load_floor(path)

    load_head = load_base = load
else:  # ragguard, ragguard-lines (the same code on files without the block), ragguard-before
    from ragguard.compare.baseline import load_baseline
    from ragguard.results.io import load_results

    load_head, load_base = load_results, lambda path: load_baseline(path).results
start, cpu = time.perf_counter(), time.process_time()
loaded = (load_head(head), load_base(baseline))
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"wall": wall, "cpu": cpu}))
"""


def results(questions: int, docs: int, variant: int) -> Results:
    """Seeded results; ``variant`` 1 reranks every third question."""
    rng = random.Random(SEED)
    built = []
    for q in range(questions):
        ranked = [f"d{rng.randrange(5_000_000)}" for _ in range(docs)]
        labels = {f"d{rng.randrange(5_000_000)}": rng.randrange(4) for _ in range(5)}
        if variant and q % 3 == 0:
            ranked.reverse()
        values = {name: rng.random() for name in METRICS}
        built.append(
            QuestionResult(
                id=f"q{q}",
                question="",
                status="ok",
                metrics=values,
                retrieved=tuple(ranked),
                relevant=labels,
                fingerprint=f"{rng.getrandbits(64):016x}",
            )
        )
    summary = {name: MetricSummary(0.5, questions, 0.4, 0.6) for name in METRICS}
    return Results(
        suite="loading",
        created_at="2026-12-03T00:00:00+00:00",
        metrics=METRICS,
        summary=summary,
        questions=tuple(built),
        testset_fingerprint="0123456789abcdef",
    )


def without_block(path: Path) -> Path:
    """A copy of the file without its columns block, as ragguard wrote it before the block."""
    text = path.read_text(encoding="utf-8")
    copied = path.with_name(f"lines-{path.name}")
    copied.write_text(text[: text.rindex('\n ],\n "columns": ')] + "\n ]\n}\n", encoding="utf-8")
    return copied


def check_equal(path: Path, lines: Path) -> int:
    """The block reader and the line reader against the whole-file parse, every field and
    id; returns the ids."""
    whole = results_from_dict(read_json_file(lines, "results file"), lines)
    for reader, loaded in (("block", load_results(path)), ("line", load_results(lines))):
        if loaded != whole:
            sys.exit(f"FAIL: {path}: the {reader} reader and the whole parse differ")
    return sum(len(q.retrieved) for q in whole.questions)


def timed(reader: str, paths: Sequence[Path], before: Path | None) -> dict[str, float]:
    env = dict(os.environ)
    if reader == "ragguard-before" and before is not None:
        env["PYTHONPATH"] = str(before)
    command = [sys.executable, "-c", CHILD, *map(str, paths), reader]
    completed = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if completed.returncode != 0:
        sys.exit(f"FAIL: {reader}: {completed.stderr}")
    return json.loads(completed.stdout)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before-src", type=Path)
    args = parser.parse_args(argv)
    readers = ["ragguard", "ragguard-lines", "whole-parse", "layout-floor"]
    readers += ["ragguard-before"] if args.before_src else []
    print(environment())
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        use_installed_bytecode(folder / "bytecode")
        paths = [
            write_results(results(args.questions, args.docs, v), folder / f"r{v}.json")
            for v in (0, 1)
        ]
        lines = [without_block(path) for path in paths]
        megabytes = paths[0].stat().st_size / 1e6
        print(
            f"{args.questions:,} questions x {args.docs} ids: two files of {megabytes:,.0f} MB"
            f" ({lines[0].stat().st_size / 1e6:,.0f} MB without the columns block)"
        )
        ids = sum(map(check_equal, paths, lines))
        print(f"block reader = line reader = whole parse on both files ({ids:,} ids compared)")
        files = {reader: paths if reader == "ragguard" else lines for reader in readers}
        for reader in readers:
            timed(reader, files[reader][:1] * 2, args.before_src)  # untimed: bytecode, cache
        runs: dict[str, list[dict[str, float]]] = {reader: [] for reader in readers}
        for _ in range(args.repeat):
            for reader in readers:
                runs[reader].append(timed(reader, files[reader], args.before_src))
    print(f"{args.repeat} runs of each, interleaved; both files loaded; target under {TARGET} s")
    reference = min(run["wall"] for run in runs["whole-parse"])
    for reader, measured in runs.items():
        walls = [run["wall"] for run in measured]
        best = min(walls)
        verdict = "" if reader != "ragguard" else ("  under" if best < TARGET else "  OVER")
        print(
            f"  {reader:<16} best {best:6.2f} s, median {statistics.median(walls):6.2f} s, "
            f"best CPU {min(run['cpu'] for run in measured):6.2f} s, "
            f"{best / reference:4.2f}x whole-parse{verdict}"
        )


if __name__ == "__main__":
    main()
