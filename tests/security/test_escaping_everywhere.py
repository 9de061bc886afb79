"""Untrusted text stays text in every output ragguard renders (SECURITY.md, claim 1).

A hostile corpus (tests/security/hostile.py) goes into the question ids, questions, tags,
chunk ids, answers' sentences, error messages, the baseline's provenance and the settings;
then through the real renderers and writers: the PR comment, the job summary, report.md, the
terminal reports (which are the Actions log), JUnit XML, the step outputs and a whole
`ragguard ci` run against the fake GitHub.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from ci_fixtures import REPOSITORY
from fake_github import BOT_LOGIN, FakeGitHub, Repo
from github_fixtures import fast_settings
from hostile import (
    HOSTILE,
    LONG,
    OWN_TAGS,
    assert_inert_markdown,
    assert_no_workflow_command,
    workflow_command,
)

from compare_cases import CONFIG, head_results, results, unsupported, with_sentences
from ragguard.ci.collaborators import Collaborators
from ragguard.ci.evaluate import evaluate_config
from ragguard.ci.glue import run_ci
from ragguard.ci.outputs import action_outputs, output_block, parse_output_file, write_outputs
from ragguard.ci.settings import CiSettings
from ragguard.compare import Comparison, Provenance, compare
from ragguard.config.sections.gate import GateRules
from ragguard.github import GitHubClient, Outcome, comment_marker, read_event
from ragguard.github.comments import outcome_of
from ragguard.render import (
    comparison_terminal,
    explanation_text,
    markdown_report,
    printable,
    render_comment,
    render_summary,
    terminal_report,
)
from ragguard.render.junit import comparison_junit
from ragguard.results.model import Results
from ragguard.testset.model import Question

SUITE = "orders-api"
PROJECT = Path(__file__).resolve().parents[2]
TEXTS = [*HOSTILE.values(), LONG]


def hostile_questions() -> tuple[Question, ...]:
    return tuple(
        Question(
            f"q{index}-{text}"[:200],
            text,
            {f"chunk-{text}"[:100]: 2, "auth": 1},
            tags=(text[:60], "plain"),
            critical=index % 3 == 0,
        )
        for index, text in enumerate(TEXTS)
    )


def hostile_runs() -> tuple[Results, Results]:
    """A baseline and a head that disagree on everything that has a text to show."""
    questions = hostile_questions()
    added = Question(f"added-{HOSTILE['mention']}", HOSTILE["img"], {HOSTILE["issue"]: 2})
    config = {**CONFIG, "faithfulness": {"method": HOSTILE["img"], "threshold": 0.75}}
    baseline = with_sentences(results(questions=questions, suite=SUITE), {})
    errors = {q.id: text + " " + LONG for q, text in zip(questions[::4], TEXTS, strict=False)}
    sentences = {
        q.id: [
            unsupported(TEXTS[i % len(TEXTS)], TEXTS[(i + 3) % len(TEXTS)], 0.1),
            unsupported(LONG, HOSTILE["link"], 0.2, 1),
        ]
        for i, q in enumerate(questions)
    }
    head = head_results(
        {q.id: 0 for q in questions[1::2]},
        questions=(*questions[1:], added),
        errors=errors,
        suite=SUITE,
        config=config,
    )
    return baseline, with_sentences(head, sentences)


def hostile_comparison() -> Comparison:
    baseline, head = hostile_runs()
    provenance = Provenance(
        commit=HOSTILE["set_output"], branch=HOSTILE["mention"], created_at=HOSTILE["issue"]
    )
    return compare(baseline, head, GateRules(max_error_rate=1.0), provenance=provenance)


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    return hostile_comparison()


def test_the_corpus_reaches_every_section_of_the_report(comparison: Comparison) -> None:
    """Guard for the tests below: the hostile text is really in what they render."""
    assert len({q.id for q in hostile_questions()}) == len(TEXTS)  # no id lost to the cut
    kinds = {q.kind for q in comparison.questions}
    assert {"newly_failing", "added", "removed"} <= kinds
    assert any(q.rank_change for q in comparison.questions)
    assert any(q.hallucinated for q in comparison.questions)
    assert any(q.error for q in comparison.questions)
    assert comparison.setting_diffs and comparison.tags
    assert any(q.critical for q in comparison.of_kind("newly_failing"))


def test_the_comment_renders_the_corpus_as_text(comparison: Comparison) -> None:
    text = render_comment(comparison)
    assert text.startswith(comment_marker(SUITE))
    assert text.count(comment_marker(SUITE)) == 1 and text.count("<!--") == 1
    assert_inert_markdown(text, markers=1)
    assert LONG not in text


def test_the_job_summary_renders_the_corpus_as_text(comparison: Comparison) -> None:
    text = render_summary(comparison)
    html = assert_inert_markdown(text, markers=1)
    assert "javascript:alert(1)" in html.replace("\\", "")  # shown, as text


def test_python_markdown_renders_the_corpus_as_text_too(comparison: Comparison) -> None:
    """A renderer other than GitHub's (python-markdown, as a site or a dashboard might use)
    opens no element from the corpus either (tests/test_render_escaping.py: and shows it
    without stray backslashes)."""
    import markdown

    for text in (render_comment(comparison), render_summary(comparison)):
        html = markdown.markdown(text, extensions=["tables"])
        tags = {name.lower() for name in re.findall(r"</?([A-Za-z][A-Za-z0-9]*)", html)}
        assert tags <= OWN_TAGS, f"tags from the input: {sorted(tags - OWN_TAGS)}"
        assert "<a " not in html and "<img" not in html and html.count("<!--") == 1
        assert re.search(r"(?<![\w`])@(?!\u200b)[A-Za-z0-9]", html) is None


def test_report_md_renders_the_corpus_as_text() -> None:
    _, head = hostile_runs()
    assert_inert_markdown(markdown_report(head), markers=0, details=1)


def test_terminal_reports_hold_no_workflow_command_and_no_control_character(
    comparison: Comparison,
) -> None:
    _, head = hostile_runs()
    question = head.questions[0]
    for text in (
        comparison_terminal(comparison),
        terminal_report(head),
        explanation_text(question.id, question.question, _explanation()),
    ):
        assert_no_workflow_command(text)
    assert "newly failing" in comparison_terminal(comparison)


def _explanation():
    from ragguard.metrics.retrieval import explain

    return explain([HOSTILE["set_output"], HOSTILE["legacy"]], {HOSTILE["stop"]: 2}, 2)


@pytest.mark.parametrize("key", sorted(HOSTILE))
def test_printable_breaks_workflow_commands_wherever_it_sits(key: str) -> None:
    text = printable(HOSTILE[key])
    for line in (text, f"  {text}", f"prefix {text}", f"{text}{text}"):
        assert not workflow_command(line), line
    assert "\n" not in text and "\r" not in text


def test_the_corpus_would_be_commands_without_printable() -> None:
    """The check can fail: raw, these lines are commands to the runner."""
    raw = [HOSTILE["set_output"], HOSTILE["add_mask"], HOSTILE["legacy"], HOSTILE["stop"]]
    assert all(workflow_command(line) for line in raw)


def test_junit_xml_keeps_the_corpus_inside_its_elements(comparison: Comparison) -> None:
    root = ET.fromstring(comparison_junit(comparison))
    [suite] = root.findall("testsuite")
    names = [case.get("name") for case in suite.findall("testcase")]
    expected = [
        "gate.error_rate",
        "gate.comparable_settings",
        "gate.critical_questions",
        *(f"metric.{m.name}" for m in comparison.metrics),
        *(f"question.{q.id}" for q in comparison.questions if q.kind != "removed"),
    ]
    # exactly one testcase per check, named by the id as it was (less what XML cannot hold)
    assert names == [re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", "", n) for n in expected]
    assert suite.get("tests") == str(len(expected))
    assert f"question.q1-{HOSTILE['img']}" in names
    messages = " ".join(e.get("message", "") for e in suite.iter() if e.tag in ("error", "failure"))
    assert HOSTILE["img"] in messages  # an error message, carried as an attribute


def test_step_outputs_parse_back_to_exactly_the_keys_written(tmp_path: Path) -> None:
    values = {f"out-{key}": text for key, text in HOSTILE.items()}
    values["long"] = LONG
    values["looks-like-a-delimiter"] = "ragguard_0123456789abcdef\nname=evil\nx<<EOF"
    path = tmp_path / "github-output"
    path.write_text("earlier=value\n")
    write_outputs(path, values)
    runner_view = {name: re.sub(r"\r\n?", "\n", value) for name, value in values.items()}
    written = path.read_bytes().decode("utf-8")
    assert parse_output_file(written) == {"earlier": "value", **runner_view}


def test_an_output_block_never_ends_inside_its_value() -> None:
    value = "\n".join(f"ragguard_{i:016x}" for i in range(50)) + "\nEOF"
    block = output_block("metrics", value)
    delimiter = block.split("\n", 1)[0].split("<<", 1)[1]
    assert delimiter not in value.split("\n")
    assert parse_output_file(block) == {"metrics": value}


def test_action_outputs_of_the_hostile_comparison_are_one_key_each(
    comparison: Comparison, tmp_path: Path
) -> None:
    outputs = action_outputs(
        comparison,
        results_path=tmp_path / "results.json",
        comment_url=None,
        comment_id=None,
        status="failure",
    )
    path = tmp_path / "github-output"
    write_outputs(path, outputs)
    parsed = parse_output_file(path.read_text())
    assert parsed == outputs
    assert set(json.loads(parsed["metrics"])) == {
        m.name for m in (*comparison.metrics, *comparison.costs)
    }


# ----- a whole `ragguard ci` run on a hostile system's answers -----------------------------


def _hostile_suite(root: Path) -> Path:
    """A recorded suite whose questions, ids, tags, chunk ids, answers and errors are hostile;
    eval/good.jsonl answers every question well, eval/run.jsonl (the PR's) badly."""
    (root / "eval").mkdir(parents=True)
    questions = hostile_questions()[:-1]  # the 80 KB one is covered above; keep this fast
    testset = [
        {"id": q.id, "question": q.question, "relevant": list(q.relevant), "tags": list(q.tags)}
        for q in questions
    ]
    (root / "eval" / "testset.yaml").write_text(json.dumps(testset), encoding="utf-8")
    good, bad = [], []
    for index, q in enumerate(questions):
        relevant = [{"id": chunk, "text": "Tokens expire after an hour."} for chunk in q.relevant]
        good.append({"id": q.id, "retrieved": relevant, "answer": "Tokens expire after an hour."})
        record = {
            "id": q.id,
            "retrieved": [{"id": "unrelated", "text": "Rate limits apply."}, *relevant[::-1]],
            "answer": f"{TEXTS[index]}. Tokens never expire.",
        }
        bad.append({"id": q.id, "error": TEXTS[index]} if index % 5 == 4 else record)
    for name, records in (("good.jsonl", good), ("run.jsonl", bad)):
        text = "".join(json.dumps(r) + "\n" for r in records)
        (root / "eval" / name).write_text(text, encoding="utf-8")
    (root / "ragguard.yml").write_text(
        f"suite: {SUITE}\ntestset: eval/testset.yaml\nsystem:\n  recorded: eval/run.jsonl\n"
        "metrics: [hit_rate@1, mrr, faithfulness]\ngate: {max_error_rate: 1.0}\n"
    )
    return root


def _ci(fake: FakeGitHub, root: Path, event: str, payload: dict, log: list[str]):
    settings = CiSettings(
        github=fast_settings(fake, event_name=event, comment_author=BOT_LOGIN),
        event=read_event(event, payload),
        config=root / "ragguard.yml",
        results_dir=root / "ragguard-results",
        output_file=root / "github-output",
        summary_file=root / "step-summary.md",
    )
    collaborators = Collaborators(
        github=GitHubClient(settings.github),
        evaluate=evaluate_config,
        commit_time=lambda sha: None,
        head_commit=lambda: None,
        rerun=lambda *args: None,
        log=log.append,
    )
    return run_ci(settings, collaborators)


@pytest.mark.e2e
def test_a_ci_run_posts_logs_and_outputs_the_corpus_as_text(
    fake: FakeGitHub, fake_repo: Repo, tmp_path: Path
) -> None:
    root = _hostile_suite(tmp_path / "repo")
    repository = {"full_name": REPOSITORY, "default_branch": "main"}
    run_file = root / "eval" / "run.jsonl"
    hostile_run = run_file.read_text()
    run_file.write_text((root / "eval" / "good.jsonl").read_text())
    push = {
        "ref": "refs/heads/main",
        "after": fake_repo.refs["heads/main"],
        "repository": repository,
    }
    assert _ci(fake, root, "push", push, []).comparison.verdict == "pass"
    run_file.write_text(hostile_run)
    (root / "github-output").unlink()
    (root / "step-summary.md").unlink()
    fake.branch_from(fake_repo, "feature", "main")
    fake.commit(fake_repo, "feature", {"a.txt": b"x"}, "Change")
    pull = fake.add_pull(fake_repo, "feature")
    payload = {
        "number": pull.number,
        "pull_request": {
            "number": pull.number,
            "head": {"sha": pull.head_sha, "ref": "feature", "repo": {"full_name": REPOSITORY}},
            "base": {"ref": "main", "repo": {"full_name": REPOSITORY}},
        },
        "repository": repository,
    }
    log: list[str] = []

    outcome = _ci(fake, root, "pull_request", payload, log)

    assert outcome.comparison.of_kind("newly_failing")
    [comment] = [c for c in fake_repo.comments.values() if c.issue_number == pull.number]
    assert outcome.comment is not None and comment.body.startswith(comment_marker(SUITE))
    # two HTML comments, both ragguard's: the marker and the hidden outcome line under it
    assert outcome_of(comment.body) == Outcome("fail", "failure")
    assert_inert_markdown(comment.body, markers=2)
    assert "::set-output" in comment.body.replace("\\", "").replace("\u200b", "")  # shown
    assert_inert_markdown((root / "step-summary.md").read_text(), markers=1)
    assert_no_workflow_command("\n".join(log))
    assert any("set-output" in line for line in log)  # the corpus did reach the log
    outputs = parse_output_file((root / "github-output").read_text())
    declared = yaml.safe_load((PROJECT / "action.yml").read_text())["outputs"]
    assert {"verdict", "metrics", "comment-id"} <= set(outputs) <= set(declared)
    assert outputs["comment-id"] == str(outcome.comment.id)
    status = fake.latest_statuses(fake_repo, pull.head_sha)[f"ragguard/{SUITE}"]
    assert "\n" not in status.description and len(status.description) <= 140
