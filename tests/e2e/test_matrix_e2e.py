"""docs/workflows/ragguard-matrix.yml, unchanged, under act: three shard jobs, then one job
that merges their parts, compares with main's baseline, comments and sets the status.

The artifacts pass between the jobs through the upload/download-artifact stand-ins (a folder
on the host, act_harness.py). The merged results are checked against an unsharded
`ragguard run` of the same commit, question by question.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from act_harness import PROJECT_ROOT, Act, GitRepo, mirror
from fake_github import FakeGitHub, Repo

from ragguard.github import comment_marker
from ragguard.results.io import load_results
from ragguard.results.model import QuestionResult, Results
from ragguard.testset.shards import shard_of

MATRIX_WORKFLOW = PROJECT_ROOT / "docs" / "workflows" / "ragguard-matrix.yml"
EVENTS = PROJECT_ROOT / "tests" / "fixtures" / "events"
SUITE = "orders-docs"
SHARDS = 3

CONFIG = """\
suite: orders-docs
testset: eval/testset.yaml
corpus: eval/chunks.jsonl
system:
  python: app.rag:answer
metrics: [hit_rate@3, mrr, faithfulness]
"""

# id -> the one chunk that answers it; every answer repeats its chunk (faithful)
FACTS = {
    "retry-after-429": "After a 429 response, wait the seconds in the Retry-After header.",
    "authenticate": "Authenticate with an API key sent as a bearer token.",
    "page-orders": "Pass next_cursor to fetch the following page of orders.",
    "create-order": "Create an order with a POST to the orders endpoint.",
    "cancel-order": "Cancel an order with a DELETE on the order's URL.",
    "refund": "Refunds go back to the original payment method within five days.",
    "webhooks": "Webhooks are signed with an HMAC of the body in the Signature header.",
    "idempotency": "Send an Idempotency-Key header to make a POST safe to retry.",
    "errors": "Errors return a JSON body with a code and a message field.",
}
HALLUCINATION = "Retry immediately with exponential jitter up to ten times per second."

RAG_MODULE = '''\
"""A deterministic stand-in for a RAG pipeline: its chunk first, answers from answers.json."""

import json
from pathlib import Path

HERE = Path(__file__).parent
CHUNKS = [
    json.loads(line)
    for line in (HERE.parent / "eval" / "chunks.jsonl").read_text().splitlines()
]


def answer(question, id):
    answers = json.loads((HERE / "answers.json").read_text())
    others = [chunk for chunk in CHUNKS if chunk["id"] != id][:2]
    retrieved = [next(chunk for chunk in CHUNKS if chunk["id"] == id), *others]
    return {"retrieved": retrieved, "answer": answers[id]}
'''


def suite_files(answers: dict[str, str]) -> dict[str, str]:
    testset = "".join(
        f"- id: {qid}\n  question: What about {qid}?\n  relevant: [{qid}]\n" for qid in FACTS
    ).replace("relevant: [retry-after-429]", "relevant: [retry-after-429]\n  critical: true")
    chunks = "".join(json.dumps({"id": qid, "text": text}) + "\n" for qid, text in FACTS.items())
    return {
        ".github/workflows/ragguard.yml": MATRIX_WORKFLOW.read_text(encoding="utf-8"),
        "ragguard.yml": CONFIG,
        "eval/testset.yaml": testset,
        "eval/chunks.jsonl": chunks,
        "app/__init__.py": "",
        "app/rag.py": RAG_MODULE,
        "app/answers.json": json.dumps(answers, indent=1) + "\n",
        ".gitignore": "ragguard-results/\nragguard-parts/\n__pycache__/\n",
    }


SERIAL_PYTHON = """\
#!/bin/sh
exec flock {lock} {python} "$@"
"""


@pytest.fixture
def serial_job_bin(job_bin: Path, tmp_path: Path) -> Path:
    """The jobs' ``python``, one process at a time.

    act runs the matrix jobs at once, on this host, with one shared Python: the action's
    ``pip install`` in one job would replace ragguard under another job's feet (a runner
    gives each job its own machine). A lock around every ``python`` keeps them apart.
    """
    folder = tmp_path / "serial-bin"
    folder.mkdir()
    shim = folder / "python"
    shim.write_text(
        SERIAL_PYTHON.format(lock=tmp_path / "python.lock", python=job_bin / "python"),
        encoding="utf-8",
    )
    shim.chmod(0o755)
    return folder


def unsharded_run(git: GitRepo, job_bin: Path, out: Path) -> Results:
    """`ragguard run` of the checked-out commit, whole, with the jobs' Python."""
    done = subprocess.run(
        [str(job_bin / "python"), "-m", "ragguard", "run", "--out", str(out)],
        cwd=git.path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return load_results(out)


def unmeasured(question: QuestionResult) -> QuestionResult:
    """Everything but the latency, which two live runs never share."""
    return replace(question, latency_ms=None)


def pull_payload(git: GitRepo, number: int, head_sha: str) -> dict[str, Any]:
    payload = json.loads((EVENTS / "pull_request.synchronize.json").read_text(encoding="utf-8"))
    payload["number"] = number
    pull = payload["pull_request"]
    pull["number"] = number
    pull["head"].update(sha=head_sha, ref="feature")
    pull["head"]["repo"]["full_name"] = git.full_name
    pull["base"]["ref"] = "main"
    pull["base"]["repo"]["full_name"] = git.full_name
    payload["repository"].update(full_name=git.full_name, default_branch="main")
    return payload


def push_payload(git: GitRepo, sha: str) -> dict[str, Any]:
    payload = json.loads((EVENTS / "push.json").read_text(encoding="utf-8"))
    payload.update(ref="refs/heads/main", after=sha)
    payload["repository"].update(full_name=git.full_name, default_branch="main")
    return payload


@pytest.mark.e2e
def test_matrix_of_three_shards_merges_to_the_unsharded_run_and_reports_once(
    act: Act,
    git_repo: GitRepo,
    fake: FakeGitHub,
    fake_repo: Repo,
    job_bin: Path,
    serial_job_bin: Path,
    tmp_path: Path,
) -> None:
    act = replace(act, job_bin=serial_job_bin)
    workflow = str(git_repo.path / ".github" / "workflows" / "ragguard.yml")
    main_sha = git_repo.commit(suite_files(FACTS), "Add the ragguard suite")
    mirror(fake, fake_repo, git_repo, "main")
    push = act.run("push", push_payload(git_repo, main_sha), workflow)
    assert push.returncode == 0, push.output
    assert "[ragguard/pull-request]" not in push.output
    saved = fake.file_at(fake_repo, "ragguard-data", f"main/{SUITE}/{main_sha}.json")
    assert saved is not None, push.output
    assert json.loads(saved)["results"]["summary"]["faithfulness"]["value"] == 1.0

    git_repo.switch("feature", create=True)
    answers = {**FACTS, "retry-after-429": HALLUCINATION}
    head = git_repo.commit({"app/answers.json": json.dumps(answers, indent=1) + "\n"}, "Change")
    mirror(fake, fake_repo, git_repo, "main", "feature")
    number = fake.add_pull(fake_repo, "feature").number

    run = act.run("pull_request", pull_payload(git_repo, number, head), workflow)

    assert run.returncode != 0, run.output  # the regression fails the merging job
    assert "[ragguard/baseline]" not in run.output
    assert [s.state for s in fake_repo.statuses if s.sha == head] == ["pending", "failure"]
    status = fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"]
    assert "retry-after-429" in (status.description or "")
    marker = comment_marker(SUITE)
    comments = [c.body for c in fake_repo.comments.values() if c.issue_number == number]
    assert len(comments) == 1 and comments[0].startswith(marker)
    assert "unsupported: “Retry immediately with exponential jitter" in comments[0]
    for index in range(1, SHARDS + 1):
        part = load_results(act.artifacts / f"ragguard-part-{index}" / "results.json")
        assert part.shard is not None and (part.shard.index, part.shard.count) == (index, SHARDS)
        expected = {qid for qid in FACTS if shard_of(qid, SHARDS) == index}
        assert expected and {q.id for q in part.questions} == expected

    merged = load_results(act.artifacts / "ragguard-results" / "results.json")
    whole = unsharded_run(git_repo, job_bin, tmp_path / "whole.json")
    assert merged.shard is None
    assert [unmeasured(q) for q in merged.questions] == [unmeasured(q) for q in whole.questions]
    assert merged.summary == whole.summary
    assert merged.summary["faithfulness"].value < 1.0
    assert (merged.testset_fingerprint, merged.config_fingerprint) == (
        whole.testset_fingerprint,
        whole.config_fingerprint,
    )
    assert merged.git["sha"] == whole.git["sha"] == head


@pytest.mark.e2e
def test_a_failed_shard_job_ends_the_check_in_error_naming_the_missing_shard(
    act: Act, git_repo: GitRepo, fake: FakeGitHub, fake_repo: Repo, serial_job_bin: Path
) -> None:
    act = replace(act, job_bin=serial_job_bin)
    workflow = str(git_repo.path / ".github" / "workflows" / "ragguard.yml")
    git_repo.commit(suite_files(FACTS), "Add the ragguard suite")
    git_repo.switch("feature", create=True)
    head = git_repo.commit({"app/answers.json": json.dumps(FACTS) + "\n"}, "Reformat")
    mirror(fake, fake_repo, git_repo, "main", "feature")
    number = fake.add_pull(fake_repo, "feature").number
    act.artifacts.mkdir(parents=True)
    (act.artifacts / "ragguard-part-2").write_text("")  # shard 2's upload step fails on it

    run = act.run("pull_request", pull_payload(git_repo, number, head), workflow)

    assert run.returncode != 0, run.output
    assert "[ragguard/pull-request]" in run.output  # the merging job ran despite the failure
    assert [s.state for s in fake_repo.statuses if s.sha == head] == ["pending", "error"]
    status = fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"]
    assert "shard(s) 2 of 3 missing" in (status.description or "")
    assert not [c for c in fake_repo.comments.values() if c.issue_number == number]
