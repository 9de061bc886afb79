"""Whole-process speed and memory: `ragguard score` against a pytrec_eval script, ir_measures
and ranx, as a user runs each one, from TREC files to per-question results on disk.

Seeded TREC files: N queries x D ranked documents (distinct scores, sorted as retrievers
write them) and about 5 qrels a query (grades 0-3, at least one relevant, about 40 % never
retrieved). Metrics: ndcg@10, recall@100, mrr (no cut-off) and map@100.

Every tool runs as its own process on the same files and writes its per-question values:

- ragguard: ``python -m ragguard score --qrels Q --trec-run R --metrics ... --out F``
  (what the ``ragguard`` command runs; the terminal table goes to /dev/null);
- pytrec_eval: a script a user would write: ``parse_qrel``, ``parse_run``,
  ``RelevanceEvaluator(...).evaluate(run)``, ``json.dump`` of the per-query values;
- ir_measures (when installed): ``read_trec_qrels``, ``read_trec_run``, ``iter_calc``,
  ``json.dump``;
- ranx (when installed): ``Qrels.from_file``, ``Run.from_file``, ``evaluate(...,
  return_mean=False)``, ``json.dump``. ranx compiles numba functions on first use and caches
  them on disk: an untimed warm-up run on tiny files fills that cache (in ranx's favour).
- ragguard-1: ragguard kept to one process (``--processes 1``), where ``ragguard`` reads a
  large run in parts, one process per core (docs/formats.md, "Large runs in parts");
- ragguard-before (with ``--before-src``): ragguard from another source tree (its ``src``
  folder on PYTHONPATH), e.g. an export of main, to print before and after in one run.

Every tool is started by a small launcher process (``LAUNCHER``), which times it and
reports its ``os.wait4`` figures: a child's ``ru_maxrss`` is never below the peak RSS its
spawner ever had (Linux copies the spawner's high-water mark into the child's at exec; a
benchmark that had touched and freed 500 MiB saw ``python -c pass`` report 514 MiB), and
this benchmark holds every tool's per-question values for the checks. The launcher's own
peak (under 9 MiB, what a bare ``python -c pass`` holds) is below any Python tool's.

Wall time is measured around the tool by the launcher. CPU time (user + system) comes from
``os.wait4``, which on Linux includes every child the tool waited for (checked: a forked
child burning 0.5 s of CPU, waited by its parent, adds its 0.5 s), not a child left running.
Peak RSS is the larger of ``os.wait4``'s ``ru_maxrss`` and the summed RSS of the tool and all
its descendants, sampled every 20 ms from /proc while it runs (``_process_tree.TreePeak``;
the sampling thread uses about 3 % of one core):
``ru_maxrss`` alone is the largest peak of any ONE process of the tree (the parent's or a
waited child's), not what a tool that forks holds at once. The sum counts twice the
copy-on-write pages a forked child shares with its parent: conservative, against the tool
that forks. Without /proc (macOS) peak RSS is ``ru_maxrss`` alone, and the output says so.

Each size runs ``--repeat`` times, the tools interleaved so a change in the machine's load
hits all alike; medians are printed, and ratios of each tool to the pytrec_eval script.
Before any figure is printed every per-question value of every tool is checked against the
pytrec_eval script's (to 1e-9; the number of bit-identical values is printed too); the
script exits on the first difference.

With ``--compare``, ragguard also scores a second run file (about a third of its queries
ranked differently; untimed) and ``python -m ragguard compare A B`` is timed the same way:
the two results files loaded, compared and the table printed.

    python benchmarks/whole_process.py                                # 10,000 x 100
    python benchmarks/whole_process.py --questions 10000 100000 --repeat 3
    python benchmarks/whole_process.py --questions 100000 --compare --tools ragguard
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

import _process_tree
from _common import environment, use_installed_bytecode

METRICS = "ndcg@10,recall@100,mrr,map@100"
TOLERANCE = 1e-9
SEED = 20261203
POOL = 5_000_000
MIB = 1024 * 1024

PYTREC_EVAL_SCRIPT = """
import json, sys
import pytrec_eval

qrels_path, run_path, out_path = sys.argv[1:]
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(run_path) as f:
    run = pytrec_eval.parse_run(f)
measures = {"ndcg_cut.10", "recall.100", "recip_rank", "map_cut.100"}
values = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
names = {"ndcg_cut_10": "ndcg@10", "recall_100": "recall@100", "recip_rank": "mrr",
         "map_cut_100": "map@100"}
with open(out_path, "w") as f:
    json.dump({q: {names[m]: v[m] for m in names} for q, v in values.items()}, f)
"""

IR_MEASURES_SCRIPT = """
import json, sys
import ir_measures
from ir_measures import AP, RR, R, nDCG

qrels_path, run_path, out_path = sys.argv[1:]
names = {nDCG@10: "ndcg@10", R@100: "recall@100", RR: "mrr", AP@100: "map@100"}
qrels = ir_measures.read_trec_qrels(qrels_path)
run = ir_measures.read_trec_run(run_path)
values = {}
for metric in ir_measures.iter_calc(list(names), qrels, run):
    values.setdefault(metric.query_id, {})[names[metric.measure]] = metric.value
with open(out_path, "w") as f:
    json.dump(values, f)
"""

RANX_SCRIPT = """
import json, sys
from ranx import Qrels, Run, evaluate

qrels_path, run_path, out_path = sys.argv[1:]
names = ["ndcg@10", "recall@100", "mrr", "map@100"]
qrels = Qrels.from_file(qrels_path, kind="trec")
run = Run.from_file(run_path, kind="trec")
values = evaluate(qrels, run, names, return_mean=False)
with open(out_path, "w") as f:
    json.dump({q: {m: float(values[m][i]) for m in names} for i, q in enumerate(run.keys())}, f)
"""

SCRIPTS = {
    "pytrec_eval": PYTREC_EVAL_SCRIPT,
    "ir_measures": IR_MEASURES_SCRIPT,
    "ranx": RANX_SCRIPT,
}
MODULES = {"pytrec_eval": "pytrec_eval", "ir_measures": "ir_measures", "ranx": "ranx"}
REFERENCE = "pytrec_eval"


SAMPLED = _process_tree.available()


@dataclass(frozen=True)
class Measured:
    """One process (and its children): wall seconds, CPU seconds (user + system), peak RSS in
    MiB, and the most processes of its tree seen holding memory at once (0: not sampled)."""

    wall: float
    cpu: float
    rss: float
    processes: int = 0


def write_files(folder: Path, questions: int, docs: int, variant: int = 0) -> tuple[Path, Path]:
    """A qrels file and a run file; ``variant`` 1 redraws every third query's ranking."""
    rng = random.Random(SEED + questions)
    qrels_path, run_path = folder / "qrels.txt", folder / f"run{variant}.txt"
    with qrels_path.open("w") as qrels, run_path.open("w") as run:
        for number in range(questions):
            qid = f"q{number}"
            drawn = rng.sample(range(POOL), docs)
            labels: dict[int, int] = {}
            for _ in range(rng.randint(3, 7)):
                doc = rng.choice(drawn) if rng.random() < 0.6 else rng.randrange(POOL)
                labels[doc] = rng.choice((0, 1, 1, 2, 2, 3))
            labels[rng.choice(list(labels))] = rng.randint(1, 3)
            qrels.write("".join(f"{qid} 0 d{doc} {grade}\n" for doc, grade in labels.items()))
            if variant and number % 3 == 0:
                random.Random(number).shuffle(drawn)
            fractions = [rng.randrange(10_000) for _ in drawn]
            run.write(
                "".join(
                    f"{qid} Q0 d{doc} {rank} {docs - rank}.{fraction:04d} bench\n"
                    for rank, (doc, fraction) in enumerate(zip(drawn, fractions, strict=True), 1)
                )
            )
    return qrels_path, run_path


# Runs the measured command as its child and prints the child's wall time and rusage. A
# child's ru_maxrss is never below the high-water RSS of the process that spawned it (Linux
# copies the spawner's into the child's at exec, vfork and posix_spawn included): spawned
# from the benchmark, which holds every tool's per-question values for the checks (or from
# pytest), every tool would report at least that. This launcher is a small fresh process
# (under 9 MiB, below any Python tool's own), so the tool's figure is its own.
LAUNCHER = """
import json, os, sys, time

start = time.perf_counter()
child = os.fork()
if child == 0:
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        os.execvp(sys.argv[1], sys.argv[1:])
    except OSError as error:
        print(f"cannot run {sys.argv[1]}: {error}", file=sys.stderr)
    os._exit(127)
_, status, usage = os.wait4(child, 0)
wall = time.perf_counter() - start
cpu = usage.ru_utime + usage.ru_stime
print(json.dumps({"wall": wall, "cpu": cpu, "maxrss": usage.ru_maxrss, "status": status}))
"""


def run_process(
    command: Sequence[str], env: Mapping[str, str] | None = None, codes: Sequence[int] = (0,)
) -> Measured:
    """Run a command to its end (through ``LAUNCHER``); wall time around it, CPU time from
    ``os.wait4``, peak RSS the larger of its ``ru_maxrss`` and the sampled peak of the
    processes under the launcher (see the module docstring). An exit code outside
    ``codes`` stops the benchmark (`compare` exits with its verdict)."""
    launcher = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert launcher.stdout is not None and launcher.stderr is not None
    tree = _process_tree.TreePeak(launcher.pid) if SAMPLED else None
    with tree or contextlib.nullcontext():
        errors = launcher.stderr.read()  # read before waiting: a full pipe would block the tool
        if tree is not None:  # exited, not yet reaped: its pid cannot be reused while sampled
            os.waitid(os.P_PID, launcher.pid, os.WEXITED | os.WNOWAIT)
    report = launcher.stdout.read()
    if launcher.wait() != 0 or not report:
        sys.exit(
            f"FAIL: the launcher of {' '.join(command)} exited {launcher.returncode}:\n{errors}"
        )
    figures = json.loads(report)
    code = os.waitstatus_to_exitcode(figures["status"])
    if code not in codes:
        sys.exit(f"FAIL: {' '.join(command)} exited {code}:\n{errors}")
    largest = figures["maxrss"] * (1 if sys.platform == "darwin" else 1024)  # bytes
    if tree is None:
        return Measured(figures["wall"], figures["cpu"], largest / MIB)
    rss = max(largest, tree.peak_bytes) / MIB
    return Measured(figures["wall"], figures["cpu"], rss, tree.most_processes)


def rss_legend(processes: Mapping[str, int]) -> str:
    """How peak RSS was measured, printed under the table; ``processes``: per tool, the
    most processes of its tree seen holding memory at once."""
    if not SAMPLED:
        return (
            "peak RSS: os.wait4's ru_maxrss only (no /proc here to sample): the largest peak "
            "of any ONE process of a tool's tree, not what a tool that forks holds at once"
        )
    seen = ", ".join(f"{tool} {count}" for tool, count in processes.items())
    return (
        "peak RSS: the larger of os.wait4's ru_maxrss (the largest peak of any one process) "
        f"and the summed RSS of the process and all its descendants, sampled every "
        f"{_process_tree.INTERVAL * 1000:.0f} ms from /proc; copy-on-write pages a forked "
        "child shares with its parent count twice in the sum (against the tool that forks). "
        f"Most processes seen at once: {seen}"
    )


def ragguard_env(source: Path | None) -> dict[str, str] | None:
    if source is None:
        return None
    return {**os.environ, "PYTHONPATH": str(source)}


def commands(
    tools: Sequence[str], folder: Path, qrels: Path, run: Path, before: Path | None
) -> dict[str, tuple[list[str], dict[str, str] | None, Path]]:
    """Per tool: its command line, its environment and the file it writes."""
    chosen: dict[str, tuple[list[str], dict[str, str] | None, Path]] = {}
    for tool in tools:
        out = folder / f"{tool}.json"
        if tool.startswith("ragguard"):
            command = [sys.executable, "-m", "ragguard", "score", "--qrels", str(qrels)]
            command += ["--trec-run", str(run), "--metrics", METRICS, "--out", str(out)]
            if tool == "ragguard-1":
                command += ["--processes", "1"]
            source = before if tool == "ragguard-before" else None
            chosen[tool] = (command, ragguard_env(source), out)
        else:
            script = folder / f"{tool}_script.py"
            script.write_text(SCRIPTS[tool])
            command = [sys.executable, str(script), str(qrels), str(run), str(out)]
            chosen[tool] = (command, None, out)
    return chosen


def per_question(tool: str, path: Path) -> dict[str, dict[str, float]]:
    """The per-question values a tool wrote, as {question: {metric: value}}."""
    data = json.loads(path.read_text())
    if not tool.startswith("ragguard"):
        return data
    return {q["id"]: q["metrics"] for q in data["questions"]}


def check_values(tool: str, ours: Mapping, reference: Mapping) -> tuple[int, int]:
    """Every value of ``tool`` against the reference's; exits on the first difference.
    Returns (values compared, values bit-identical)."""
    if set(ours) != set(reference):
        sys.exit(f"FAIL: {tool} and {REFERENCE} evaluated different questions")
    compared = identical = 0
    for qid, values in reference.items():
        for name, value in values.items():
            theirs = ours[qid][name]
            if not math.isclose(theirs, value, rel_tol=0, abs_tol=TOLERANCE):
                sys.exit(f"FAIL: {qid} {name}: {tool} {theirs!r}, {REFERENCE} {value!r}")
            compared += 1
            identical += theirs == value
    return compared, identical


def median_of(runs: Sequence[Measured]) -> Measured:
    """Medians of the figures; the most processes seen in any of the runs."""
    return Measured(
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        statistics.median(r.rss for r in runs),
        max(r.processes for r in runs),
    )


def table_row(size: int, tool: str, measured: Measured, reference: Measured | None) -> str:
    ratios = ""
    if reference is not None:
        ratios = (
            f"{measured.wall / reference.wall:5.2f}x {measured.cpu / reference.cpu:5.2f}x "
            f"{measured.rss / reference.rss:5.2f}x"
        )
    return (
        f"| {size:>9,} | {tool:<15} | {measured.wall:8.2f} s | {measured.cpu:8.2f} s | "
        f"{measured.rss / 1024:6.2f} GiB | {ratios} |"
    )


def warm_up(tools: Sequence[str], before: Path | None) -> None:
    """One untimed run of every tool on tiny files: fills ranx's numba cache, and the
    interpreters' bytecode caches, as a user's second run would find them."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        qrels, run = write_files(folder, 20, 10)
        for command, env, _ in commands(tools, folder, qrels, run, before).values():
            run_process(command, env)


def measure_size(
    size: int, args: argparse.Namespace, tools: Sequence[str], folder: Path
) -> dict[str, Measured]:
    started = time.perf_counter()
    qrels, run = write_files(folder, size, args.docs)
    megabytes = run.stat().st_size / 1e6
    print(
        f"{size:,} queries x {args.docs}: run file {megabytes:,.0f} MB, qrels "
        f"{qrels.stat().st_size / 1e6:,.1f} MB (written in {time.perf_counter() - started:.0f} s)",
        flush=True,
    )
    planned = commands(tools, folder, qrels, run, args.before_src)
    runs: dict[str, list[Measured]] = {tool: [] for tool in tools}
    for _ in range(args.repeat):
        for tool, (command, env, _) in planned.items():
            runs[tool].append(run_process(command, env))
            print(f"  {tool:<15} {runs[tool][-1].wall:7.2f} s", flush=True)
    reference = per_question(REFERENCE, planned[REFERENCE][2]) if REFERENCE in planned else None
    for tool, (_, _, out) in planned.items():
        if reference is not None and tool != REFERENCE:
            compared, identical = check_values(tool, per_question(tool, out), reference)
            print(
                f"  values: {tool} agrees with {REFERENCE} on all {compared:,} values to "
                f"{TOLERANCE:g}; {identical:,} bit-identical"
            )
        out.unlink(missing_ok=True)
    run.unlink()
    if args.compare:
        measure_compare(folder, size, args, qrels, tools)
    return {tool: median_of(measured) for tool, measured in runs.items()}


def measure_compare(
    folder: Path, size: int, args: argparse.Namespace, qrels: Path, tools: Sequence[str]
) -> None:
    """`ragguard compare` of two results files: the generated run and a variant of it, each
    ragguard (and ragguard-before) comparing files it wrote itself."""
    runs = [write_files(folder, size, args.docs, variant)[1] for variant in (0, 1)]
    for tool in (tool for tool in tools if tool.startswith("ragguard")):
        env = ragguard_env(args.before_src if tool == "ragguard-before" else None)
        paths = [folder / f"{tool}-results{variant}.json" for variant in (0, 1)]
        for run, out in zip(runs, paths, strict=True):
            command = [sys.executable, "-m", "ragguard", "score", "--qrels", str(qrels)]
            command += ["--trec-run", str(run), "--metrics", METRICS, "--out", str(out)]
            run_process(command, env)
        command = [sys.executable, "-m", "ragguard", "compare", *map(str, paths)]
        measured = median_of(
            [run_process(command, env, codes=(0, 1, 3)) for _ in range(args.repeat)]
        )
        megabytes = paths[0].stat().st_size / 1e6
        print(
            f"  {tool} compare of two {size:,}-question results files ({megabytes:,.0f} MB "
            f"each): median {measured.wall:.2f} s wall, {measured.cpu:.2f} s CPU, "
            f"{measured.rss:,.0f} MiB peak RSS over {args.repeat} runs",
            flush=True,
        )
        for path in paths:
            path.unlink()
    for run in runs:
        run.unlink()


def available(requested: Sequence[str], before: Path | None) -> list[str]:
    """The requested tools that can run here; a missing one is named and left out."""
    installed = {tool for tool, module in MODULES.items() if find_spec(module) is not None}
    if before is not None:
        installed.add("ragguard-before")
    for tool in requested:
        if tool in MODULES and tool not in installed:
            print(f"{tool}: not installed (pip install {tool.replace('_', '-')}), left out")
    return [tool for tool in requested if tool in ("ragguard", "ragguard-1") or tool in installed]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, nargs="+", default=[10_000])
    parser.add_argument("--docs", type=int, default=100, help="ranked documents per query")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--tools",
        nargs="+",
        default=["pytrec_eval", "ir_measures", "ranx", "ragguard-before", "ragguard-1", "ragguard"],
    )
    parser.add_argument(
        "--before-src", type=Path, help="another ragguard's src folder, timed as ragguard-before"
    )
    parser.add_argument("--compare", action="store_true", help="also time `ragguard compare`")
    parser.add_argument("--tmp", type=Path, help="folder for the generated files")
    args = parser.parse_args(argv)
    tools = available(args.tools, args.before_src)
    print(environment())
    print(
        f"metrics {METRICS}; {args.repeat} runs of each tool per size, interleaved; medians; "
        f"ratios to the {REFERENCE} script (wall, CPU, peak RSS)"
    )
    rows = []
    processes: dict[str, int] = {}
    folder = Path(tempfile.mkdtemp(prefix="ragguard-whole-", dir=args.tmp))
    try:
        use_installed_bytecode(folder / "bytecode")
        warm_up(tools, args.before_src)
        for size in args.questions:
            medians = measure_size(size, args, tools, folder)
            reference = medians.get(REFERENCE)
            rows += [table_row(size, tool, m, reference) for tool, m in medians.items()]
            for tool, measured in medians.items():
                processes[tool] = max(processes.get(tool, 0), measured.processes)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(
        f"| questions | tool            |   wall     |   CPU      | peak RSS   | "
        f"ratio to {REFERENCE} (wall CPU RSS) |"
    )
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(rss_legend(processes))


if __name__ == "__main__":
    main()
