"""What the judge cost, through `ragguard ci` end to end: the suite's faithfulness judged by
the local OpenAI-compatible server (replies with ``usage``, and without), the fake GitHub
taking the comment. Checked: results.json's totals, the line under the comment's footer, the
job summary and the step outputs; a ``judge_cost`` budget failing the run; and the judge
calls of rechecks, counted in the totals the team sees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_github import FakeGitHub, Repo
from fake_openai import FakeOpenAI
from test_ci_glue import collaborators, open_pull, pull_event, settings_for
from test_ci_rechecks import pull_request_run, write_live_config

from ragguard.ci.glue import run_ci
from ragguard.ci.outputs import parse_output_file

pytestmark = pytest.mark.e2e

JUDGED = """\
faithfulness: judge
judge:
  base_url: {url}
  model: m
  cache: judge-cache
  price: {{input: 0.15, output: 0.60}}
"""


def judged_suite(suite: Path, url: str, gate: str = "") -> None:
    config = suite / "ragguard.yml"
    config.write_text(config.read_text() + JUDGED.format(url=url) + gate)


def run_pull(fake: FakeGitHub, repo: Repo, suite: Path):  # type: ignore[no-untyped-def]
    number = open_pull(fake, repo)
    settings = settings_for(fake, suite, "pull_request", pull_event(repo, number))
    outcome = run_ci(settings, collaborators(settings, []))
    [comment] = [c for c in repo.comments.values() if c.issue_number == number]
    results = json.loads((suite / "ragguard-results" / "results.json").read_text())
    outputs = parse_output_file((suite / "github-output").read_text())
    summary = (suite / "step-summary.md").read_text()
    return outcome, comment.body, results, outputs, summary


def test_a_judge_reporting_usage(fake: FakeGitHub, fake_repo: Repo, suite: Path) -> None:
    with FakeOpenAI() as server:
        judged_suite(suite, server.base_url)
        outcome, comment, results, outputs, summary = run_pull(fake, fake_repo, suite)
        assert server.calls == 2
    assert outcome.exit_code == 0
    judge = results["judge"]
    assert (judge["calls"], judge["cached"], judge["prompt_tokens"]) == (2, 0, 200)
    assert (judge["completion_tokens"], judge["estimated"]) == (40, False)
    assert judge["cost"] == pytest.approx((200 * 0.15 + 40 * 0.60) / 1e6)
    line = "<sub>judge: 2 calls, 0 cached, 240 tokens, $0.000054</sub>"
    assert comment.count(line) == 1 and summary.count(line) == 1
    assert (outputs["judge-calls"], outputs["judge-tokens"]) == ("2", "240")
    assert outputs["judge-cost"] == "0.000054"


def test_a_judge_reporting_no_usage_is_estimated(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    with FakeOpenAI(usage=False) as server:
        judged_suite(suite, server.base_url)
        _, comment, results, outputs, summary = run_pull(fake, fake_repo, suite)
    judge = results["judge"]
    assert judge["estimated"] is True and judge["calls"] == 2
    tokens = judge["prompt_tokens"] + judge["completion_tokens"]
    assert tokens > 0
    assert f"<sub>judge: 2 calls, 0 cached, ~{tokens} tokens, ~$" in comment
    assert f"<sub>judge: 2 calls, 0 cached, ~{tokens} tokens, ~$" in summary
    assert (outputs["judge-calls"], outputs["judge-tokens"]) == ("2", str(tokens))
    assert float(outputs["judge-cost"]) == pytest.approx(judge["cost"], abs=1e-6)


def test_a_judge_cost_over_its_budget_fails_the_run(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    with FakeOpenAI() as server:
        judged_suite(suite, server.base_url, "gate:\n  metrics:\n    judge_cost: {max: 0.00001}\n")
        outcome, comment, _, outputs, _ = run_pull(fake, fake_repo, suite)
    assert (outcome.comparison.verdict, outcome.exit_code) == ("fail", 1)
    assert "`judge_cost`: $0.000054 is over the budget max $0.000010" in comment
    assert outputs["verdict"] == "fail"


def test_the_judge_calls_of_rechecks_count_in_the_totals_not_in_the_budget(
    fake: FakeGitHub, fake_repo: Repo, live_suite: tuple[Path, str]
) -> None:
    """A flaky critical question rechecked 3 times, each rerun's context new to the judge: the
    footer, the summary and the outputs count the rechecks' calls; results.json (the next
    baseline) and the ``judge_cost`` budget are the head run's alone (docs/compare.md)."""
    root, module = live_suite
    system = root / f"{module}.py"
    retrieved = '[{"id": chunk, "text": text}]'
    system.write_text(
        system.read_text().replace(retrieved, '[{"id": chunk, "text": f"{text} {n}"}]')
    )
    budget = "gate:\n  metrics:\n    judge_cost: {max: 0.00008}\n"
    write_live_config(root, module)
    config = root / "ragguard.yml"
    config.write_text(config.read_text().replace("mrr]", "mrr, faithfulness]"))
    with FakeOpenAI() as server:
        judged_suite(root, server.base_url, budget)
        outcome, lines, number = pull_request_run(fake, fake_repo, root, "flaky")
        assert server.calls == 2 + 1 + 3  # the baseline's 2, the head's 1 (auth cached), 3 reruns
    out = root / "ragguard-results"
    head = json.loads((out / "results.json").read_text())["judge"]
    assert (head["calls"], head["cached"], head["cost"]) == (1, 1, pytest.approx(0.000027))
    assert "ragguard: recheck retry-429: flaky (failed 1 of 4 runs)" in lines
    assert (outcome.comparison.verdict, outcome.exit_code) == ("warn", 0)  # flaky, not over budget
    [row] = [m for m in outcome.comparison.costs if m.name == "judge_cost"]
    assert (row.head, row.verdict) == (pytest.approx(0.000027), "pass")

    [comment] = [c for c in fake_repo.comments.values() if c.issue_number == number]
    summary = (root / "step-summary.md").read_text()
    line = (
        "<sub>judge: 4 calls, 1 cached, 480 tokens, $0.00011 "
        "(of which rechecks: 3 calls, 0 cached, 360 tokens, $0.000081)</sub>"
    )
    assert comment.body.count(line) == 1 and summary.count(line) == 1
    outputs = parse_output_file((root / "github-output").read_text())
    assert (outputs["judge-calls"], outputs["judge-tokens"]) == ("4", "480")
    assert outputs["judge-cost"] == "0.000108"
    saved = json.loads((out / "comparison.json").read_text())
    assert (saved["judge"]["calls"], saved["judge_rechecks"]["calls"]) == (1, 3)
