"""The `ragguard ci` pipeline against the fake GitHub, through PyGithub over real HTTP.

The suite is a recorded run (eval/run.jsonl) scored by the real runner; the pull request's
"change" is a different run file. GitHub state is read back from the fake.
"""

from __future__ import annotations

import io
import json
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from act_harness import GitRepo, mirror
from ci_fixtures import REPOSITORY
from fake_github import BOT_LOGIN, FakeGitHub, Repo
from github_fixtures import fast_settings

from ragguard.ci.collaborators import Collaborators
from ragguard.ci.evaluate import evaluate_config
from ragguard.ci.glue import run_ci
from ragguard.ci.outputs import parse_output_file
from ragguard.ci.publish import publish_artifact_name
from ragguard.ci.rerun import rerun_in_worktree
from ragguard.ci.settings import CiSettings
from ragguard.config.load import load_config
from ragguard.config.model import Config
from ragguard.core.errors import InputError
from ragguard.github import GitHubClient, GitHubError, comment_marker, read_event
from ragguard.github.comments import Outcome, outcome_of
from ragguard.results.model import Results

SUITE = "orders"
CONFIG = f"""\
suite: {SUITE}
testset: eval/testset.yaml
system:
  recorded: eval/run.jsonl
metrics: [hit_rate@3, mrr, faithfulness]
"""
TESTSET = """\
- id: retry-429
  question: How should a client retry after a 429 response?
  relevant: [rate-limits]
  critical: true
- id: auth
  question: How do I authenticate?
  relevant: [auth]
"""
RATE = "After a 429 response, wait the seconds in the Retry-After header, then retry."
AUTH = "Send the API key in the Authorization header as a bearer token."
HALLUCINATED = "Retry immediately with exponential jitter ten times per second."


def run_line(qid: str, chunk: str, text: str, answer: str) -> str:
    retrieved = [{"id": chunk, "text": text}]
    return json.dumps({"id": qid, "retrieved": retrieved, "answer": answer}) + "\n"


GOOD_RUN = run_line("retry-429", "rate-limits", RATE, RATE) + run_line("auth", "auth", AUTH, AUTH)
BAD_RUN = run_line("retry-429", "rate-limits", RATE, HALLUCINATED) + run_line(
    "auth", "auth", AUTH, AUTH
)


def settings_for(
    fake: FakeGitHub, suite: Path, event: str, payload: dict, **kw: object
) -> CiSettings:
    github = fast_settings(fake, event_name=event, comment_author=BOT_LOGIN)
    return CiSettings(
        github=github,
        event=read_event(event, payload),
        config=suite / "ragguard.yml",
        results_dir=suite / "ragguard-results",
        output_file=suite / "github-output",
        summary_file=suite / "step-summary.md",
        **kw,  # type: ignore[arg-type]
    )


def collaborators(settings: CiSettings, lines: list[str], **kw: object) -> Collaborators:
    return Collaborators(
        github=GitHubClient(settings.github),
        evaluate=kw.pop("evaluate", evaluate_config),  # type: ignore[arg-type]
        commit_time=lambda sha: "2026-01-05T12:00:00Z",
        head_commit=kw.pop("head_commit", lambda: None),  # type: ignore[arg-type]
        rerun=lambda *args: None,
        log=lines.append,
    )


def push_event(repo: Repo) -> dict:
    sha = repo.refs["heads/main"]
    return {
        "ref": "refs/heads/main",
        "after": sha,
        "repository": {"full_name": REPOSITORY, "default_branch": "main"},
    }


def pull_event(repo: Repo, number: int) -> dict:
    pull = repo.pulls[number]
    return {
        "number": number,
        "pull_request": {
            "number": number,
            "head": {"sha": pull.head_sha, "ref": pull.head_ref, "repo": {"full_name": REPOSITORY}},
            "base": {"ref": "main", "repo": {"full_name": REPOSITORY}},
        },
        "repository": {"full_name": REPOSITORY, "default_branch": "main"},
    }


def save_main_baseline(fake: FakeGitHub, repo: Repo, suite: Path) -> None:
    settings = settings_for(fake, suite, "push", push_event(repo))
    outcome = run_ci(settings, collaborators(settings, []))
    assert (outcome.comparison.verdict, outcome.exit_code) == ("pass", 0)


def open_pull(fake: FakeGitHub, repo: Repo) -> int:
    fake.branch_from(repo, "feature", "main")
    fake.commit(repo, "feature", {"prompt.txt": b"be creative"}, "Change the prompt")
    return fake.add_pull(repo, "feature").number


def test_push_saves_the_baseline_and_sets_a_status_on_the_commit(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    sha = fake_repo.refs["heads/main"]
    saved = json.loads(fake.file_at(fake_repo, "ragguard-data", f"main/{SUITE}.json") or b"{}")
    assert saved["commit"] == sha
    assert saved["committed_at"] == "2026-01-05T12:00:00Z"
    assert saved["results"]["git"]["sha"] == sha
    assert fake.latest_statuses(fake_repo, sha)[f"ragguard/{SUITE}"].state == "success"


def test_regressed_pull_request_fails_with_the_hallucination_in_the_comment(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    lines: list[str] = []
    before = len(fake.api_requests())

    outcome = run_ci(settings, collaborators(settings, lines))

    assert (outcome.comparison.verdict, outcome.state, outcome.exit_code) == ("fail", "failure", 1)
    head = fake_repo.pulls[number].head_sha
    assert [s.state for s in fake_repo.statuses if s.sha == head] == ["pending", "failure"]
    status = fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"]
    assert status.description == "fail: retry-429 critical question newly fails"
    assert status.target_url == settings.github.run_url
    [comment] = [c for c in fake_repo.comments.values() if c.issue_number == number]
    assert comment.body.startswith(comment_marker(SUITE))
    assert "- **retry\\-429** _(critical)_" in comment.body
    assert "unsupported: “Retry immediately with exponential jitter" in comment.body
    assert comment.body.splitlines()[1] == "<!-- ragguard:outcome verdict=fail state=failure -->"
    assert comment.body == (suite / "ragguard-results" / "comment.md").read_text()
    made = [f"{r.method} {r.operation.split(' ', 1)[1]}" for r in fake.api_requests()[before:]]
    # The pending status is posted in the background while the merge base is looked up:
    # under load either may reach the server first.
    assert sorted(made[:2]) == [
        "GET /repos/{owner}/{repo}/compare/{basehead}",
        "POST /repos/{owner}/{repo}/statuses/{sha}",
    ]
    assert made[2:] == [
        "GET /repos/{owner}/{repo}/contents/{path}",  # the merge base's ragguard.yml: its gate
        "GET /repos/{owner}/{repo}/contents/{path}",  # the merge base's baseline
        "GET /repos/{owner}/{repo}/commits/{ref}/statuses",  # a failure: accepted for this head?
        "POST /repos/{owner}/{repo}/statuses/{sha}",  # before the comment, which says if it failed
        "GET /repos/{owner}/{repo}/contents/{path}",  # the history, for the trend chart
        "GET /repos/{owner}/{repo}/pulls/{pull_number}",  # did the head move? (superseded.py)
        "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
        "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
    ]
    main_sha = fake_repo.refs["heads/main"]
    assert f'x-axis ["{main_sha[:7]}", "#{number}"]' in comment.body
    assert 'title "faithfulness"' in comment.body and "line [1.0000, 0.5000]" in comment.body
    outputs = parse_output_file((suite / "github-output").read_text())
    assert outputs["verdict"] == "fail"
    assert outputs["comment-url"] == outcome.comment.url if outcome.comment else False
    metrics = json.loads(outputs["metrics"])
    assert metrics["faithfulness"]["baseline"] == 1.0
    assert metrics["faithfulness"]["delta"] < 0
    assert outputs["results-path"] == str(suite / "ragguard-results" / "results.json")
    assert "Compared with the merge base's baseline" in (suite / "step-summary.md").read_text()
    assert any("baseline: the merge base's" in line for line in lines)


def test_a_first_pull_request_without_a_baseline_is_not_called_a_pass(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    number = open_pull(fake, fake_repo)
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))

    outcome = run_ci(settings, collaborators(settings, []))

    assert (outcome.comparison.verdict, outcome.state) == ("pass", "success")
    head = fake_repo.pulls[number].head_sha
    status = fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"]
    assert status.description == (
        "no baseline yet: 1 of 2 questions fail (1 critical); "
        "the comparison starts once a baseline is saved"
    )


def test_no_baseline_is_one_word_in_the_outputs_the_hidden_line_and_the_log(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    """The status says "no baseline yet"; the action output `verdict`, the comment's hidden
    outcome line and the job log said `pass` while a question failed."""
    number = open_pull(fake, fake_repo)
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    lines: list[str] = []

    run_ci(settings, collaborators(settings, lines))

    outputs = parse_output_file((suite / "github-output").read_text())
    assert outputs["verdict"] == "no-baseline"
    [comment] = [c for c in fake_repo.comments.values() if c.issue_number == number]
    assert outcome_of(comment.body) == Outcome("no-baseline", "success")
    assert any(
        line.endswith(f"{SUITE}: no-baseline; results in " + outputs["results-path"])
        for line in lines
    )
    assert any("NO-BASELINE" in line for line in lines)  # the terminal table in the job log
    assert not any(": PASS" in line for line in lines)


@pytest.mark.parametrize("where", ["config", "input"])
def test_a_configured_baseline_file_that_is_not_there_is_an_error_not_no_baseline(
    fake: FakeGitHub, fake_repo: Repo, suite: Path, where: str
) -> None:
    """It was taken as "no baseline yet" and the run was green on nothing compared."""
    number = open_pull(fake, fake_repo)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    if where == "config":
        (suite / "ragguard.yml").write_text(
            CONFIG + "baseline: {store: file, file: eval/baseline.json}\n"
        )
    else:
        settings = replace(
            settings, baseline_store="file", baseline_file=suite / "eval" / "baseline.json"
        )

    with pytest.raises(InputError, match="the baseline file does not exist") as refused:
        run_ci(settings, collaborators(settings, []))

    assert str(refused.value).startswith(f"{suite / 'eval' / 'baseline.json'}: baseline.file:")
    assert fake.api_requests() == []


def test_second_run_updates_the_same_comment(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    first = run_ci(settings, collaborators(settings, []))
    (suite / "eval" / "run.jsonl").write_text(GOOD_RUN)

    second = run_ci(settings, collaborators(settings, []))

    assert first.comment and second.comment
    assert (first.comment.action, second.comment.action) == ("created", "updated")
    assert first.comment.id == second.comment.id
    assert second.exit_code == 0
    [comment] = [c for c in fake_repo.comments.values() if c.issue_number == number]
    assert "jitter" not in comment.body


def test_dispatch_with_pr_reads_the_head_from_the_api(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    payload = {**push_event(fake_repo), "inputs": {"pr": str(number)}}
    settings = settings_for(fake, suite, "workflow_dispatch", payload, pr=number)

    outcome = run_ci(settings, collaborators(settings, []))

    head = fake_repo.pulls[number].head_sha
    assert outcome.state == "success"
    assert fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"].state == "success"
    assert fake.api_requests(pattern=rf"/pulls/{number}$")


def test_dispatch_with_the_reviewed_sha_evaluates_that_head(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    head = fake_repo.pulls[number].head_sha
    payload = {**push_event(fake_repo), "inputs": {"pr": str(number), "sha": head}}
    settings = settings_for(fake, suite, "workflow_dispatch", payload, pr=number, sha=head)
    lines: list[str] = []

    outcome = run_ci(settings, collaborators(settings, lines, head_commit=lambda: head))

    assert outcome.state == "success"
    assert fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"].state == "success"
    assert not any("without the sha input" in line for line in lines)


def test_dispatch_refuses_a_pull_request_whose_head_moved_after_review(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    """Re-evaluation runs with secrets: a push after the review is refused, not run."""
    number = open_pull(fake, fake_repo)
    reviewed = fake_repo.pulls[number].head_sha
    pull = fake_repo.pulls[number]
    pushed = fake.commit(fake_repo, pull.head_ref, {"later.txt": b"after review"}, "Later").sha
    pull.head_sha = pushed
    payload = {**push_event(fake_repo), "inputs": {"pr": str(number), "sha": reviewed}}
    settings = settings_for(fake, suite, "workflow_dispatch", payload, pr=number, sha=reviewed)

    with pytest.raises(InputError, match=f"#{number}'s head moved to {pushed[:12]}"):
        run_ci(settings, collaborators(settings, [], head_commit=lambda: reviewed))

    assert fake_repo.statuses == [] and not fake_repo.comments


def test_dispatch_without_the_reviewed_sha_says_what_it_risks(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    payload = {**push_event(fake_repo), "inputs": {"pr": str(number)}}
    settings = settings_for(fake, suite, "workflow_dispatch", payload, pr=number)
    lines: list[str] = []

    run_ci(settings, collaborators(settings, lines))

    assert any("without the sha input" in line for line in lines)


def test_a_failure_after_pending_ends_in_an_error_status(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    number = open_pull(fake, fake_repo)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))

    def broken(config: Config, git: object, out: Path) -> Results:
        raise RuntimeError("the system under test crashed")

    with pytest.raises(RuntimeError):
        run_ci(settings, collaborators(settings, [], evaluate=broken))

    head = fake_repo.pulls[number].head_sha
    assert [s.state for s in fake_repo.statuses if s.sha == head] == ["pending", "error"]
    status = fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"]
    assert status.description == "ragguard could not finish: the system under test crashed"


def test_results_are_on_disk_before_the_baseline_fetch_fails(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    number = open_pull(fake, fake_repo)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    fake.inject(r"/compare/", times=10, status=502, message="Bad Gateway")

    with pytest.raises(GitHubError):
        run_ci(settings, collaborators(settings, []))

    assert json.loads((suite / "ragguard-results" / "results.json").read_text())["suite"] == SUITE
    head = fake_repo.pulls[number].head_sha
    assert fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"].state == "error"


def test_read_only_token_writes_the_publish_payload_instead(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    fake.add_token("ghs_forkReadOnly", BOT_LOGIN, read_only=True)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    settings = replace(settings, github=replace(settings.github, token="ghs_forkReadOnly"))
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)
    lines: list[str] = []

    outcome = run_ci(settings, collaborators(settings, lines))

    assert outcome.read_only and outcome.exit_code == 1
    assert not [c for c in fake_repo.comments.values() if c.issue_number == number]
    assert [s for s in fake_repo.statuses if s.sha == fake_repo.pulls[number].head_sha] == []
    published = json.loads((suite / "ragguard-results" / "publish.json").read_text())
    assert published["state"] == "failure"
    assert published["head_sha"] == fake_repo.pulls[number].head_sha
    assert "jitter" in published["comment"]
    assert any("read-only" in line for line in lines)


def test_a_config_mistake_is_reported_before_any_request(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    (suite / "ragguard.yml").write_text(CONFIG.replace("metrics:", "metricz:"))
    number = open_pull(fake, fake_repo)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    with pytest.raises(InputError, match="metricz"):
        run_ci(settings, collaborators(settings, []))
    assert fake.api_requests() == []


def test_dispatch_refuses_a_checkout_that_is_not_the_pull_request_head(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    number = open_pull(fake, fake_repo)
    payload = {**push_event(fake_repo), "inputs": {"pr": str(number)}}
    settings = settings_for(fake, suite, "workflow_dispatch", payload, pr=number)
    main_sha = fake_repo.refs["heads/main"]

    with pytest.raises(InputError, match=f"check out refs/pull/{number}/head"):
        run_ci(settings, collaborators(settings, [], head_commit=lambda: main_sha))

    assert fake_repo.statuses == []


def zipped(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(name, data)
    return buffer.getvalue()


def fork_run_with_publish_artifact(
    fake: FakeGitHub, repo: Repo, suite: Path, run_file: str = BAD_RUN
) -> tuple[int, int, str]:
    """A fork's PR evaluated with a read-only token; its publish.json uploaded as an artifact."""
    save_main_baseline(fake, repo, suite)
    fake.branch_from(repo, "patch-1", "main")
    head = fake.commit(repo, "patch-1", {"prompt.txt": b"fork"}, "Fork change").sha
    number = fake.add_pull(repo, "patch-1", head_repo="someone/octo-repo").number
    fake.add_token("ghs_forkReadOnly", BOT_LOGIN, read_only=True)
    payload = pull_event(repo, number)
    payload["pull_request"]["head"]["repo"]["full_name"] = "someone/octo-repo"
    settings = settings_for(fake, suite, "pull_request", payload)
    settings = replace(settings, github=replace(settings.github, token="ghs_forkReadOnly"))
    (suite / "eval" / "run.jsonl").write_text(run_file)
    assert run_ci(settings, collaborators(settings, [])).read_only
    data = (suite / "ragguard-results" / "publish.json").read_bytes()
    run = fake.add_run(
        repo,
        head_branch="patch-1",
        head_sha=head,
        event="pull_request",
        conclusion="failure",
        head_repo="someone/octo-repo",
    )
    fake.add_artifact(repo, run, publish_artifact_name(SUITE), zipped("publish.json", data))
    return number, run.id, head


def workflow_run_event(fake: FakeGitHub, repo: Repo, run_id: int) -> dict:
    return fake.workflow_run_payload(repo, repo.runs[run_id])


def test_workflow_run_publishes_a_fork_pull_requests_report(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    number, run_id, head = fork_run_with_publish_artifact(fake, fake_repo, suite)
    settings = settings_for(
        fake, suite, "workflow_run", workflow_run_event(fake, fake_repo, run_id)
    )
    lines: list[str] = []

    outcome = run_ci(settings, collaborators(settings, lines))

    assert (outcome.state, outcome.exit_code) == ("failure", 0)
    status = fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"]
    assert status.state == "failure"
    [comment] = [c for c in fake_repo.comments.values() if c.issue_number == number]
    assert comment.body.startswith(comment_marker(SUITE)) and "jitter" in comment.body
    assert fake.api_requests(pattern=rf"/commits/{head}/pulls$")  # the PR came from the API
    assert parse_output_file((suite / "github-output").read_text())["published"] == "1"


def test_publish_refuses_an_artifact_about_another_commit(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    number, run_id, head = fork_run_with_publish_artifact(fake, fake_repo, suite)
    [artifact] = fake_repo.artifacts.values()
    document = json.loads(zipfile.ZipFile(io.BytesIO(artifact.zip_bytes)).read("publish.json"))
    document["head_sha"] = fake_repo.refs["heads/main"]
    artifact.zip_bytes = zipped("publish.json", json.dumps(document).encode())
    settings = settings_for(
        fake, suite, "workflow_run", workflow_run_event(fake, fake_repo, run_id)
    )

    with pytest.raises(InputError, match="not the run's head"):
        run_ci(settings, collaborators(settings, []))

    assert f"ragguard/{SUITE}" not in fake.latest_statuses(fake_repo, head)
    assert not [c for c in fake_repo.comments.values() if c.issue_number == number]


def test_without_a_stored_baseline_rerun_evaluates_the_merge_base_in_a_worktree(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    (suite / "ragguard.yml").write_text(CONFIG + "baseline: {rerun: true}\n")
    git = GitRepo.create(suite, REPOSITORY)
    base = git.commit({".gitignore": "ragguard-results/\n"}, "Suite with the good run")
    git.switch("feature", create=True)
    head = git.commit({"eval/run.jsonl": BAD_RUN}, "A worse run")
    mirror(fake, fake_repo, git, "main", "feature")
    number = fake.add_pull(fake_repo, "feature").number
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    lines: list[str] = []
    collab = collaborators(settings, lines)
    collab.rerun = lambda *args: rerun_in_worktree(*args)

    outcome = run_ci(settings, collab)

    assert outcome.comparison is not None and not outcome.comparison.baseline_missing
    assert outcome.comparison.provenance.commit == base
    assert (outcome.state, outcome.exit_code) == ("failure", 1)
    assert any(f"evaluating the merge base {base[:12]}" in line for line in lines)
    assert git.head() == head
    assert git.git("worktree", "list").count("\n") == 0  # the temporary worktree is gone
    [comment] = [c for c in fake_repo.comments.values() if c.issue_number == number]
    assert f"Baseline: commit {base[:12]}" in comment.body


def test_the_baseline_rerun_works_with_the_actions_default_relative_inputs(
    fake: FakeGitHub, fake_repo: Repo, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """action.yml runs `ragguard ci` in working-directory with config ragguard.yml and
    results-dir ragguard-results, both relative: the rerun in its worktree (another folder)
    must write where this process then reads."""
    (suite / "ragguard.yml").write_text(CONFIG + "baseline: {rerun: true}\n")
    git = GitRepo.create(suite, REPOSITORY)
    base = git.commit({".gitignore": "ragguard-results/\n"}, "Suite with the good run")
    git.switch("feature", create=True)
    git.commit({"eval/run.jsonl": BAD_RUN}, "A worse run")
    mirror(fake, fake_repo, git, "main", "feature")
    number = fake.add_pull(fake_repo, "feature").number
    monkeypatch.chdir(suite)
    settings = replace(
        settings_for(fake, suite, "pull_request", pull_event(fake_repo, number)),
        config=Path("ragguard.yml"),
        results_dir=Path("ragguard-results"),
    )
    lines: list[str] = []
    collab = collaborators(settings, lines)
    collab.rerun = lambda *args: rerun_in_worktree(*args)

    outcome = run_ci(settings, collab)

    assert not any("the baseline rerun failed" in line for line in lines), lines
    assert outcome.comparison is not None and not outcome.comparison.baseline_missing
    assert outcome.comparison.provenance.commit == base
    assert (outcome.state, outcome.exit_code) == ("failure", 1)
    assert (suite / "ragguard-results" / "baseline-rerun.json").is_file()


BATCH_DOWN_AFTER_TWO = """\
import json, sys, time

for id in ("q0", "q1"):
    print(json.dumps({"id": id, "error": "connection refused"}), flush=True)
time.sleep(60)  # the run stops it once its verdict is certain
"""


def test_the_job_log_names_the_failed_questions_grouped_and_says_the_run_stopped_early(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "down.py").write_text(BATCH_DOWN_AFTER_TWO)
    (tmp_path / "testset.yaml").write_text(
        "".join(f"- id: q{i}\n  question: question {i}\n  relevant: [c]\n" for i in range(10))
    )
    (tmp_path / "ragguard.yml").write_text(
        f"suite: s\ntestset: testset.yaml\nsystem:\n  command: [{json.dumps(sys.executable)}, down.py]\n"
        "  max_error_rate: 0.1\nmetrics: [hit_rate@1]\n"
    )
    out = tmp_path / "out"
    out.mkdir()
    results = evaluate_config(load_config(tmp_path / "ragguard.yml"), {}, out)
    assert results.counts["error"] == 10
    stderr = capsys.readouterr().err.splitlines()
    assert "ragguard: running 10 questions with concurrency 1" in stderr
    assert any(line.startswith("ragguard: stopped early: ") for line in stderr), stderr
    assert "ragguard: error (2 questions): connection refused" in stderr
    assert "ragguard:   q0, q1" in stderr
    assert any(line.startswith("ragguard: error (8 questions): not run: ") for line in stderr)
