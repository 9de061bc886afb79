"""Rechecks in `ragguard ci`: a newly failing critical question is run again through the
same (real, python) system; it blocks only when it fails in a majority of its runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_github import FakeGitHub, Repo
from test_ci_glue import (
    BAD_RUN,
    SUITE,
    collaborators,
    open_pull,
    pull_event,
    push_event,
    save_main_baseline,
    settings_for,
)

from ragguard.ci.glue import run_ci
from ragguard.core.errors import InputError

# The system: answers from a fixed chunk per question; ``mode`` says how retry-429 behaves:
# "good" always finds its chunk, "flaky" misses it on its first call only, "broken" always.
SYSTEM = """\
from pathlib import Path

HERE = Path(__file__).parent
CHUNKS = {"retry-429": ("rate-limits", RATE), "auth": ("auth", AUTH)}


def answer(question, id=""):
    chunk, text = CHUNKS[id]
    mode = (HERE / "mode").read_text().strip()
    calls = HERE / f"calls-{id}"
    n = int(calls.read_text()) + 1 if calls.exists() else 1
    calls.write_text(str(n))
    if id == "retry-429" and (mode == "broken" or (mode == "flaky" and n == 1)):
        chunk = "somewhere-else"
    return {"retrieved": [{"id": chunk, "text": text}], "answer": text}
"""


def write_live_config(root: Path, module: str, gate: str = "") -> None:
    (root / "ragguard.yml").write_text(
        f"suite: {SUITE}\ntestset: eval/testset.yaml\nsystem:\n  python: {module}:answer\n"
        f"metrics: [hit_rate@3, mrr]\n{gate}"
    )


def pull_request_run(
    fake: FakeGitHub, repo: Repo, root: Path, mode: str
) -> tuple[object, list[str], int]:
    settings = settings_for(fake, root, "push", push_event(repo))
    assert run_ci(settings, collaborators(settings, [])).comparison.verdict == "pass"
    number = open_pull(fake, repo)
    (root / "mode").write_text(mode)
    for calls in root.glob("calls-*"):
        calls.unlink()
    settings = settings_for(fake, root, "pull_request", pull_event(repo, number))
    lines: list[str] = []
    return run_ci(settings, collaborators(settings, lines)), lines, number


def test_a_critical_question_failing_once_then_passing_is_flaky_not_blocking(
    fake: FakeGitHub, fake_repo: Repo, live_suite: tuple[Path, str]
) -> None:
    root, module = live_suite
    write_live_config(root, module)
    outcome, lines, number = pull_request_run(fake, fake_repo, root, "flaky")

    assert outcome.comparison.verdict == "warn"
    assert outcome.exit_code == 0
    [reason] = [r for r in outcome.comparison.reasons if r.subject == "retry-429"]
    assert (reason.tier, reason.text) == ("warn", "critical question is flaky: failed 1 of 4 runs")
    assert (root / "calls-retry-429").read_text() == "4"  # the first run and 3 rechecks
    assert (root / "calls-auth").read_text() == "1"  # only the failing question is rechecked
    assert "ragguard: recheck retry-429: flaky (failed 1 of 4 runs)" in lines
    for i in (1, 2, 3):
        rerun = json.loads(
            (root / "ragguard-results" / "rechecks" / str(i) / "results.json").read_text()
        )
        assert [q["id"] for q in rerun["questions"]] == ["retry-429"]
        assert (root / "ragguard-results" / "rechecks" / str(i) / "run.jsonl").exists()
    [comment] = [c for c in fake_repo.comments.values() if c.issue_number == number]
    assert "is flaky (failed 1 of 4 runs), not counted as a regression" in comment.body
    assert "1 flaky critical question" in comment.body


def test_a_critical_question_that_always_fails_still_blocks(
    fake: FakeGitHub, fake_repo: Repo, live_suite: tuple[Path, str]
) -> None:
    root, module = live_suite
    write_live_config(root, module)
    outcome, lines, _ = pull_request_run(fake, fake_repo, root, "broken")

    assert (outcome.comparison.verdict, outcome.exit_code) == ("fail", 1)
    [reason] = [r for r in outcome.comparison.reasons if r.subject == "retry-429"]
    assert (reason.tier, reason.text) == (
        "fail",
        "critical question newly fails: failed 4 of 4 runs",
    )
    assert "ragguard: recheck retry-429: fails (failed 4 of 4 runs)" in lines


def test_recheck_0_turns_rechecks_off(
    fake: FakeGitHub, fake_repo: Repo, live_suite: tuple[Path, str]
) -> None:
    root, module = live_suite
    write_live_config(root, module, "gate:\n  recheck: 0\n")
    outcome, _, _ = pull_request_run(fake, fake_repo, root, "flaky")

    assert (outcome.comparison.verdict, outcome.exit_code) == ("fail", 1)
    assert (root / "calls-retry-429").read_text() == "1"
    assert not (root / "ragguard-results" / "rechecks").exists()


@pytest.mark.parametrize(
    ("gate", "message"),
    [
        ("recheck: -1", "gate.recheck: expected a whole number from 0 (off) to 20, found -1"),
        ("recheck: 2.5", "gate.recheck: expected a whole number from 0 (off) to 20, found 2.5"),
        ("recheck: many", "expected a whole number from 0 (off) to 20, found 'many'"),
        ("recheck: 21", "expected a whole number from 0 (off) to 20, found 21"),
        ("recheck_all: sometimes", "gate.recheck_all: expected true or false, found"),
    ],
)
def test_bad_recheck_settings_are_one_line_errors(
    live_suite: tuple[Path, str], gate: str, message: str
) -> None:
    from ragguard.config.load import load_config
    from ragguard.config.sections.gate import gate_rules_of

    root, module = live_suite
    write_live_config(root, module, f"gate:\n  {gate}\n")
    with pytest.raises(InputError) as caught:
        gate_rules_of(load_config(root / "ragguard.yml"))
    text = str(caught.value)
    assert message in text and "\n" not in text
    assert "ragguard.yml:7: " in text


def test_a_recorded_system_is_not_rechecked_and_the_log_says_so(
    fake: FakeGitHub,
    fake_repo: Repo,
    suite: Path,
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    number = open_pull(fake, fake_repo)
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)
    settings = settings_for(fake, suite, "pull_request", pull_event(fake_repo, number))
    lines: list[str] = []
    outcome = run_ci(settings, collaborators(settings, lines))

    assert (outcome.comparison.verdict, outcome.exit_code) == ("fail", 1)
    assert (
        "ragguard: not rechecked (the system is a recorded run and cannot be asked again; "
        "one run decides): retry-429"
    ) in lines
    assert not (suite / "ragguard-results" / "rechecks").exists()
