"""#28 item 14: the GitHub requests `ragguard ci` makes per event, as the fake GitHub sees
them, are the numbers docs/action.md and docs/github.md give (README gives none)."""

from __future__ import annotations

import re
from pathlib import Path

from fake_github import FakeGitHub, Repo
from test_ci_glue import (
    BAD_RUN,
    GOOD_RUN,
    collaborators,
    open_pull,
    pull_event,
    push_event,
    settings_for,
)

from ragguard.ci.glue import run_ci

ROOT = Path(__file__).resolve().parents[2]


def requests_of(fake: FakeGitHub, suite: Path, event: str, payload: dict) -> int:
    """How many API requests one `ragguard ci` run of ``event`` made."""
    before = len(fake.api_requests())
    settings = settings_for(fake, suite, event, payload)
    run_ci(settings, collaborators(settings, []))
    return len(fake.api_requests()) - before


def measured(fake: FakeGitHub, repo: Repo, suite: Path) -> dict[str, int]:
    counts = {"push, the first baseline saved": requests_of(fake, suite, "push", push_event(repo))}
    fake.commit(repo, "main", {"docs.md": b"more"}, "Another commit")
    counts["push, a baseline saved"] = requests_of(fake, suite, "push", push_event(repo))
    number = open_pull(fake, repo)
    (suite / "eval" / "run.jsonl").write_text(BAD_RUN)
    counts["pull request, the gate fails"] = requests_of(
        fake, suite, "pull_request", pull_event(repo, number)
    )
    (suite / "eval" / "run.jsonl").write_text(GOOD_RUN)
    counts["pull request, the gate passes"] = requests_of(
        fake, suite, "pull_request", pull_event(repo, number)
    )
    return counts


def documented_table() -> dict[str, int]:
    """The table under docs/action.md's "Requests per event": event → requests."""
    text = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    section = text.split("## Requests per event", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([^|]+?) \| (\d+) \|", section, re.MULTILINE)
    return {event: int(count) for event, count in rows}


def test_requests_per_event_are_the_documented_numbers(
    fake: FakeGitHub, fake_repo: Repo, suite: Path
) -> None:
    counts = measured(fake, fake_repo, suite)
    assert counts == documented_table()
    github_md = (ROOT / "docs" / "github.md").read_text(encoding="utf-8")
    passes, fails = counts["pull request, the gate passes"], counts["pull request, the gate fails"]
    assert f"ragguard.yml at the merge base (the trusted gate): **{passes} requests**" in github_md
    assert f"**{fails}** when the gate fails" in github_md
    first, later = counts["push, the first baseline saved"], counts["push, a baseline saved"]
    save = re.search(r"A save of a new commit costs (\d+) requests", github_md)
    first_more = re.search(r"the very first save costs (\d+) more", github_md)
    assert save and first_more
    assert first - later == int(first_more.group(1))  # the data branch created
    assert int(save.group(1)) < later  # the push's own requests come on top of the save
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    github_counts = r"\d+ (GitHub |API )?requests? (per|on|for) (a |an |each )?(pull|event|push)"
    assert not re.search(github_counts, readme)  # README gives no count to keep in step
