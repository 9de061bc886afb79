"""One pull request evaluation by `ragguard ci` against the fake GitHub: requests and time.

A 200-question recorded run (python-free, so the figure is ragguard's own cost), a saved
baseline on the data branch, an open pull request with ``--comments`` earlier comments by
other people. `ragguard ci`'s pipeline (`run_ci`) runs with PyGithub's production pacing
(writes spaced by 1 s, requests by 0.25 s, as GitHub asks of integrations) unless
``--no-pacing``. Printed: the GitHub API requests one evaluation made (target: at most 10 on
a PR with under 100 comments, 9 when the gate passes: docs/action.md, "Requests per event") and the seconds from start to the final status (target: under
5 s), for a first run with a regression (creates the comment) and a second run without it
(edits the comment).

    python benchmarks/ci_pull_request.py
    python benchmarks/ci_pull_request.py --questions 1000 --comments 250
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "github"))

from fake_github import BOT_LOGIN, FakeGitHub  # noqa: E402
from github_fixtures import REPOSITORY, fast_settings  # noqa: E402

from ragguard.ci.collaborators import Collaborators  # noqa: E402
from ragguard.ci.evaluate import evaluate_config  # noqa: E402
from ragguard.ci.glue import run_ci  # noqa: E402
from ragguard.ci.settings import CiSettings  # noqa: E402
from ragguard.github import GitHubClient, read_event  # noqa: E402


def write_suite(root: Path, questions: int, regress: bool) -> None:
    (root / "eval").mkdir(parents=True, exist_ok=True)
    (root / "ragguard.yml").write_text(
        "suite: bench\ntestset: eval/testset.yaml\nsystem:\n  recorded: eval/run.jsonl\n"
        "metrics: [hit_rate@3, mrr, ndcg@3, faithfulness]\n"
    )
    lines, runs = [], []
    for i in range(questions):
        lines.append(f"- id: q{i}\n  question: What does endpoint {i} return?\n  relevant: [c{i}]")
        text = f"Endpoint {i} returns the order {i} with its status and total."
        answer = (
            text
            if not (regress and i % 10 == 0)
            else f"Endpoint {i} deletes archived invoices permanently."
        )
        retrieved = [{"id": f"c{i}", "text": text}, {"id": f"c{i + 1}", "text": "Other text."}]
        runs.append(json.dumps({"id": f"q{i}", "retrieved": retrieved, "answer": answer}))
    (root / "eval" / "testset.yaml").write_text("\n".join(lines) + "\n")
    (root / "eval" / "run.jsonl").write_text("\n".join(runs) + "\n")


def settings_for(fake: FakeGitHub, root: Path, event: str, payload: dict, pacing: bool):
    github = fast_settings(fake, event_name=event, comment_author=BOT_LOGIN)
    if pacing:
        github = replace(github, seconds_between_requests=0.25, seconds_between_writes=1.0)
    return CiSettings(
        github=github,
        event=read_event(event, payload),
        config=root / "ragguard.yml",
        results_dir=root / "ragguard-results",
    )


def one_run(fake: FakeGitHub, settings: CiSettings) -> tuple[int, float, str]:
    before = len(fake.api_requests())
    collaborators = Collaborators(
        github=GitHubClient(settings.github),
        evaluate=evaluate_config,
        commit_time=lambda sha: None,
        head_commit=lambda: None,
        log=lambda line: None,
    )
    started = time.perf_counter()
    outcome = run_ci(settings, collaborators)
    elapsed = time.perf_counter() - started
    return len(fake.api_requests()) - before, elapsed, outcome.state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--comments", type=int, default=40)
    parser.add_argument("--no-pacing", action="store_true", help="PyGithub's waits set to 0")
    args = parser.parse_args()
    with FakeGitHub() as fake, tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        repo = fake.add_repo(REPOSITORY)
        write_suite(root, args.questions, regress=False)
        push = {
            "ref": "refs/heads/main",
            "after": repo.refs["heads/main"],
            "repository": {"full_name": REPOSITORY, "default_branch": "main"},
        }
        one_run(fake, settings_for(fake, root, "push", push, pacing=False))
        fake.branch_from(repo, "feature", "main")
        fake.commit(repo, "feature", {"prompt.txt": b"changed"}, "Change")
        pull = fake.add_pull(repo, "feature")
        for n in range(args.comments):
            fake.add_comment(repo, pull.number, f"review comment {n}", "octocat")
        payload = {
            "number": pull.number,
            "pull_request": {
                "number": pull.number,
                "head": {"sha": pull.head_sha, "ref": "feature", "repo": {"full_name": REPOSITORY}},
                "base": {"ref": "main", "repo": {"full_name": REPOSITORY}},
            },
            "repository": {"full_name": REPOSITORY, "default_branch": "main"},
        }
        settings = settings_for(fake, root, "pull_request", payload, pacing=not args.no_pacing)
        pacing = (
            "off" if args.no_pacing else "GitHub's (1 s between writes, 0.25 s between requests)"
        )
        print(f"{args.questions} questions, {args.comments} earlier comments, pacing {pacing}")
        runs = (
            ("first run (regression; creates the comment)", True),
            ("second run (fixed; edits it)", False),
        )
        for label, regress in runs:
            write_suite(root, args.questions, regress=regress)
            requests, seconds, state = one_run(fake, settings)
            print(
                f"{label}: {requests} API requests, {seconds:.2f} s to the final status ({state})"
            )
        fake.assert_clean()


if __name__ == "__main__":
    main()
