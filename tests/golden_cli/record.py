"""Golden outputs of the command line: run fixed scenarios, normalise, store or compare.

Each scenario copies its inputs into a fresh temporary folder (not a git repository), runs
one or more ``ragguard`` commands there as a user would (``python -m ragguard ...`` in a
subprocess, from that folder, with a fixed environment), and captures every command's exit
code, stdout and stderr, and every file the commands wrote or changed. Only what truly varies
between runs is normalised (README.md lists each rule and why); the rest must match the
stored bytes exactly.

    python tests/golden_cli/record.py --update            # regenerate every scenario
    python tests/golden_cli/record.py --update demo help  # regenerate some
    python tests/golden_cli/record.py                     # check, print the differences

``tests/golden_cli/test_golden_cli.py`` runs the same check under pytest
(``RAGGUARD_UPDATE_GOLDEN=1`` regenerates, as for tests/golden/).

This module imports nothing from ragguard on purpose: the harness must survive the modules
it checks being moved or renamed.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]  # the repository
INPUTS = HERE / "inputs"
FILES = "files"
FILE_SUFFIX = ".golden"  # stored output files: never a live .gitignore, .py or workflow
PATH_SEPARATOR = "__"  # files/<a>__<b>.golden is the output file <a>/<b>
STEP_TIMEOUT = 120  # seconds; a step takes well under one

# GITHUB_SHA/GITHUB_REF: the commit results record (current_commit reads them before git).
FIXED_ENV = {
    "GITHUB_SHA": "0123456789abcdef0123456789abcdef01234567",
    "GITHUB_REF": "refs/heads/golden",
    "COLUMNS": "80",  # click wraps --help to the terminal width
    "LINES": "24",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONUTF8": "1",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONDONTWRITEBYTECODE": "1",  # no __pycache__ beside a python system under test
    "TZ": "UTC",
}
PASSED_ENV = ("PATH", "PYTHONPATH", "SYSTEMROOT")  # taken from the caller when set


@dataclass(frozen=True)
class Scenario:
    """``steps``: the arguments after ``ragguard``, one tuple per command; ``{repo}`` is the
    repository. ``inputs``: (source, destination) pairs, source relative to the repository
    (a folder is copied whole), destination relative to the scenario's working folder.
    ``measured``: the commands run a live system whose latencies are measured (README.md,
    "What is normalised, and why", rules 5-8)."""

    name: str
    why: str
    steps: tuple[tuple[str, ...], ...]
    inputs: tuple[tuple[str, str], ...] = ()
    measured: bool = False


def _steps(*commands: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(shlex.split(command)) for command in commands)


def _inputs(*pairs: str) -> tuple[tuple[str, str], ...]:
    """``"src -> dest"`` strings, or a bare source copied under its own name."""
    out = []
    for pair in pairs:
        source, _, dest = (part.strip() for part in pair.partition("->"))
        out.append((source, dest or Path(source).name))
    return tuple(out)


GI = "tests/golden_cli/inputs"
COMPARE_OUTPUTS = (
    "--markdown comment.md --summary summary.md --junit junit.xml --json comparison.json"
)
HELP_COMMANDS = (
    "demo",
    "init",
    "run",
    "score",
    "compare",
    "power",
    "explain",
    "report",
    "baseline",
    "baseline fetch",
    "import",
    "merge",
    "calibrate",
    "ci",
    "publish",
)


def _compare(name: str, case: str, why: str, *extra_inputs: str) -> Scenario:
    return Scenario(
        name,
        why,
        _steps(f"compare baseline.json head.json {COMPARE_OUTPUTS}"),
        _inputs(
            f"{GI}/compare/{case}/baseline.json", f"{GI}/compare/{case}/head.json", *extra_inputs
        ),
    )


def _bad_input(case: str, command: str, *case_files: str) -> Scenario:
    """A tests/badinput case: its common good inputs with the case's broken files on top."""
    common = ("corpus.jsonl", "ragguard.yml", "results.json", "run.jsonl", "testset.yaml")
    return Scenario(
        f"bad-{case}",
        f"bad input, tests/badinput/cases/{case}: exit 2 and one line on stderr",
        _steps(command),
        _inputs(
            *(f"tests/badinput/common/{name}" for name in common),
            *(f"tests/badinput/cases/{case}/{name}" for name in case_files),
        ),
    )


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "help",
        "ragguard --help, --version and every command's --help",
        (("--help",), ("--version",), *((*c.split(), "--help") for c in HELP_COMMANDS)),
    ),
    Scenario(
        "demo",
        "the embedded example: baseline, pull request, the gate (FAIL); writes ragguard-demo/",
        _steps("demo"),
        measured=True,
    ),
    Scenario(
        "demo-seed",
        "the reference text's worked examples, scored from files shipped with ragguard",
        _steps("demo --seed"),
    ),
    Scenario(
        "init",
        "the starter suite, the two workflows and the .gitignore lines",
        _steps("init"),
    ),
    Scenario(
        "init-matrix-run",
        "init --matrix (the sharded workflow), then run the scaffolded suite: pass",
        _steps("init --matrix", "run"),
        measured=True,
    ),
    Scenario(
        "init-run-repeat",
        "run the scaffolded suite with every question asked three times (--repeat 3)",
        _steps("init --no-workflows", "run --repeat 3"),
        measured=True,
    ),
    Scenario(
        "run-example",
        "ragguard's own suite, examples/orders-api (the demo pipeline as a python system): pass",
        _steps("run -c {repo}/examples/orders-api/ragguard.yml"),
        measured=True,
    ),
    Scenario(
        "run-shards-merge",
        "a recorded suite run as shards 1/2 and 2/2 (missing and failed questions), merged",
        _steps(
            "run --shard 1/2 --out part1.json",
            "run --shard 2/2 --out part2.json",
            "merge part1.json part2.json --out results.json",
        ),
        _inputs(
            f"{GI}/sharded/ragguard.yml", f"{GI}/sharded/testset.jsonl", f"{GI}/sharded/run.jsonl"
        ),
    ),
    Scenario(
        "score-recorded",
        "score a recorded JSON Lines run against a test set (a missing question)",
        _steps(
            "score --testset four-questions.testset.yaml --run partial.run.jsonl"
            " --metrics hit_rate@1,hit_rate@3,recall@3,mrr,ndcg@3 --out results.json"
        ),
        _inputs(
            f"{GI}/seed/four-questions.testset.yaml",
            f"{GI}/four-questions-partial.run.jsonl -> partial.run.jsonl",
        ),
    ),
    Scenario(
        "report-explain",
        "score the retry-429 example, then report it as table, markdown, JSON, and explain it",
        _steps(
            "score --testset retry-429.testset.yaml --run retry-429.run.jsonl"
            " --metrics precision@3,recall@3,mrr,ndcg@3 --out results.json",
            "report results.json",
            "report results.json --format markdown",
            "report results.json --format json",
            "explain results.json retry-after-429 -k 3",
        ),
        _inputs(f"{GI}/seed/retry-429.testset.yaml", f"{GI}/seed/retry-429.run.jsonl"),
    ),
    Scenario(
        "score-corpus",
        "an id-only run with --corpus: generation metrics, then the sentence verdicts explained",
        _steps(
            "score --testset testset.yaml --run run.jsonl --corpus chunks.jsonl"
            " --metrics hit_rate@1,faithfulness,answer_relevance,answer_f1,abstention"
            " --out results.json",
            "explain results.json requests-per-minute",
        ),
        _inputs(
            f"{GI}/generation/testset.yaml",
            f"{GI}/generation/run.jsonl",
            f"{GI}/generation/chunks.jsonl",
        ),
    ),
    Scenario(
        "score-trec",
        "score trec_eval's own test qrels and run (tests/data/trec_eval)",
        _steps(
            "score --qrels qrels.test --trec-run results.test"
            " --metrics ndcg@10,map@100,recall@100,mrr@10,precision@5 --out results.json"
        ),
        _inputs("tests/data/trec_eval/qrels.test", "tests/data/trec_eval/results.test"),
    ),
    Scenario(
        "score-repeats",
        "three recorded runs of one test set scored as repeats (one answer missing)",
        _steps(
            "score --testset testset.jsonl --run a.jsonl --run b.jsonl --run c.jsonl"
            " --metrics hit_rate@1 --out results.json"
        ),
        _inputs(
            f"{GI}/score-repeats/testset.jsonl",
            f"{GI}/score-repeats/a.jsonl",
            f"{GI}/score-repeats/b.jsonl",
            f"{GI}/score-repeats/c.jsonl",
        ),
    ),
    _compare("compare-pass", "no-change", "compare: the same run again, verdict pass, exit 0"),
    _compare(
        "compare-warn",
        "drift",
        "compare under ./ragguard.yml whose gate warns on removed questions: verdict warn, exit 0",
        f"{GI}/compare-warn.yml -> ragguard.yml",
        f"{GI}/seed/four-questions.testset.yaml -> testset.yaml",
        f"{GI}/seed/four-questions.run.jsonl -> run.jsonl",
    ),
    _compare(
        "compare-fail",
        "regression-hallucination",
        "compare: a critical question newly fails, hallucinated sentences: verdict fail, exit 1",
    ),
    _compare(
        "compare-error",
        "error",
        "compare: system errors beyond max_error_rate: verdict error, exit 3",
    ),
    _compare(
        "compare-incomparable",
        "incomparable",
        "compare: the faithfulness method differs from the baseline's: incomparable, exit 3",
    ),
    _compare(
        "compare-repeats",
        "repeats",
        "compare: both sides asked every question three times (flaky, stable, 2 of 3)",
    ),
    Scenario(
        "compare-no-baseline",
        "compare with --allow-missing-baseline and no baseline file: the 'no baseline yet' report",
        _steps(f"compare baseline.json head.json --allow-missing-baseline {COMPARE_OUTPUTS}"),
        _inputs(f"{GI}/compare/no-baseline/head.json"),
    ),
    Scenario(
        "power",
        "power: one run (noise assumed), against a baseline, and a repeated run",
        _steps(
            "power head.json",
            "power head.json --baseline baseline.json",
            "power repeated.json",
        ),
        _inputs(
            f"{GI}/compare/regression-hallucination/baseline.json",
            f"{GI}/compare/regression-hallucination/head.json",
            f"{GI}/compare/repeats/head.json -> repeated.json",
        ),
    ),
    Scenario(
        "import-ragas",
        "import a ragas test set, labels found in the Orders API docs; one left out",
        _steps("import ragas.jsonl --from ragas --docs docs --skip-unlabelled --out testset.yaml"),
        _inputs("tests/data/foreign/ragas.jsonl", f"{GI}/orders-api-docs -> docs"),
    ),
    Scenario(
        "calibrate",
        "the lexical faithfulness method against the tricky calibration set's human verdicts",
        _steps("calibrate faithfulness_tricky.yaml"),
        _inputs("tests/data/faithfulness_tricky.yaml"),
    ),
    _bad_input("config-unknown-metric", "run -c ragguard.yml", "ragguard.yml"),
    _bad_input("compare-suites-differ", "compare results.json head.json", "head.json"),
    _bad_input("cli-unknown-option", "score --bogus"),
    Scenario(
        "bad-import-unlabelled",
        "import whose contexts are not all found, without --skip-unlabelled: exit 2",
        _steps("import deepeval.jsonl --from deepeval --docs docs --out testset.yaml"),
        _inputs("tests/data/foreign/deepeval.jsonl", f"{GI}/orders-api-docs -> docs"),
    ),
)
BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}


# --- running ------------------------------------------------------------------------------


@dataclass
class Step:
    argv: tuple[str, ...]
    exit_code: int
    stdout: bytes
    stderr: bytes


@dataclass
class Run:
    """One scenario's raw outcome, before normalisation."""

    steps: list[Step]
    files: dict[str, bytes]  # written or changed, by path relative to the working folder
    deleted: list[str]  # inputs the commands removed
    started: datetime
    ended: datetime
    replacements: list[tuple[str, str]] = field(default_factory=list)


def environment(home: Path, tmp: Path) -> dict[str, str]:
    env = {name: os.environ[name] for name in PASSED_ENV if name in os.environ}
    env.update(FIXED_ENV)
    env["HOME"] = str(home)
    env["TMPDIR"] = str(tmp)
    return env


@cache
def package_dir() -> str:
    """Where the ragguard that runs lives (asked of the same interpreter and PYTHONPATH)."""
    completed = subprocess.run(
        [sys.executable, "-c", "import ragguard; print(ragguard.__path__[0])"],
        capture_output=True,
        text=True,
        env=environment(Path.home(), Path(tempfile.gettempdir())),
        check=True,
        timeout=60,
    )
    return completed.stdout.strip()


def _snapshot(folder: Path) -> dict[str, bytes]:
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            found[path.relative_to(folder).as_posix()] = path.read_bytes()
    return found


def _copy_inputs(scenario: Scenario, work: Path) -> None:
    for source, dest in scenario.inputs:
        origin, target = ROOT / source, work / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_dir():
            shutil.copytree(origin, target)
        else:
            shutil.copyfile(origin, target)


def run_scenario(scenario: Scenario) -> Run:
    """Run the scenario's commands in a fresh temporary folder; the raw outcome."""
    root = Path(tempfile.mkdtemp(prefix="ragguard-golden-"))
    try:
        work, home, tmp = root / "work", root / "home", root / "tmp"
        for folder in (work, home, tmp):
            folder.mkdir()
        _copy_inputs(scenario, work)
        before = _snapshot(work)
        env = environment(home, tmp)
        started = datetime.now().astimezone()
        steps = []
        for argv in scenario.steps:
            args = tuple(arg.replace("{repo}", str(ROOT)) for arg in argv)
            completed = subprocess.run(
                [sys.executable, "-m", "ragguard", *args],
                cwd=work,
                env=env,
                capture_output=True,
                timeout=STEP_TIMEOUT,
                check=False,
            )
            steps.append(Step(argv, completed.returncode, completed.stdout, completed.stderr))
        ended = datetime.now().astimezone()
        after = _snapshot(work)
        written = {path: data for path, data in after.items() if before.get(path) != data}
        deleted = sorted(before.keys() - after.keys())
        paths = [
            (str(root), "<tmp>"),
            (str(root.resolve()), "<tmp>"),
            (package_dir(), "<ragguard>"),
            (str(ROOT), "<repo>"),
        ]
        return Run(steps, written, deleted, started, ended, paths)
    finally:
        shutil.rmtree(root, ignore_errors=True)


# --- normalising --------------------------------------------------------------------------
# Each rule is documented in README.md; keep the two in step.

# An ISO timestamp with its zone, also as markdown escapes it (2026\-12\-04T17\:03\:07\+00\:00).
TIMESTAMP = re.compile(
    r"\b\d{4}\\?-\d\d\\?-\d\dT\d\d\\?:\d\d\\?:\d\d(?:\.\d+)?(?:Z|\\?[+-]\d\d\\?:\d\d)"
)
TIMESTAMP_SLACK = timedelta(minutes=2)
PROGRESS_LINE = (
    r"ragguard: (\d+/\d+) questions done, (\d+) failed, \d+\.\ds(?:, about [0-9hms ]+ left)?\n"
)
PROGRESS_BLOCK = re.compile(rf"^(?:{PROGRESS_LINE})+", re.MULTILINE)
COST_LINE = re.compile(
    r"^(ragguard: asked \d+ questions .*, )(?:\d+h \d\dm|\d+m \d\ds|\d+s)$", re.MULTILINE
)
# Only in scenarios whose system is live (Scenario.measured):
LATENCY_FIELD = re.compile(r'("latency_ms": ?)-?\d+(?:\.\d+)?(?:e-?\d+)?')
LATENCY_COLUMN = re.compile(r'("latency_ms":\[)[^\]]*(\])')
LINE_BYTES_COLUMN = re.compile(r'("line_bytes":\[)[^\]]*(\])')
COLUMNS_CHECK = re.compile(r'("columns_check": "crc32:)[0-9a-f]{8}(")')
MARKDOWN_LATENCY = re.compile(r"(?<=\n)\nLatency: p50 [^\n]*\.\n")
COST_TABLE_HEADER = re.compile(r"^cost and latency \(lower is better\) ")
COST_TABLE_ROW = re.compile(r"^latency_p\d+ ")


def _timestamps(text: str, run: Run) -> str:
    """An ISO timestamp within the scenario's run (with slack) is the clock: ``<now>``;
    any other (the frozen inputs' dates) is kept."""
    low, high = run.started - TIMESTAMP_SLACK, run.ended + TIMESTAMP_SLACK

    def replace(match: re.Match[str]) -> str:
        try:
            when = datetime.fromisoformat(match.group(0).replace("\\", "").replace("Z", "+00:00"))
        except ValueError:
            return match.group(0)
        return "<now>" if low <= when <= high else match.group(0)

    return TIMESTAMP.sub(replace, text)


def _progress(block: re.Match[str]) -> str:
    """A run's progress lines: how many, at which counts, and their times depend on thread
    timing; the last line holds the final counts (every run prints it)."""
    last = re.findall(PROGRESS_LINE, block.group(0))[-1]
    return f"ragguard: <progress lines>, the last: {last[0]} questions done, {last[1]} failed\n"


def _cost_table(text: str) -> str:
    """The live latency rows of the terminal comparison: keep the row names and the budget
    verdict (the last cell); the measured cells, and the column widths they set, go."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if not COST_TABLE_HEADER.match(line):
            continue
        lines[index] = " | ".join(re.split(r"\s{2,}", line.strip()))
        if index + 1 < len(lines) and set(lines[index + 1]) <= {"-", " "}:
            lines[index + 1] = "<rule>"
        row = index + 2
        while row < len(lines) and COST_TABLE_ROW.match(lines[row]):
            cells = re.split(r"\s{2,}", lines[row].strip())
            lines[row] = " | ".join([cells[0], "<measured>", cells[-1]])
            row += 1
    return "\n".join(lines)


def normalise(text: str, run: Run, measured: bool) -> str:
    for path, name in run.replacements:
        text = text.replace(path, name)
    text = _timestamps(text, run)
    text = PROGRESS_BLOCK.sub(_progress, text)
    text = COST_LINE.sub(r"\1<elapsed>", text)
    if measured:
        text = LATENCY_FIELD.sub(r"\1<measured>", text)
        text = LATENCY_COLUMN.sub(r"\1<measured>\2", text)
        text = LINE_BYTES_COLUMN.sub(r"\1<measured>\2", text)
        text = COLUMNS_CHECK.sub(r"\1<measured>\2", text)
        text = MARKDOWN_LATENCY.sub("", text)
        text = _cost_table(text)
    return text


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def stored_name(path: str) -> str:
    """``ragguard-demo/comment.md`` -> ``files/ragguard-demo__comment.md.golden``."""
    parts = path.split("/")
    if any(PATH_SEPARATOR in part for part in parts):
        raise ValueError(f"{path}: a name holding {PATH_SEPARATOR!r} cannot be stored flat")
    return f"{FILES}/{PATH_SEPARATOR.join(parts)}{FILE_SUFFIX}"


def golden_files(scenario: Scenario, run: Run) -> dict[str, bytes]:
    """What the scenario's folder holds: relative path -> bytes."""

    def norm(data: bytes) -> bytes:
        return _bytes(normalise(_text(data), run, scenario.measured))

    out: dict[str, bytes] = {
        "command.txt": _bytes(
            "".join(f"$ ragguard {shlex.join(step.argv)}\n" for step in run.steps)
        )
    }
    several = len(run.steps) > 1
    for number, step in enumerate(run.steps, start=1):
        prefix = f"step{number}/" if several else ""
        out[f"{prefix}exit_code.txt"] = f"{step.exit_code}\n".encode()
        out[f"{prefix}stdout.txt"] = norm(step.stdout)
        out[f"{prefix}stderr.txt"] = norm(step.stderr)
    for path, data in run.files.items():
        out[stored_name(path)] = norm(data)
    if run.deleted:
        out["deleted.txt"] = "".join(f"{path}\n" for path in run.deleted).encode()
    return out


def produce(scenario: Scenario) -> dict[str, bytes]:
    return golden_files(scenario, run_scenario(scenario))


# --- storing and comparing ----------------------------------------------------------------


def read_golden(scenario: Scenario) -> dict[str, bytes]:
    folder = HERE / scenario.name
    if not folder.is_dir():
        return {}
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def write_golden(scenario: Scenario, files: Mapping[str, bytes]) -> None:
    folder = HERE / scenario.name
    if folder.exists():
        shutil.rmtree(folder)
    for path, data in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def differences(
    stored: Mapping[str, bytes], produced: Mapping[str, bytes], context: int = 3
) -> list[str]:
    """Readable differences between the stored and the produced files; [] when equal."""
    problems = []
    for path in sorted(stored.keys() - produced.keys()):
        problems.append(f"{path}: stored, but this run did not produce it")
    for path in sorted(produced.keys() - stored.keys()):
        preview = _text(produced[path])[:2000]
        problems.append(f"{path}: produced, but not stored:\n{preview}")
    for path in sorted(stored.keys() & produced.keys()):
        if stored[path] == produced[path]:
            continue
        diff = difflib.unified_diff(
            _text(stored[path]).splitlines(keepends=True),
            _text(produced[path]).splitlines(keepends=True),
            fromfile=f"stored/{path}",
            tofile=f"produced/{path}",
            n=context,
        )
        lines = [line if line.endswith("\n") else line + "\n\\ no newline\n" for line in diff]
        shown = "".join(lines[:200])
        more = f"... and {len(lines) - 200} more diff lines\n" if len(lines) > 200 else ""
        problems.append(f"{path} differs:\n{shown or '(differs only in bytes)'}{more}")
    return problems


def stale_folders() -> list[str]:
    """Folders here that no scenario writes (a renamed or removed scenario's goldens)."""
    keep = {"inputs", "__pycache__", *BY_NAME}
    return sorted(p.name for p in HERE.iterdir() if p.is_dir() and p.name not in keep)


def _run_all(
    scenarios: Sequence[Scenario], act: Callable[[Scenario, dict[str, bytes]], None]
) -> None:
    for scenario in scenarios:
        started = time.monotonic()
        act(scenario, produce(scenario))
        print(f"{scenario.name}: {time.monotonic() - started:.1f}s", file=sys.stderr)


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="Store the outputs as golden.")
    parser.add_argument("names", nargs="*", help="Scenarios (default: all).")
    args = parser.parse_args(list(argv) if argv is not None else None)
    unknown = [name for name in args.names if name not in BY_NAME]
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
    chosen = [BY_NAME[name] for name in args.names] or list(SCENARIOS)
    failed: list[str] = []

    def act(scenario: Scenario, files: dict[str, bytes]) -> None:
        if args.update:
            write_golden(scenario, files)
            return
        problems = differences(read_golden(scenario), files)
        if problems:
            failed.append(scenario.name)
            print(f"== {scenario.name}\n" + "\n".join(problems))

    _run_all(chosen, act)
    if not args.update and not args.names and stale_folders():
        print(f"stale golden folders (no such scenario): {', '.join(stale_folders())}")
        return 1
    if failed:
        print(f"{len(failed)} scenario(s) differ: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
