"""`ragguard ci` with repeats (``system.repeat``, the action's ``repeat`` input, ``--repeat``):
the suite's real python system is asked N times, each pass's records are on disk, the
results carry every run, the job log has the cost; rechecks ask each question once."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from act_harness import GitRepo, mirror
from ci_fixtures import EVENTS, REPOSITORY
from fake_github import FakeGitHub, Repo
from test_ci_cli import run_ci_command
from test_ci_glue import SUITE, collaborators, pull_event, push_event, settings_for
from test_ci_rechecks import pull_request_run, write_live_config
from test_ci_settings import actions_env

from ragguard.ci.glue import run_ci
from ragguard.ci.rerun import rerun_in_worktree
from ragguard.ci.settings import read_settings
from ragguard.core.errors import InputError
from ragguard.results.io import load_results


def _push(fake: FakeGitHub, repo: Repo, root: Path, repeat: int | None) -> None:
    settings = replace(settings_for(fake, root, "push", push_event(repo)), repeat=repeat)
    outcome = run_ci(settings, collaborators(settings, []))
    assert outcome.comparison is not None and outcome.exit_code == 0


@pytest.mark.parametrize("where", ["input", "config"])
def test_a_repeated_run_writes_each_pass_keeps_every_run_and_logs_the_cost(
    fake: FakeGitHub,
    fake_repo: Repo,
    live_suite: tuple[Path, str],
    capsys: pytest.CaptureFixture[str],
    where: str,
) -> None:
    root, module = live_suite
    write_live_config(root, module)
    if where == "config":
        text = (root / "ragguard.yml").read_text()
        (root / "ragguard.yml").write_text(text.replace(":answer\n", ":answer\n  repeat: 3\n"))
    (root / "mode").write_text("flaky")  # retry-429 misses its chunk on its first call only
    _push(fake, fake_repo, root, 3 if where == "input" else None)

    out = root / "ragguard-results"
    assert (root / "calls-retry-429").read_text() == "3"
    assert (root / "calls-auth").read_text() == "3"
    passes = [out / "run.jsonl", out / "run.2.jsonl", out / "run.3.jsonl"]
    first, *later = ([json.loads(line) for line in p.read_text().splitlines()] for p in passes)
    assert first[0]["retrieved"][0]["id"] == "somewhere-else"
    assert all(records[0]["retrieved"][0]["id"] == "rate-limits" for records in later)
    results = load_results(out / "results.json")
    retry = results.by_id["retry-429"]
    assert [run.metrics["hit_rate@3"] for run in retry.repeats] == [0.0, 1.0, 1.0]
    assert retry.metrics["hit_rate@3"] == pytest.approx(2 / 3)
    log = capsys.readouterr().err
    assert "ragguard: asked 2 questions 3 times: 6 system calls (0 failed), no judge calls, " in log


def test_rechecks_of_a_repeated_run_ask_each_question_once(
    fake: FakeGitHub,
    fake_repo: Repo,
    live_suite: tuple[Path, str],
) -> None:
    root, module = live_suite
    write_live_config(root, module)
    text = (root / "ragguard.yml").read_text()
    (root / "ragguard.yml").write_text(text.replace(":answer\n", ":answer\n  repeat: 2\n"))
    outcome, lines, _ = pull_request_run(fake, fake_repo, root, "broken")

    assert (outcome.comparison.verdict, outcome.exit_code) == ("fail", 1)
    rechecks = root / "ragguard-results" / "rechecks"
    reruns = sorted(p.name for p in rechecks.iterdir())
    assert reruns, lines
    for rerun in reruns:
        assert (rechecks / rerun / "run.jsonl").exists()
        assert not (rechecks / rerun / "run.2.jsonl").exists()
        assert {
            len(q.repeats) for q in load_results(rechecks / rerun / "results.json").questions
        } == {0}
    # the pull request's two passes, then one call per recheck
    assert (root / "calls-retry-429").read_text() == str(2 + len(reruns))
    assert (root / "calls-auth").read_text() == "2"


@pytest.mark.parametrize(("value", "expected"), [("", None), ("1", 1), (" 3 ", 3), ("20", 20)])
def test_the_repeat_input(value: str, expected: int | None) -> None:
    assert read_settings(actions_env(RAGGUARD_REPEAT=value)).repeat == expected


@pytest.mark.parametrize("value", ["0", "21", "2.5", "three", "-1"])
def test_a_bad_repeat_input_is_one_line_naming_the_input(value: str) -> None:
    with pytest.raises(InputError) as caught:
        read_settings(actions_env(RAGGUARD_REPEAT=value))
    assert str(caught.value) == (
        "input repeat: expected a whole number of runs of the test set from 1 to 20, "
        f"found {value!r}"
    )


def test_the_repeat_flag_of_ragguard_ci_overrides_the_input_and_the_config(
    live_suite: tuple[Path, str],
) -> None:
    """A shard job (it posts nothing, so no GitHub is needed): the flag's 2 passes win over
    the input's 3 and the config's 4."""
    root, module = live_suite
    write_live_config(root, module)
    text = (root / "ragguard.yml").read_text()
    (root / "ragguard.yml").write_text(text.replace(":answer\n", ":answer\n  repeat: 4\n"))
    env = {
        "RAGGUARD_TOKEN": "t",
        "GITHUB_REPOSITORY": "octo-org/octo-repo",
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_EVENT_PATH": str(EVENTS / "push.json"),
        "GITHUB_SHA": "a" * 40,
        "GITHUB_API_URL": "http://127.0.0.1:9",  # nothing listens: a request would fail loudly
        "RAGGUARD_SHARD": "1/1",
        "RAGGUARD_REPEAT": "3",
        "GITHUB_STEP_SUMMARY": str(root / "summary.md"),
    }
    done = run_ci_command(env, root, "--repeat", "2")

    assert done.returncode == 0, done.stderr
    assert (root / "calls-auth").read_text() == "2"
    assert sorted(p.name for p in (root / "ragguard-results").glob("run*.jsonl")) == [
        "run.2.jsonl",
        "run.jsonl",
    ]
    assert "ragguard: asked 2 questions 2 times: 4 system calls (0 failed)" in done.stderr
    summary = (root / "summary.md").read_text()
    assert summary.startswith(
        f"ragguard {SUITE}: asked 2 questions 2 times: 4 system calls (0 failed), "
    )


def test_a_bad_repeat_flag_on_ragguard_ci_is_exit_2_in_one_line(tmp_path: Path) -> None:
    done = run_ci_command({}, tmp_path, "--repeat", "0")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "ragguard: error: --repeat: Invalid value for '--repeat': expected a whole number of "
        "runs of the test set from 1 to 20, found 0; see ragguard ci --help"
    ]


def test_the_baseline_rerun_asks_the_merge_base_as_many_times_as_the_head(
    fake: FakeGitHub,
    fake_repo: Repo,
    live_suite: tuple[Path, str],
) -> None:
    root, module = live_suite
    write_live_config(root, module, "baseline: {rerun: true}\n")
    git = GitRepo.create(root, REPOSITORY)
    git.commit({".gitignore": "ragguard-results/\ncalls-*\n"}, "The suite")
    git.switch("feature", create=True)
    git.commit({"notes.txt": "a change\n"}, "A change")
    mirror(fake, fake_repo, git, "main", "feature")
    number = fake.add_pull(fake_repo, "feature").number
    settings = settings_for(fake, root, "pull_request", pull_event(fake_repo, number))
    collab = collaborators(replace(settings, repeat=2), [])
    collab.rerun = lambda *args: rerun_in_worktree(*args)

    outcome = run_ci(replace(settings, repeat=2), collab)

    assert outcome.comparison is not None and not outcome.comparison.baseline_missing
    rerun = load_results(root / "ragguard-results" / "baseline-rerun.json")
    assert {len(question.repeats) for question in rerun.questions} == {2}
    head = load_results(root / "ragguard-results" / "results.json")
    assert {len(question.repeats) for question in head.questions} == {2}


def test_repeat_for_a_recorded_system_is_refused_before_any_request(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    """It was refused after the pending status, so with GitHub down the job hung first."""
    settings = replace(settings_for(fake, suite, "push", push_event(fake_repo)), repeat=3)

    with pytest.raises(InputError, match="a recorded run gives the same answers every time"):
        run_ci(settings, collaborators(settings, []))

    assert fake.api_requests() == []
