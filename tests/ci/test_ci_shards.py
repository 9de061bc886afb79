"""`ragguard ci` in a job matrix: the ``shard`` input (evaluate one shard, post nothing) and
the ``parts`` input (merge the shards, then report as an unsharded run), against the fake
GitHub. The suite is test_ci_glue's recorded two-question run: with 2 shards, ``retry-429``
is shard 1 and ``auth`` shard 2.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from ci_fixtures import EVENTS
from fake_github import FakeGitHub, Repo
from test_ci_glue import (
    BAD_RUN,
    CONFIG,
    SUITE,
    collaborators,
    open_pull,
    pull_event,
    push_event,
    save_main_baseline,
    settings_for,
)
from test_ci_settings import actions_env

from ragguard.ci.evaluate import evaluate_config
from ragguard.ci.glue import run_ci
from ragguard.ci.outputs import parse_output_file
from ragguard.ci.parts import find_parts
from ragguard.ci.settings import CiSettings, read_settings
from ragguard.core.errors import InputError
from ragguard.results.io import load_results
from ragguard.testset.shards import Shard, shard_of


def test_the_suite_has_one_question_in_each_of_two_shards() -> None:
    assert (shard_of("retry-429", 2), shard_of("auth", 2)) == (1, 2)


# ----- settings ------------------------------------------------------------------------------


def test_shard_and_parts_are_read_from_their_variables() -> None:
    assert read_settings(actions_env(RAGGUARD_SHARD=" 2/3 ")).shard == Shard(2, 3)
    assert read_settings(actions_env(RAGGUARD_PARTS="parts/*/results.json")).parts == (
        "parts/*/results.json"
    )
    plain = read_settings(actions_env())
    assert (plain.shard, plain.parts) == (None, None)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"RAGGUARD_SHARD": "4/3"},
            "input shard: '4/3': i must be between 1 and n, e.g. shard: 1/3",
        ),
        ({"RAGGUARD_SHARD": "2"}, "input shard: '2' is not i/n; write e.g. shard: 1/3"),
        (
            {"RAGGUARD_SHARD": "1/3", "RAGGUARD_PARTS": "parts"},
            "input parts: set either shard (the matrix jobs) or parts",
        ),
    ],
)
def test_bad_shard_inputs_are_one_line_errors_naming_the_input(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(InputError) as caught:
        read_settings(actions_env(**env))
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_a_bad_shard_is_exit_2_in_one_line_before_any_request(tmp_path: Path) -> None:
    env = {
        **{
            k: v
            for k, v in actions_env().items()
            if k not in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")
        },
        "GITHUB_API_URL": "http://127.0.0.1:9",  # nothing listens: a request would fail loudly
        "RAGGUARD_SHARD": "0/3",
    }
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RAGGUARD_"))}
    done = subprocess.run(
        [sys.executable, "-m", "ragguard", "ci"],
        env={**keep, **env}, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "ragguard: error: input shard: '0/3': i must be between 1 and n, e.g. shard: 1/3"
    ]


# ----- the shard jobs ------------------------------------------------------------------------


def shard_settings(settings: CiSettings, index: int, count: int, folder: Path) -> CiSettings:
    return replace(settings, shard=Shard(index, count), results_dir=folder)


def run_shards(settings: CiSettings, parts: Path, count: int = 2) -> None:
    """What the matrix jobs do: each evaluates its shard into its own folder."""
    for index in range(1, count + 1):
        job = shard_settings(settings, index, count, parts / f"ragguard-part-{index}")
        evaluate = functools.partial(evaluate_config, shard=job.shard)
        outcome = run_ci(job, collaborators(job, [], evaluate=evaluate))
        assert (outcome.exit_code, outcome.comparison) == (0, None)


def test_a_shard_job_evaluates_its_shard_and_posts_nothing(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    number = open_pull(fake, fake_repo)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    job = shard_settings(settings, 2, 2, suite / "part")
    lines: list[str] = []
    before = len(fake.api_requests())

    outcome = run_ci(
        job, collaborators(job, lines, evaluate=functools.partial(evaluate_config, shard=job.shard))
    )

    assert fake.api_requests()[before:] == []  # no status, no comment, no baseline
    assert outcome.results_path == suite / "part" / "results.json"
    part = load_results(outcome.results_path)
    assert [q.id for q in part.questions] == ["auth"]
    assert part.shard is not None and (part.shard.index, part.shard.count) == (2, 2)
    assert part.git["sha"] == fake_repo.pulls[number].head_sha
    assert parse_output_file((suite / "github-output").read_text()) == {
        "results-path": str(outcome.results_path)
    }
    assert "shard 2/2 of orders: 1 questions evaluated" in (suite / "step-summary.md").read_text()


# ----- the final job -------------------------------------------------------------------------


def test_the_final_job_merges_and_reports_as_an_unsharded_run(
    fake: FakeGitHub,
    fake_repo: Repo,
    suite: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    whole = run_ci(settings, collaborators(settings, []))  # unsharded, for comparison
    unsharded = load_results(suite / "ragguard-results" / "results.json")
    head = fake_repo.pulls[number].head_sha
    before = len(fake_repo.statuses)
    run_shards(settings, suite / "ragguard-parts")
    merge_job = replace(settings, parts="ragguard-parts", results_dir=tmp_path / "final")
    lines: list[str] = []

    monkeypatch.chdir(suite)  # the action runs `ragguard ci` in working-directory
    outcome = run_ci(merge_job, collaborators(merge_job, lines))

    assert (outcome.state, outcome.exit_code) == (whole.state, whole.exit_code) == ("failure", 1)
    assert [(s.sha, s.state) for s in fake_repo.statuses[before:]] == [
        (head, "pending"),
        (head, "failure"),
    ]
    merged = load_results(tmp_path / "final" / "results.json")
    assert merged.shard is None
    assert merged.questions == unsharded.questions  # recorded: even the latencies agree
    assert merged.summary == unsharded.summary
    assert outcome.comparison is not None and whole.comparison is not None
    assert [(m.name, m.head, m.baseline) for m in outcome.comparison.metrics] == [
        (m.name, m.head, m.baseline) for m in whole.comparison.metrics
    ]
    [comment] = [c for c in fake_repo.comments.values() if c.issue_number == number]
    assert "- **retry\\-429** _(critical)_" in comment.body
    assert any("merged 2 shard results (2 questions)" in line for line in lines)


def test_the_final_job_of_a_push_saves_the_merged_baseline(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    settings = settings_for(fake, suite, "push", push_event(fake_repo))
    run_shards(settings, suite / "parts")

    outcome = run_ci(replace(settings, parts=str(suite / "parts")), collaborators(settings, []))

    assert (outcome.state, outcome.exit_code) == ("success", 0)
    saved = json.loads(fake.file_at(fake_repo, "ragguard-data", f"main/{SUITE}.json") or b"{}")
    assert [q["id"] for q in saved["results"]["questions"]] == ["retry-429", "auth"]
    assert "shard" not in saved["results"]


def test_a_missing_shard_ends_in_an_error_status_naming_it(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    number = open_pull(fake, fake_repo)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    run_shards(settings, suite / "parts")
    shutil.rmtree(suite / "parts" / "ragguard-part-1")  # that shard's job failed

    with pytest.raises(InputError, match=r"shard\(s\) 1 of 2 missing: pass every part"):
        run_ci(replace(settings, parts=str(suite / "parts")), collaborators(settings, []))

    head = fake_repo.pulls[number].head_sha
    assert [s.state for s in fake_repo.statuses if s.sha == head] == ["pending", "error"]
    status = fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"]
    assert "shard(s) 1 of 2 missing" in (status.description or "")
    assert not [c for c in fake_repo.comments.values() if c.issue_number == number]


def test_parts_of_another_commit_are_refused(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    run_shards(settings_for(fake, suite, "push", push_event(fake_repo)), suite / "parts")
    number = open_pull(fake, fake_repo)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    main_sha = fake_repo.refs["heads/main"]

    with pytest.raises(InputError, match=f"is of commit {main_sha[:12]}, but this job reports"):
        run_ci(replace(settings, parts=str(suite / "parts")), collaborators(settings, []))

    head = fake_repo.pulls[number].head_sha
    assert fake.latest_statuses(fake_repo, head)[f"ragguard/{SUITE}"].state == "error"


def test_parts_of_another_config_are_refused(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    settings = settings_for(fake, suite, "push", push_event(fake_repo))
    run_shards(settings, suite / "parts")
    (suite / "ragguard.yml").write_text(CONFIG.replace("faithfulness]", "faithfulness, mrr@1]"))
    other = shard_settings(settings, 1, 2, suite / "parts" / "ragguard-part-1")
    evaluate = functools.partial(evaluate_config, shard=other.shard)
    run_ci(other, collaborators(other, [], evaluate=evaluate))

    with pytest.raises(InputError, match=r"differs from .*; merge only the parts of one run"):
        run_ci(replace(settings, parts=str(suite / "parts")), collaborators(settings, []))


def test_shard_inputs_are_refused_when_publishing(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    payload = json.loads((EVENTS / "workflow_run.completed.json").read_text(encoding="utf-8"))
    settings = settings_for(fake, suite, "workflow_run", payload, parts="parts")
    with pytest.raises(
        InputError, match="input parts: is for evaluating a run, not for publishing"
    ):
        run_ci(settings, collaborators(settings, []))
    assert fake.api_requests() == []


# ----- finding the parts ---------------------------------------------------------------------


def test_parts_are_a_folder_searched_at_any_depth_or_a_glob(tmp_path: Path) -> None:
    for name in ("ragguard-part-2", "ragguard-part-1", "nested/ragguard-part-3"):
        (tmp_path / "parts" / name).mkdir(parents=True)
        (tmp_path / "parts" / name / "results.json").write_text("{}")
    (tmp_path / "parts" / "ragguard-part-1" / "run.jsonl").write_text("")
    found = find_parts(str(tmp_path / "parts"))
    assert [p.relative_to(tmp_path / "parts").as_posix() for p in found] == [
        "nested/ragguard-part-3/results.json",
        "ragguard-part-1/results.json",
        "ragguard-part-2/results.json",
    ]
    assert find_parts(str(tmp_path / "parts" / "ragguard-part-*" / "results.json")) == found[1:]
    with pytest.raises(InputError, match=r"input parts: no shard results at '.*missing'"):
        find_parts(str(tmp_path / "missing"))
