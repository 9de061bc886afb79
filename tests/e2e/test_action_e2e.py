"""The README's example workflow, unchanged, under act: the real action.yml and `ragguard ci`.

Each test builds a small repository with a python-adapter suite (a deterministic "RAG" in
app/rag.py whose answers live in app/answers.json), runs the workflow for one event against
the fake GitHub, and checks the fake's state afterwards: the data branch, the comment, the
commit status.
"""

from __future__ import annotations

import copy
import io
import json
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from act_harness import PROJECT_ROOT, Act, ActRun, GitRepo, mirror
from fake_github import FakeGitHub, Repo

from ragguard.github import comment_marker

EXAMPLE_WORKFLOW = PROJECT_ROOT / "docs" / "workflows" / "ragguard.yml"
EVENTS = PROJECT_ROOT / "tests" / "fixtures" / "events"
SUITE = "orders-docs"

CONFIG = """\
suite: orders-docs
testset: eval/testset.yaml
corpus: eval/chunks.jsonl
system:
  python: app.rag:answer
  concurrency: 2
metrics: [hit_rate@3, mrr, faithfulness]
"""

TESTSET = """\
- id: retry-after-429
  question: How should a client retry after a 429 response?
  relevant: [rate-limits]
  critical: true
- id: authenticate
  question: How do I authenticate requests?
  relevant: [auth]
- id: page-orders
  question: How do I page through the list of orders?
  relevant: [pagination]
"""

CHUNKS = [
    {
        "id": "rate-limits",
        "text": "Clients may send 100 requests per minute. After a 429 response, wait the "
        "number of seconds given in the Retry-After header, then retry the request.",
    },
    {
        "id": "auth",
        "text": "Authenticate every request with an API key sent in the Authorization header "
        "as a bearer token.",
    },
    {
        "id": "pagination",
        "text": "List endpoints return 50 orders per page. Pass the cursor from the "
        "next_cursor field to fetch the following page.",
    },
]

RETRIEVAL = {
    "retry-after-429": ["rate-limits", "auth"],
    "authenticate": ["auth", "rate-limits"],
    "page-orders": ["pagination", "auth"],
}

GOOD_ANSWERS = {
    "retry-after-429": "Wait the number of seconds given in the Retry-After header, then "
    "retry the request.",
    "authenticate": "Send an API key in the Authorization header as a bearer token.",
    "page-orders": "Pass the cursor from the next_cursor field to fetch the following page.",
}

HALLUCINATION = "Retry immediately with exponential jitter up to ten times per second."

RAG_MODULE = '''\
"""A deterministic stand-in for a RAG pipeline: fixed retrieval, answers from answers.json."""

import json
from pathlib import Path

HERE = Path(__file__).parent
RETRIEVAL = json.loads((HERE / "retrieval.json").read_text())
CHUNKS = {
    row["id"]: row["text"]
    for row in map(json.loads, (HERE.parent / "eval" / "chunks.jsonl").read_text().splitlines())
}


def answer(question, id):
    answers = json.loads((HERE / "answers.json").read_text())
    retrieved = [{"id": cid, "text": CHUNKS[cid]} for cid in RETRIEVAL[id]]
    return {"retrieved": retrieved, "answer": answers[id]}
'''


def suite_files(answers: dict[str, str]) -> dict[str, str]:
    return {
        ".github/workflows/ragguard.yml": EXAMPLE_WORKFLOW.read_text(encoding="utf-8"),
        "ragguard.yml": CONFIG,
        "eval/testset.yaml": TESTSET,
        "eval/chunks.jsonl": "".join(json.dumps(c) + "\n" for c in CHUNKS),
        "app/__init__.py": "",
        "app/rag.py": RAG_MODULE,
        "app/retrieval.json": json.dumps(RETRIEVAL, indent=1) + "\n",
        "app/answers.json": json.dumps(answers, indent=1) + "\n",
        ".gitignore": "ragguard-results/\n__pycache__/\n",
    }


def workflow_path(git: GitRepo) -> str:
    return str(git.path / ".github" / "workflows" / "ragguard.yml")


def push_payload(git: GitRepo, sha: str) -> dict[str, Any]:
    payload = json.loads((EVENTS / "push.json").read_text(encoding="utf-8"))
    payload["ref"] = "refs/heads/main"
    payload["after"] = sha
    payload["repository"]["full_name"] = git.full_name
    payload["repository"]["default_branch"] = "main"
    return payload


def pull_payload(git: GitRepo, number: int, head_sha: str, head_ref: str) -> dict[str, Any]:
    payload = json.loads((EVENTS / "pull_request.synchronize.json").read_text(encoding="utf-8"))
    payload = copy.deepcopy(payload)
    payload["number"] = number
    pull = payload["pull_request"]
    pull["number"] = number
    pull["head"]["sha"] = head_sha
    pull["head"]["ref"] = head_ref
    pull["head"]["repo"]["full_name"] = git.full_name
    pull["base"]["ref"] = "main"
    pull["base"]["repo"]["full_name"] = git.full_name
    payload["repository"]["full_name"] = git.full_name
    payload["repository"]["default_branch"] = "main"
    return payload


def run_push(act: Act, git: GitRepo, fake: FakeGitHub, repo: Repo) -> tuple[str, ActRun]:
    git.switch("main")
    sha = git.head()
    mirror(fake, repo, git, "main")
    return sha, act.run("push", push_payload(git, sha), workflow_path(git))


def open_pull(
    act: Act, git: GitRepo, fake: FakeGitHub, repo: Repo, answers: dict[str, str]
) -> tuple[int, str]:
    """A feature branch off main with ``answers``, mirrored to the fake as an open PR."""
    git.switch("feature", create=True)
    head = git.commit({"app/answers.json": json.dumps(answers, indent=1) + "\n"}, "Change")
    mirror(fake, repo, git, "main", "feature")
    return fake.add_pull(repo, "feature").number, head


def run_pull(act: Act, git: GitRepo, number: int, head: str) -> ActRun:
    return act.run("pull_request", pull_payload(git, number, head, "feature"), workflow_path(git))


def our_comments(repo: Repo, number: int) -> list[str]:
    marker = comment_marker(SUITE)
    return [c.body for c in repo.comments.values() if c.issue_number == number and marker in c.body]


@pytest.fixture
def main_with_baseline(act: Act, git_repo: GitRepo, fake: FakeGitHub, fake_repo: Repo) -> str:
    """main with the suite, pushed: the workflow saved its baseline."""
    git_repo.commit(suite_files(GOOD_ANSWERS), "Add the ragguard suite")
    sha, run = run_push(act, git_repo, fake, fake_repo)
    assert run.returncode == 0, run.output
    assert "[ragguard/pull-request]" not in run.output  # only the baseline job runs on push
    return sha


@pytest.mark.e2e
def test_push_to_main_saves_the_baseline_on_the_data_branch(
    main_with_baseline: str, fake: FakeGitHub, fake_repo: Repo
) -> None:
    sha = main_with_baseline
    snapshot = fake.file_at(fake_repo, "ragguard-data", f"main/{SUITE}/{sha}.json")
    assert snapshot is not None
    document = json.loads(snapshot)
    assert document["commit"] == sha
    assert document["results"]["suite"] == SUITE
    assert document["results"]["summary"]["faithfulness"]["value"] == 1.0
    history = fake.file_at(fake_repo, "ragguard-data", f"main/{SUITE}.history.jsonl")
    assert history is not None and json.loads(history.splitlines()[-1])["commit"] == sha
    statuses = fake.latest_statuses(fake_repo, sha)
    assert statuses[f"ragguard/{SUITE}"].state == "success"


@pytest.mark.e2e
def test_unchanged_pull_request_gets_one_comment_and_success(
    act: Act, main_with_baseline: str, git_repo: GitRepo, fake: FakeGitHub, fake_repo: Repo
) -> None:
    answers = {**GOOD_ANSWERS}
    answers["page-orders"] = answers["page-orders"] + " "  # a change that changes nothing
    number, head = open_pull(act, git_repo, fake, fake_repo, answers)

    run = run_pull(act, git_repo, number, head)

    assert run.returncode == 0, run.output
    assert "[ragguard/baseline" not in run.output  # a pull request never saves a baseline
    comments = our_comments(fake_repo, number)
    assert len(comments) == 1
    assert "ragguard · orders\\-docs: **pass**" in comments[0]
    status = fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"]
    assert status.state == "success"
    assert [s.state for s in fake_repo.statuses if s.sha == head] == ["pending", "success"]


@pytest.mark.e2e
def test_regression_fails_the_job_and_names_the_hallucination_then_updates_the_comment(
    act: Act, main_with_baseline: str, git_repo: GitRepo, fake: FakeGitHub, fake_repo: Repo
) -> None:
    answers = {**GOOD_ANSWERS, "retry-after-429": HALLUCINATION}
    number, head = open_pull(act, git_repo, fake, fake_repo, answers)

    first = run_pull(act, git_repo, number, head)

    assert first.returncode != 0, first.output
    assert "Job failed" in first.output
    status = fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"]
    assert status.state == "failure"
    assert "retry-after-429" in (status.description or "")
    [comment] = our_comments(fake_repo, number)
    assert "- **retry\\-after\\-429** _(critical)_" in comment  # newly failing, escaped
    assert "unsupported: “Retry immediately with exponential jitter" in comment
    first_ids = [c.id for c in fake_repo.comments.values() if c.issue_number == number]

    fixed = git_repo.commit({"app/answers.json": json.dumps(GOOD_ANSWERS, indent=1) + "\n"})
    mirror(fake, fake_repo, git_repo, "main", "feature")
    fake_repo.pulls[number].head_sha = fixed
    second = run_pull(act, git_repo, number, fixed)

    assert second.returncode == 0, second.output
    assert [c.id for c in fake_repo.comments.values() if c.issue_number == number] == first_ids
    [updated] = our_comments(fake_repo, number)
    assert "jitter" not in updated
    assert fake.latest_statuses(fake_repo, fixed)[f"ragguard/{SUITE}"].state == "success"


def dispatch_payload(git: GitRepo, pr: str) -> dict[str, Any]:
    payload = json.loads((EVENTS / "workflow_dispatch.json").read_text(encoding="utf-8"))
    payload["inputs"] = {"pr": pr}
    payload["ref"] = "refs/heads/main"
    payload["repository"]["full_name"] = git.full_name
    payload["repository"]["default_branch"] = "main"
    return payload


@pytest.mark.e2e
def test_workflow_dispatch_with_pr_re_evaluates_the_pull_request_head(
    act: Act, main_with_baseline: str, git_repo: GitRepo, fake: FakeGitHub, fake_repo: Repo
) -> None:
    answers = {**GOOD_ANSWERS, "retry-after-429": HALLUCINATION}
    number, head = open_pull(act, git_repo, fake, fake_repo, answers)
    assert run_pull(act, git_repo, number, head).returncode != 0
    # A fix is pushed to the PR; its run was lost, so a maintainer dispatches a re-evaluation.
    fixed = git_repo.commit({"app/answers.json": json.dumps(GOOD_ANSWERS, indent=1) + "\n"})
    mirror(fake, fake_repo, git_repo, "main", "feature")
    fake_repo.pulls[number].head_sha = fixed

    run = act.run(
        "workflow_dispatch", dispatch_payload(git_repo, str(number)), workflow_path(git_repo)
    )

    assert run.returncode == 0, run.output
    assert "[ragguard/baseline" not in run.output  # only the pull-request job ran
    assert fake.latest_statuses(fake_repo, fixed)[f"ragguard/{SUITE}"].state == "success"
    assert fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"].state == "failure"
    [comment] = our_comments(fake_repo, number)
    assert "jitter" not in comment
    assert fake.file_at(fake_repo, "ragguard-data", f"main/{SUITE}/{fixed}.json") is None


def comment_payload(git: GitRepo, number: int, login: str, body: str, when: str) -> dict[str, Any]:
    payload = json.loads((EVENTS / "issue_comment.created.json").read_text(encoding="utf-8"))
    payload["issue"]["number"] = number
    payload["issue"]["pull_request"] = {"url": f"https://api.github.com/pulls/{number}"}
    payload["comment"].update(body=body, created_at=when)
    payload["comment"]["user"]["login"] = login
    payload["repository"]["full_name"] = git.full_name
    payload["repository"]["default_branch"] = "main"
    return payload


@pytest.mark.e2e
def test_a_maintainers_accept_comment_runs_only_the_accept_job_and_turns_the_status_green(
    act: Act, main_with_baseline: str, git_repo: GitRepo, fake: FakeGitHub, fake_repo: Repo
) -> None:
    answers = {**GOOD_ANSWERS, "retry-after-429": HALLUCINATION}
    number, head = open_pull(act, git_repo, fake, fake_repo, answers)
    assert run_pull(act, git_repo, number, head).returncode != 0
    fake_repo.roles["maintainer"] = "admin"
    when = fake.tick().isoformat().replace("+00:00", "Z")
    git_repo.switch("main")  # issue_comment runs the default branch's workflow and code
    payload = comment_payload(git_repo, number, "maintainer", "/ragguard accept known", when)

    run = act.run("issue_comment", payload, workflow_path(git_repo))

    assert run.returncode == 0, run.output
    assert "[ragguard/accept " in run.output
    assert "[ragguard/baseline" not in run.output and "[ragguard/pull-request]" not in run.output
    status = fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"]
    assert (status.state, status.description) == ("success", "accepted by @maintainer: known")
    [comment] = our_comments(fake_repo, number)
    assert "**Accepted by @maintainer** for commit" in comment


PUBLISH_WORKFLOW = PROJECT_ROOT / "docs" / "workflows" / "ragguard-publish.yml"
FORK_TOKEN = "ghs_forkReadOnlyToken"


def zip_folder(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.iterdir()):
            archive.write(path, path.name)
    return buffer.getvalue()


@pytest.mark.e2e
def test_fork_pull_request_leaves_an_artifact_that_the_publish_workflow_posts(
    act: Act, main_with_baseline: str, git_repo: GitRepo, fake: FakeGitHub, fake_repo: Repo
) -> None:
    git_repo.commit({".github/workflows/ragguard-publish.yml": PUBLISH_WORKFLOW.read_text()})
    git_repo.switch("feature", create=True)
    answers = {**GOOD_ANSWERS, "retry-after-429": HALLUCINATION}
    head = git_repo.commit({"app/answers.json": json.dumps(answers, indent=1) + "\n"}, "Fork")
    mirror(fake, fake_repo, git_repo, "main", "feature")
    fork = "someone/octo-repo"
    number = fake.add_pull(fake_repo, "feature", head_repo=fork).number
    fake.add_token(FORK_TOKEN, "github-actions[bot]", read_only=True)
    payload = pull_payload(git_repo, number, head, "feature")
    payload["pull_request"]["head"]["repo"]["full_name"] = fork
    payload["pull_request"]["head"]["repo"]["fork"] = True

    fork_run = replace(act, token=FORK_TOKEN).run("pull_request", payload, workflow_path(git_repo))

    assert fork_run.returncode != 0, fork_run.output  # the regression still fails the job
    assert "read-only" in fork_run.output
    assert not [c for c in fake_repo.comments.values() if c.issue_number == number]
    uploaded = act.artifacts / f"ragguard-publish-{SUITE}"
    assert (uploaded / "publish.json").exists(), fork_run.output

    run = fake.add_run(
        fake_repo,
        head_branch="feature",
        head_sha=head,
        event="pull_request",
        conclusion="failure",
        head_repo=fork,
    )
    fake.add_artifact(fake_repo, run, uploaded.name, zip_folder(uploaded))
    event = json.loads((EVENTS / "workflow_run.completed.json").read_text(encoding="utf-8"))
    event["workflow_run"].update(id=run.id, head_sha=head, event="pull_request")
    event["workflow_run"].update(head_branch="feature")
    event["workflow_run"]["head_repository"]["full_name"] = fork
    event["repository"]["full_name"] = git_repo.full_name
    git_repo.switch("main")

    publish = act.run(
        "workflow_run", event, str(git_repo.path / ".github/workflows/ragguard-publish.yml")
    )

    assert publish.returncode == 0, publish.output
    assert fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"].state == "failure"
    [comment] = our_comments(fake_repo, number)
    assert "jitter" in comment


QUEUE_BRANCH = "gh-readonly-queue/main/pr-7-929f8209d40f77f4abc622a499c93a83babdbe64"


def merge_group_payload(git: GitRepo, head: str, base: str) -> dict[str, Any]:
    payload = json.loads((EVENTS / "merge_group.checks_requested.json").read_text("utf-8"))
    payload["merge_group"].update(
        head_sha=head, base_sha=base, head_ref=f"refs/heads/{QUEUE_BRANCH}"
    )
    payload["repository"]["full_name"] = git.full_name
    payload["repository"]["default_branch"] = "main"
    return payload


@pytest.mark.e2e
def test_merge_group_sets_the_status_on_the_queued_head_without_a_comment(
    act: Act, main_with_baseline: str, git_repo: GitRepo, fake: FakeGitHub, fake_repo: Repo
) -> None:
    base = main_with_baseline
    git_repo.switch(QUEUE_BRANCH, create=True)
    answers = {**GOOD_ANSWERS, "retry-after-429": HALLUCINATION}
    head = git_repo.commit({"app/answers.json": json.dumps(answers, indent=1) + "\n"}, "Queue")
    mirror(fake, fake_repo, git_repo, "main", QUEUE_BRANCH)

    run = act.run("merge_group", merge_group_payload(git_repo, head, base), workflow_path(git_repo))

    assert run.returncode != 0, run.output  # the queue must not merge a regression
    assert "[ragguard/baseline" not in run.output  # the pull-request job ran, not the baseline
    statuses = [(s.context, s.state) for s in fake_repo.statuses if s.sha == head]
    assert statuses == [(f"ragguard/{SUITE}", "pending"), (f"ragguard/{SUITE}", "failure")]
    assert not fake_repo.comments
    assert fake.file_at(fake_repo, "ragguard-data", f"main/{SUITE}/{head}.json") is None
    fake.assert_clean()
