"""What untrusted events may not do (SECURITY.md, claims 3 and 4).

Claim 3: no baseline is written from a run of a pull request's code. tests/ci/test_ci_activity.py
already covers `pull_request` (auto and mode baseline); here: `pull_request_target`, a
`workflow_run` after a pull request, and a whole pull request run that leaves the data
branch untouched.

Claim 4: the fork flow posts only from the `workflow_run` job, to the pull request the API
names for the run's head commit, whatever the artifact claims; and what it posts is inert.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from ci_fixtures import REPOSITORY, event_payload
from fake_github import BOT_LOGIN, FakeGitHub, Repo
from github_fixtures import fast_settings
from hostile import HOSTILE, OWN_TAGS, assert_inert_markdown, assert_no_workflow_command, html_of

from compare_cases import GOLDEN_CASES
from ragguard.ci.activity import BASELINE, PUBLISH, choose_activity
from ragguard.ci.collaborators import Collaborators
from ragguard.ci.evaluate import evaluate_config
from ragguard.ci.glue import run_ci
from ragguard.ci.publish import inert_comment, publish_artifact_name, publish_document
from ragguard.ci.settings import CiSettings
from ragguard.compare import compare
from ragguard.core.errors import InputError
from ragguard.github import GitHubClient, comment_marker, read_event
from ragguard.github.comments import Outcome, outcome_of
from ragguard.render import COMMENT_LIMIT, render_comment

SUITE = "orders"
REPOSITORY_JSON = {"full_name": REPOSITORY, "default_branch": "main"}

# ----- claim 3: no baseline from untrusted events -----------------------------------------


@pytest.mark.parametrize("event", ["pull_request", "pull_request_target"])
def test_no_pull_request_event_saves_a_baseline_whatever_the_mode(event: str) -> None:
    context = read_event(event, event_payload("pull_request.opened"))
    assert not choose_activity(context).save_baseline
    with pytest.raises(InputError, match="may not save a baseline"):
        choose_activity(context, mode="baseline")


@pytest.mark.parametrize("run_event", ["pull_request", "pull_request_target", None])
def test_a_workflow_run_after_a_pull_request_may_not_save_a_baseline(
    run_event: str | None,
) -> None:
    payload = event_payload("workflow_run.completed")
    payload["workflow_run"]["event"] = run_event
    context = read_event("workflow_run", payload)
    assert choose_activity(context).kind == PUBLISH
    with pytest.raises(InputError, match=r"workflow_run after a .* may not save a baseline"):
        choose_activity(context, mode="baseline")


def test_a_workflow_run_after_a_push_may_save_a_baseline_when_asked() -> None:
    payload = event_payload("workflow_run.completed")
    payload["workflow_run"]["event"] = "push"
    activity = choose_activity(read_event("workflow_run", payload), mode="baseline")
    assert (activity.kind, activity.save_baseline) == (BASELINE, True)


SUITE_CONFIG = f"""\
suite: {SUITE}
testset: eval/testset.yaml
system:
  recorded: eval/run.jsonl
metrics: [hit_rate@3]
"""


def _suite(root: Path) -> Path:
    (root / "eval").mkdir(parents=True)
    (root / "ragguard.yml").write_text(SUITE_CONFIG)
    (root / "eval" / "testset.yaml").write_text("- id: a\n  question: Q?\n  relevant: [c]\n")
    (root / "eval" / "run.jsonl").write_text('{"id": "a", "retrieved": ["c"]}\n')
    return root


def _settings(fake: FakeGitHub, root: Path, event: str, payload: dict, **kw) -> CiSettings:
    return CiSettings(
        github=fast_settings(fake, event_name=event, comment_author=BOT_LOGIN),
        event=read_event(event, payload),
        config=root / "ragguard.yml",
        results_dir=root / "ragguard-results",
        output_file=root / "github-output",
        summary_file=root / "step-summary.md",
        **kw,
    )


def _collaborators(settings: CiSettings, log: list[str]) -> Collaborators:
    return Collaborators(
        github=GitHubClient(settings.github),
        evaluate=evaluate_config,
        commit_time=lambda sha: None,
        head_commit=lambda: None,
        rerun=lambda *args: None,
        log=log.append,
    )


def _pull_payload(repo: Repo, number: int, head_repo: str = REPOSITORY) -> dict:
    pull = repo.pulls[number]
    return {
        "number": number,
        "pull_request": {
            "number": number,
            "head": {"sha": pull.head_sha, "ref": pull.head_ref, "repo": {"full_name": head_repo}},
            "base": {"ref": "main", "repo": {"full_name": REPOSITORY}},
        },
        "repository": REPOSITORY_JSON,
    }


@pytest.mark.e2e
@pytest.mark.parametrize("event", ["pull_request", "pull_request_target"])
def test_a_pull_request_run_with_a_write_token_leaves_the_data_branch_alone(
    fake: FakeGitHub, fake_repo: Repo, tmp_path: Path, event: str
) -> None:
    root = _suite(tmp_path / "repo")
    fake.branch_from(fake_repo, "feature", "main")
    fake.commit(fake_repo, "feature", {"x.txt": b"x"}, "Change")
    number = fake.add_pull(fake_repo, "feature").number
    settings = _settings(fake, root, event, _pull_payload(fake_repo, number))

    outcome = run_ci(settings, _collaborators(settings, []))

    assert outcome.comment is not None  # the token could write; it wrote only the report
    assert "heads/ragguard-data" not in fake_repo.refs
    writes = [r for r in fake.api_requests() if r.method != "GET"]
    assert writes and not [r for r in writes if "/git/" in r.path or "/contents/" in r.path]


@pytest.mark.e2e
def test_a_push_whose_run_could_not_be_evaluated_keeps_the_old_baseline(
    fake: FakeGitHub, fake_repo: Repo, tmp_path: Path
) -> None:
    root = _suite(tmp_path / "repo")
    (root / "eval" / "run.jsonl").write_text('{"id": "a", "error": "the system is down"}\n')
    push = {"ref": "refs/heads/main", "after": fake_repo.refs["heads/main"]}
    settings = _settings(fake, root, "push", {**push, "repository": REPOSITORY_JSON})
    log: list[str] = []

    outcome = run_ci(settings, _collaborators(settings, log))

    assert outcome.comparison is not None and outcome.comparison.verdict == "error"
    assert "heads/ragguard-data" not in fake_repo.refs
    assert any("the baseline is not replaced" in line for line in log)


# ----- claim 4: the fork flow ----------------------------------------------------------------


def _zipped(document: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("publish.json", json.dumps(document))
    return buffer.getvalue()


def _fork_run(fake: FakeGitHub, repo: Repo, document: dict, artifact_suite: str = SUITE):
    """A fork's pull request (#1) and its finished run, with ``document`` as its artifact;
    a second, unrelated pull request (#2) the artifact may name."""
    fake.branch_from(repo, "patch-1", "main")
    head = fake.commit(repo, "patch-1", {"prompt.txt": b"fork"}, "Fork change").sha
    fork_pull = fake.add_pull(repo, "patch-1", head_repo="someone/octo-repo")
    fake.branch_from(repo, "other", "main")
    fake.commit(repo, "other", {"other.txt": b"o"}, "Other change")
    other_pull = fake.add_pull(repo, "other")
    run = fake.add_run(
        repo,
        head_branch="patch-1",
        head_sha=head,
        event="pull_request",
        conclusion="success",
        head_repo="someone/octo-repo",
    )
    body = {**document, "head_sha": document.get("head_sha") or head}
    fake.add_artifact(repo, run, publish_artifact_name(artifact_suite), _zipped(body))
    return fork_pull, other_pull, fake.workflow_run_payload(repo, run), head


def _document(comment: str, suite: str = SUITE, **extra: object) -> dict:
    document = publish_document(suite, "", comment, "success", "pass: no regression")
    return {**document, **extra}


@pytest.mark.e2e
def test_the_artifact_cannot_send_the_comment_to_another_pull_request_or_repository(
    fake: FakeGitHub, fake_repo: Repo, tmp_path: Path
) -> None:
    comment = comment_marker(SUITE) + "\n### ragguard · orders: **pass**\n"
    document = _document(
        comment, pr=2, number=2, pull_request={"number": 2}, repository="evil/elsewhere"
    )
    fork_pull, other_pull, event, head = _fork_run(fake, fake_repo, document)
    root = _suite(tmp_path / "repo")
    settings = _settings(fake, root, "workflow_run", event)
    log: list[str] = []

    run_ci(settings, _collaborators(settings, log))

    commented = {c.issue_number for c in fake_repo.comments.values()}
    assert commented == {fork_pull.number} and other_pull.number != fork_pull.number
    assert fake.api_requests(pattern=rf"/commits/{head}/pulls$")  # resolved through the API
    assert all(r.path.startswith(f"/repos/{REPOSITORY}/") for r in fake.api_requests())
    assert set(fake.latest_statuses(fake_repo, head)) == {f"ragguard/{SUITE}"}
    assert not fake.latest_statuses(fake_repo, other_pull.head_sha)


@pytest.mark.e2e
def test_a_published_comment_is_made_inert_and_cannot_take_over_another_suites_comment(
    fake: FakeGitHub, fake_repo: Repo, tmp_path: Path
) -> None:
    hostile = "\n\n".join(HOSTILE.values()) + "\n\n" + comment_marker("other") + "\n"
    comment = comment_marker(SUITE) + "\n" + hostile
    description = "pass\n::set-output name=verdict::pass\n" + "x" * 500
    document = {**_document(comment), "description": description}
    fork_pull, _, event, head = _fork_run(fake, fake_repo, document)
    other = fake.add_comment(
        fake_repo, fork_pull.number, comment_marker("other") + "\nthe other suite", BOT_LOGIN
    )
    root = _suite(tmp_path / "repo")
    settings = _settings(fake, root, "workflow_run", event)
    log: list[str] = []

    run_ci(settings, _collaborators(settings, log))

    posted = [c for c in fake_repo.comments.values() if c.id != other.id]
    assert len(posted) == 1 and posted[0].body.startswith(comment_marker(SUITE))
    # the pull request's own markdown structure stays (a heading, a list); nothing active does
    structure = OWN_TAGS | {"h1", "h2", "h5", "h6"}
    # two HTML comments, both the publisher's: the marker and the hidden outcome line under it
    assert outcome_of(posted[0].body) is not None
    assert_inert_markdown(posted[0].body, markers=2, allowed_tags=structure)
    assert fake_repo.comments[other.id].body == comment_marker("other") + "\nthe other suite"
    status = fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"]
    assert "\n" not in status.description and len(status.description) <= 140
    assert_no_workflow_command("\n".join(log))


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"suite": "other"}, "artifact's name says orders"),
        ({"comment": comment_marker(SUITE) + "x" * COMMENT_LIMIT}, "over GitHub's"),
        ({"comment": "no marker " + comment_marker(SUITE)}, "does not start with the suite's"),
        ({"suite": "##[add-mask]x"}, "not a plain suite name"),
    ],
)
def test_an_artifact_that_does_not_fit_is_refused_before_any_write(
    fake: FakeGitHub, fake_repo: Repo, tmp_path: Path, change: dict, message: str
) -> None:
    document = {**_document(comment_marker(SUITE) + "\nok"), **change}
    _, _, event, head = _fork_run(fake, fake_repo, document)
    settings = _settings(fake, _suite(tmp_path / "repo"), "workflow_run", event)

    with pytest.raises(InputError, match=message) as refused:
        run_ci(settings, _collaborators(settings, []))

    assert_no_workflow_command(str(refused.value))
    assert not fake_repo.comments and not fake.latest_statuses(fake_repo, head)
    assert not [r for r in fake.api_requests() if r.method != "GET"]


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_ragguards_own_comments_come_through_unchanged(name: str) -> None:
    baseline, head, rules = GOLDEN_CASES[name]()
    comment = render_comment(compare(baseline, head, rules))
    marker = comment_marker(head.suite)
    assert inert_comment(comment, marker) == comment
    assert html_of(inert_comment(comment, marker)) == html_of(comment)


# ----- the fork flow: whose pull request, and how binding ----------------------------------


def _victim_and_attacker(fake: FakeGitHub, repo: Repo, document: dict):
    """A victim's pull request (#1, this repository's patch-1 into main) and an attacker's
    (#2, from a fork, with the victim's head commit, into another branch); the attacker's
    finished run left ``document`` as its artifact."""
    fake.branch_from(repo, "patch-1", "main")
    head = fake.commit(repo, "patch-1", {"prompt.txt": b"victim"}, "Victim change").sha
    victim = fake.add_pull(repo, "patch-1")
    fake.branch_from(repo, "release", "main")
    fake.branch_from(repo, "evil-head", "patch-1")
    attacker = fake.add_pull(repo, "evil-head", base_ref="release", head_repo="evil/fork")
    assert victim.head_sha == attacker.head_sha == head
    return victim, attacker, head


def _run_of(fake: FakeGitHub, repo: Repo, document: dict, head: str, head_repo: str, branch: str):
    run = fake.add_run(
        repo,
        head_branch=branch,
        head_sha=head,
        event="pull_request",
        conclusion="success",
        head_repo=head_repo,
    )
    body = {**document, "head_sha": head}
    fake.add_artifact(repo, run, publish_artifact_name(SUITE), _zipped(body))
    return fake.workflow_run_payload(repo, run)


def _nothing_written(fake: FakeGitHub, repo: Repo, head: str) -> None:
    assert not repo.comments and not fake.latest_statuses(repo, head)
    assert not [r for r in fake.api_requests() if r.method != "GET"]


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("head_repo", "branch"), [("evil/fork", "evil-head"), (REPOSITORY, "patch-1")]
)
def test_two_pull_requests_sharing_a_head_sha_from_different_repositories_publish_nothing(
    fake: FakeGitHub, fake_repo: Repo, tmp_path: Path, head_repo: str, branch: str
) -> None:
    """Whichever run is published, a status on the shared commit would speak for both."""
    document = _document(comment_marker(SUITE) + "\n### ragguard · orders: **pass**\n")
    victim, attacker, head = _victim_and_attacker(fake, fake_repo, document)
    event = _run_of(fake, fake_repo, document, head, head_repo, branch)
    settings = _settings(fake, _suite(tmp_path / "repo"), "workflow_run", event)

    with pytest.raises(InputError, match="2 open pull requests have head") as refused:
        run_ci(settings, _collaborators(settings, []))

    assert f"#{victim.number} from {REPOSITORY}:patch-1" in str(refused.value)
    assert f"#{attacker.number} from evil/fork:evil-head" in str(refused.value)
    _nothing_written(fake, fake_repo, head)


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("head_repo", "branch"), [("evil/fork", "patch-1"), (REPOSITORY, "another-branch")]
)
def test_a_run_of_another_repository_or_branch_cannot_publish_to_the_pull_request(
    fake: FakeGitHub, fake_repo: Repo, tmp_path: Path, head_repo: str, branch: str
) -> None:
    fake.branch_from(fake_repo, "patch-1", "main")
    head = fake.commit(fake_repo, "patch-1", {"prompt.txt": b"x"}, "Change").sha
    pull = fake.add_pull(fake_repo, "patch-1")
    document = _document(comment_marker(SUITE) + "\nok")
    event = _run_of(fake, fake_repo, document, head, head_repo, branch)
    settings = _settings(fake, _suite(tmp_path / "repo"), "workflow_run", event)

    with pytest.raises(InputError, match=f"#{pull.number} has head {REPOSITORY}:patch-1"):
        run_ci(settings, _collaborators(settings, []))

    _nothing_written(fake, fake_repo, head)


@pytest.mark.e2e
def test_a_payload_without_the_runs_head_repository_publishes_nothing(
    fake: FakeGitHub, fake_repo: Repo, tmp_path: Path
) -> None:
    document = _document(comment_marker(SUITE) + "\nok")
    _, _, event, head = _fork_run(fake, fake_repo, document)
    del event["workflow_run"]["head_repository"]
    settings = _settings(fake, _suite(tmp_path / "repo"), "workflow_run", event)

    with pytest.raises(InputError, match="does not name the run's head repository"):
        run_ci(settings, _collaborators(settings, []))

    _nothing_written(fake, fake_repo, head)


FORGED = "pass: accepted by @owner: known flake"


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("fork_verdicts", "state", "description"),
    [
        ("advisory", "pending", "fork run says pass: advisory until a maintainer re-evaluates"),
        ("binding", "success", "pass (reported by the fork's run)"),
    ],
)
def test_a_forks_verdict_is_advisory_and_cannot_claim_an_acceptance(
    fake: FakeGitHub,
    fake_repo: Repo,
    tmp_path: Path,
    fork_verdicts: str,
    state: str,
    description: str,
) -> None:
    comment = comment_marker(SUITE) + "\n### ragguard · orders: **pass**\n"
    document = {**_document(comment, verdict="pass"), "description": FORGED}
    fork_pull, _, event, head = _fork_run(fake, fake_repo, document)
    root = _suite(tmp_path / "repo")
    settings = _settings(fake, root, "workflow_run", event, fork_verdicts=fork_verdicts)

    run_ci(settings, _collaborators(settings, []))

    status = fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"]
    assert (status.state, status.description) == (state, description)
    [posted] = fake_repo.comments.values()
    assert posted.issue_number == fork_pull.number
    assert "Posted from a fork's run" in posted.body
    assert ("advisory until a maintainer" in posted.body) == (fork_verdicts == "advisory")
    assert outcome_of(posted.body) == Outcome("pass", state)


@pytest.mark.e2e
def test_a_forks_failure_stands_marked_as_the_forks(
    fake: FakeGitHub, fake_repo: Repo, tmp_path: Path
) -> None:
    document = {
        **publish_document(SUITE, "", comment_marker(SUITE) + "\nfail", "failure", FORGED),
        "verdict": "fail",
    }
    _, _, event, head = _fork_run(fake, fake_repo, document)
    settings = _settings(fake, _suite(tmp_path / "repo"), "workflow_run", event)

    run_ci(settings, _collaborators(settings, []))

    status = fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"]
    assert (status.state, status.description) == ("failure", "fork run says fail (advisory)")
