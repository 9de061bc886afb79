"""What ``ragguard init`` writes: a working example suite, the GitHub workflows, .gitignore.

The example (ragguard.yml, a three-question test set, a tiny system it runs) works as
written, so the first ``ragguard run`` in an empty folder scores something; the comments say
what to replace. The workflows are the files the README shows and the act end-to-end tests
run unchanged (``docs/workflows/`` in the source tree, shipped in the wheel as
``ragguard/workflows``). Nothing existing is overwritten without ``--force``, and every target
is checked before anything is written, so a refusal leaves no half-done set.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragguard.config.load import DEFAULT_CONFIG_NAME
from ragguard.core.errors import InputError
from ragguard.core.files import write_all, write_report
from ragguard.core.resources import workflows_dir

WORKFLOW_FILES = ("ragguard.yml", "ragguard-publish.yml")
# The sharded variant replaces ragguard.yml (same name): both would report ragguard/<suite>.
MATRIX_WORKFLOW = "ragguard-matrix.yml"
DOCS_URL = "https://github.com/ragguard/ragguard/blob/v1/docs"
EXAMPLE_SUITE = "my-rag"
TESTSET_PATH = "eval/testset.yaml"
SYSTEM_PATH = "eval/example_system.py"
# What ragguard writes that is not meant to be committed: `ragguard run`'s results, run
# records and log (results.json, results.run.jsonl, results.log by default), the action's
# results folder, the judge's reply cache, the demo's folder.
GITIGNORE_LINES = (
    "# ragguard: results and caches (ragguard init)",
    "results.json",
    "*.run.jsonl",
    "results.log",
    "ragguard-results/",
    ".ragguard/",
    "ragguard-demo/",
)

STARTER_CONFIG = f"""\
# ragguard.yml: how ragguard runs and scores your RAG system. Paths are relative to this file.
# Every key: {DOCS_URL}/config.md   Ways to run your system: {DOCS_URL}/adapters.md

suite: {EXAMPLE_SUITE}                      # a name for this suite (letters, digits, . _ -)
testset: {TESTSET_PATH}         # labelled questions: .yaml, .jsonl or .csv
# corpus: eval/chunks.jsonl        # optional chunk text {{"id": ..., "text": ...}} for id-only runs

system:
  # Exactly one of python / command / http / recorded. The example below runs as written;
  # replace it with your own system (its chunk ids must match the test set's labels).
  python: eval.example_system:answer   # package.module:function, imported from this folder
  # command: python rag.py --batch # questions as JSONL on stdin, run JSONL on stdout
  # command: [python, rag.py, --question, "{{question}}"]   # or one process per question
  # http: http://127.0.0.1:8000/ask
  # method: POST
  # headers: {{Authorization: "Bearer ${{RAG_API_TOKEN}}"}}   # secrets from the environment
  # body: {{query: "{{question}}", top_k: 5}}
  # response: {{retrieved: /contexts, id: doc_id, text: content, answer: /answer}}
  # recorded: eval/run.jsonl       # a run made elsewhere
  concurrency: 4                   # questions in flight at once
  timeout: 30s                     # per question (500ms, 30s, 2m)
  retries: 2                       # on connection errors, 429 and 5xx, with backoff
  max_error_rate: 0.05             # more failed questions than this: the run's verdict is error
  # repeat: 3                     # ask every question 3 times (a noisy system): 3x the calls

metrics:
  # Retrieval: needs the retrieved chunk ids and the test set's `relevant` labels.
  - hit_rate@1
  - hit_rate@3
  - recall@5
  - mrr
  - ndcg@3
  # Generation: needs the answer and the retrieved chunks' text; offline by default, or an
  # LLM judge ({DOCS_URL}/generation.md). Delete these lines for a retrieval-only system.
  - faithfulness                   # share of the answer's claims supported by the chunks
  - answer_relevance               # does the answer address the question
  - answer_f1                      # token F1 against the test set's reference_answer
# Abstention: a question the test set marks `answerable: false` (the docs cannot answer it)
# must be declined ("I don't know"); an answer to it fails the question, with that reason.
# On by default whenever the test set has such questions and the system answers; `auto: false`
# scores it only when `abstention` is listed above ({DOCS_URL}/generation.md).
abstention: {{method: lexical, auto: true}}
# faithfulness: judge              # an LLM judge instead of the offline check:
# judge: {{base_url: "https://api.openai.com/v1", model: gpt-4o-mini, api_key_env: OPENAI_API_KEY}}

# gate:                            # when a pull request fails ({DOCS_URL}/compare.md)
#   max_drop: 0.05                 # tolerated drop of a metric (it must also be significant)
#   metrics: {{faithfulness: {{min: 0.9}}}}
#   # lower is better: budgets on latency (seconds) and, when the system reports `usage`,
#   # tokens and cost per answer
#   # metrics: {{latency_p95: {{max: 2.5s, max_increase: 20%}}, cost: {{max_increase: 10%}}}}
# baseline: {{rerun: true}}          # no stored baseline yet: evaluate the merge base instead
# comment: {{mode: new-on-worse}}    # a new comment (notifies) when the status turns red
"""

EXAMPLE_TESTSET = """\
# Three labelled questions for the example system (eval/example_system.py). Replace them
# with your own: `relevant` names the chunk ids that answer the question (2 = answers it,
# 1 = helps); `reference_answer` is optional (answer_f1). Format: DOCS/formats.md
- id: refund-time
  question: How long does a refund take?
  relevant: {refunds: 2}
  reference_answer: Refunds reach the original payment method within 5 business days.
  tags: [billing]
- id: express-shipping
  question: When does express shipping arrive?
  relevant: {shipping: 2}
  reference_answer: Express shipping arrives the next business day.
  tags: [shipping]
- id: return-window
  question: How many days do I have to return an item?
  relevant: {returns: 2, refunds: 1}
  reference_answer: Unused items can be returned within 30 days of delivery.
  tags: [billing]
  critical: true                   # a critical question that newly fails blocks on its own
""".replace("DOCS", DOCS_URL)

EXAMPLE_SYSTEM = '''\
"""An example system for ragguard: a keyword retriever over three chunks that answers with
the best chunk. Replace it with a function that calls your own RAG pipeline and returns the
same shape (DOCS/adapters.md)."""

import re

CHUNKS = {
    "refunds": "Refunds reach the original payment method within 5 business days.",
    "shipping": "Orders ship within 2 days. Express shipping arrives the next business day.",
    "returns": "Unused items can be returned within 30 days of delivery.",
}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def answer(question: str) -> dict:
    """The retrieved chunks in rank order (ids and text) and the answer."""
    asked = _words(question)
    ranked = sorted(CHUNKS, key=lambda chunk: (-len(asked & _words(CHUNKS[chunk])), chunk))
    return {
        "retrieved": [{"id": chunk, "text": CHUNKS[chunk]} for chunk in ranked],
        "answer": CHUNKS[ranked[0]],
    }
'''.replace("DOCS", DOCS_URL)


@dataclass(frozen=True)
class Written:
    """What init wrote, and the .gitignore lines it added."""

    paths: tuple[Path, ...]
    gitignore: Path | None


def write_starter_suite(
    config_path: str | Path,
    *,
    workflows_dir: str | Path | None = ".github/workflows",
    matrix: bool = False,
    force: bool = False,
) -> Written:
    """Write ragguard.yml, the example test set and system beside it, the workflows (unless
    ``workflows_dir`` is None), and add ragguard's outputs to the .gitignore beside it."""
    config_path = Path(config_path)
    root = config_path.parent
    files: dict[Path, str] = {config_path: STARTER_CONFIG}
    for relative, text in ((TESTSET_PATH, EXAMPLE_TESTSET), (SYSTEM_PATH, EXAMPLE_SYSTEM)):
        files[root / relative] = text
    if workflows_dir is not None:
        files.update(_workflow_files(Path(workflows_dir), matrix))
    if not force:
        for path in files:
            if path.exists():
                raise InputError(path, "already exists; pass --force to overwrite it")
    write_all(list(files.items()))  # all or none, folders made as needed
    return Written(tuple(files), add_gitignore_lines(root / ".gitignore"))


def write_workflows(
    target_dir: str | Path, *, force: bool = False, matrix: bool = False
) -> list[Path]:
    """Copy the example workflows into ``target_dir``; refuse to overwrite unless ``force``.

    With ``matrix``, ragguard.yml is the job-matrix workflow (shards, then one merging job).
    """
    files = _workflow_files(Path(target_dir), matrix)
    if not force:
        for target in files:
            if target.exists():
                raise InputError(target, "already exists; pass --force to overwrite it")
    write_all(list(files.items()))  # all or none, folders made as needed
    return list(files)


def _workflow_files(target_dir: Path, matrix: bool) -> dict[Path, str]:
    sources = {name: name for name in WORKFLOW_FILES}
    if matrix:
        sources["ragguard.yml"] = MATRIX_WORKFLOW
    return {
        target_dir / name: (workflows_dir() / sources[name]).read_text(encoding="utf-8")
        for name in WORKFLOW_FILES
    }


def add_gitignore_lines(path: Path) -> Path | None:
    """Append the ignore lines that are missing; None when all were there already."""
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    present = {line.strip() for line in existing.splitlines()}
    missing = [line for line in GITIGNORE_LINES[1:] if line not in present]
    if not missing:
        return None
    prefix = "" if not existing or existing.endswith("\n") else "\n"
    block = "\n".join([GITIGNORE_LINES[0], *missing]) + "\n"
    write_report(path, existing + prefix + ("\n" if existing else "") + block)
    return path


def next_steps(suite: str, config_path: Path, workflows: bool) -> list[str]:
    """What init prints after the files: the first run, and what to protect on GitHub."""
    config = "" if config_path == Path(DEFAULT_CONFIG_NAME) else f" -c {config_path}"
    steps = [
        f"next: `ragguard run{config}` scores the example; then point `system:` in "
        f"{config_path} at your system and `testset:` at your questions",
        f"docs: {DOCS_URL}/config.md (every key), {DOCS_URL}/adapters.md (your system)",
    ]
    if workflows:
        from ragguard.github.statuses import status_context  # loads PyGithub: only here

        steps.append(
            f"on GitHub: commit these files; protect main with the required status check "
            f"{status_context(suite)} ({DOCS_URL}/action.md)"
        )
    return steps
