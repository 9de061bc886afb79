"""Many questions with long contexts: `ragguard score --metrics faithfulness` must not keep
every analysed context (an analysed context takes about 16 bytes per character of text).

A test set of ``--questions`` questions, each retrieving its own context of 255 passages of
about 8,000 characters (``answer_length.py --passage-chars 8000``'s 2 MB context, its chunk
ids prefixed by the question's so that no two contexts are the same), each answered with
the first RAGTruth answer, is scored as a whole process, once with this checkout and, with
``--before-src DIR``, once with another checkout's ``src`` (``git archive``). Printed: wall
seconds and the child's peak RSS for each, and whether the faithfulness values are equal.

    python benchmarks/long_contexts_memory.py --questions 20 --before-src /tmp/before/src
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import environment
from answer_length import DATA, drawn_context, load_data


def write_inputs(folder: Path, data: Path, questions: int) -> tuple[Path, Path]:
    """The test set and the recorded run: ``questions`` questions, each its own 2 MB context."""
    answers, read, question = load_data(data, None)
    context = drawn_context(read, len(read), 8_000)
    testset, run = folder / "testset.jsonl", folder / "run.jsonl"
    with testset.open("w", encoding="utf-8") as tests, run.open("w", encoding="utf-8") as runs:
        for number in range(questions):
            qid = f"q{number}"
            retrieved = [{"id": f"{qid}-{chunk}", "text": text} for chunk, text in context]
            line = {"id": qid, "question": question, "relevant": [retrieved[0]["id"]]}
            tests.write(json.dumps(line) + "\n")
            runs.write(json.dumps({"id": qid, "retrieved": retrieved, "answer": answers[0]}) + "\n")
    return testset, run


def score(folder: Path, testset: Path, run: Path, src: str | None, name: str) -> dict:
    """One `ragguard score` process: wall seconds, peak RSS (MiB), per-question values."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    out = folder / f"{name}.json"
    command = [sys.executable, "-m", "ragguard", "score", "--testset", str(testset)]
    command += ["--run", str(run), "--metrics", "faithfulness", "--out", str(out)]
    script = (
        "import resource, subprocess, sys, json;"
        "done = subprocess.run(sys.argv[1:]);"
        "print(json.dumps([done.returncode, "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))"
    )
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script, *command], capture_output=True, text=True, env=env
    )
    wall = time.perf_counter() - start
    code, peak = json.loads(done.stdout.strip().splitlines()[-1])
    if code != 0:
        sys.exit(f"{name}: ragguard score failed ({code}): {done.stderr.strip()[-500:]}")
    values = [q["metrics"]["faithfulness"] for q in json.loads(out.read_text())["questions"]]
    return {"wall": wall, "peak_mib": peak / 1024, "values": values}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help=f"default: {DATA}")
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--before-src", default=None, help="another checkout's src folder")
    args = parser.parse_args()
    if not (args.data / "responses.jsonl").is_file():
        print(f"long_contexts_memory.py: no responses.jsonl in {args.data}", file=sys.stderr)
        return 2
    print(environment())
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        testset, run = write_inputs(folder, args.data, args.questions)
        megabytes = run.stat().st_size / 1e6
        print(
            f"{args.questions} questions, each its own context of 255 passages ({megabytes:,.0f} MB run)"
        )
        found = {"after": score(folder, testset, run, None, "after")}
        if args.before_src:
            found["before"] = score(folder, testset, run, args.before_src, "before")
    for name, result in found.items():
        print(f"{name}: {result['wall']:.1f} s wall, peak RSS {result['peak_mib']:,.0f} MiB")
    if "before" in found:
        same = found["before"]["values"] == found["after"]["values"]
        print(f"faithfulness per question {'equal' if same else 'DIFFERENT'} before and after")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
