"""Write the frozen inputs under tests/golden_cli/inputs/ (run once; kept for provenance).

The inputs are frozen on purpose: the golden outputs prove that the same inputs give the
same bytes, and results files written before a change must stay readable after it (CI keeps
old baselines on the data branch). Do not rerun this after a change to ragguard's writers
unless the goldens are meant to move with them; if you do, review ``git diff`` of inputs/.

Run from the repository root:

    python tests/golden_cli/make_inputs.py

Every input comes from an existing fixture: the comparison cases of tests/compare_cases.py
(the same hand-made results tests/golden/ renders), the sharded suite of
tests/test_shards.py, the repeats of tests/test_cli_score_repeats.py, the generation inputs
of tests/metrics/test_generation_cli.py, the seed's four-question run without its last
line (tests/test_cli.py's missing question), and copies of the demo's seed examples and
Orders API documents (package data under src/, copied so that moving it does not move the
inputs). The one input made here is compare-warn.yml: a ragguard.yml whose gate warns on a
removed question.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INPUTS = Path(__file__).resolve().parent / "inputs"

COMPARE_CASES = (
    "no-change",
    "regression-hallucination",
    "drift",
    "no-baseline",
    "error",
    "incomparable",
    "repeats",
)

# compare reads ./ragguard.yml for its gate; a removed question that passed then warns.
COMPARE_WARN = """\
suite: orders-api
testset: testset.yaml
system:
  recorded: run.jsonl
gate:
  on_removed: warn
"""


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from tests.compare_cases import GOLDEN_CASES
    from tests.metrics import test_generation_cli as generation
    from tests.test_cli_score_repeats import TESTSET, run_file
    from tests.test_shards import write_suite

    from ragguard.results.io import write_results

    if INPUTS.exists():
        shutil.rmtree(INPUTS)
    for name in COMPARE_CASES:
        folder = INPUTS / "compare" / name
        folder.mkdir(parents=True)
        baseline, head, _rules = GOLDEN_CASES[name]()
        if baseline is not None:
            write_results(baseline, folder / "baseline.json")
        write_results(head, folder / "head.json")

    sharded = INPUTS / "sharded"
    sharded.mkdir()
    write_suite(sharded)
    (INPUTS / "compare-warn.yml").write_text(COMPARE_WARN)

    repeats = INPUTS / "score-repeats"
    repeats.mkdir()
    (repeats / "testset.jsonl").write_text(TESTSET)
    run_file(repeats, "a.jsonl", {"q0": True, "q1": False, "q2": True})
    run_file(repeats, "b.jsonl", {"q0": True, "q1": True, "q2": False})
    run_file(repeats, "c.jsonl", {"q0": True, "q1": False, "q2": True}, skip="q2")

    folder = INPUTS / "generation"
    folder.mkdir()

    def write(name: str, content: str) -> Path:
        path = folder / name
        path.write_text(content, encoding="utf-8")
        return path

    write("testset.yaml", generation.SEED_TESTSET)
    generation.id_only_run(write)
    generation.corpus(write)

    demo = ROOT / "src" / "ragguard" / "demo"
    shutil.copytree(demo / "seed", INPUTS / "seed")
    four = (demo / "seed" / "four-questions.run.jsonl").read_text().splitlines()
    (INPUTS / "four-questions-partial.run.jsonl").write_text("\n".join(four[:3]) + "\n")
    shutil.copytree(demo / "orders_api" / "docs", INPUTS / "orders-api-docs")
    print(f"wrote {INPUTS}")


if __name__ == "__main__":
    main()
