"""`ragguard testset draft` (cli/commands/testset.py, pipeline/drafting.py): drafting against
the local OpenAI-compatible test server, replies in a real model's style (good, invented
quotes, malformed); offline extractive drafts, deterministic; the estimate, with no call;
appending to the test set; a drafted test set scored by `ragguard score`."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from fake_openai import FakeOpenAI

sys.path.insert(0, str(Path(__file__).parent / "testset" / "drafting"))
from pdf_bytes import tiny_pdf

from ragguard.cli.app import cli
from ragguard.demo.pipeline import DOCS_DIR, TESTSET_PATH
from ragguard.testset.drafting.checks import squeezed
from ragguard.testset.load import load_testset

# The server's reply to each request in turn (concurrency 1), then "ok". The jobs' kinds go
# single-fact, multi-hop, comparison, unanswerable, follow-up, and again; so kept are jobs 0
# (single-fact), 1 (multi-hop, fenced), 9 (follow-up), 13 (unanswerable), 14 (follow-up), 15
# (single-fact); quotes not found: 2, 6, 10; malformed: 3, 4, 5, 7, 11, 12; failed: 8.
SCRIPT = [
    "ok",
    "fenced",
    "draft_invented",
    "non_json",
    "draft_missing",
    "draft_other_doc",
    "draft_ellipsis",
    "draft_wrong_type",
    "500",
    "ok",
    "draft_curly",
    "draft_list",
    "truncated",
]


def run(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["testset", "draft", *map(str, args)])
    assert "Traceback" not in result.stderr, result.stderr
    return result.exit_code, result.stdout, result.stderr


def config(folder: Path, base_url: str, testset: Path = TESTSET_PATH) -> Path:
    (folder / "run.jsonl").write_text("")
    path = folder / "ragguard.yml"
    judge = {"base_url": base_url, "model": "fake-model", "max_retries": 0, "concurrency": 1}
    settings = {
        "suite": "drafting",
        "testset": str(testset),
        "corpus": str(DOCS_DIR),
        "system": {"recorded": "run.jsonl"},
        "judge": {**judge, "cache": str(folder / "cache")},
    }
    path.write_text(yaml.safe_dump(settings), encoding="utf-8")
    return path


def entries(path: Path) -> list[dict]:
    return [e for e in yaml.safe_load(path.read_text(encoding="utf-8")) if "status" in e]


def quotes_of(entry: dict) -> list[dict]:
    labels = list(entry.get("relevant") or [])
    labels += [label for hop in entry.get("hops") or [] for label in hop["relevant"]]
    labels += [label for turn in entry.get("turns") or [] for label in turn["relevant"]]
    return labels


def assert_quotes_verbatim(path: Path) -> None:
    for entry in entries(path):
        for label in quotes_of(entry):
            text = (DOCS_DIR / label["doc"]).read_text(encoding="utf-8")
            assert squeezed(label["quote"]) in squeezed(text), (entry["id"], label)


def test_drafts_from_the_judge_keep_only_quotes_that_exist(tmp_path: Path) -> None:
    out = tmp_path / "drafts.yaml"
    with FakeOpenAI(script=SCRIPT, default="ok") as server:
        path = config(tmp_path, server.base_url)
        code, stdout, stderr = run("--count", 16, "--out", out, "-c", path)
        calls = server.calls
    assert code == 0, stderr
    assert stdout.splitlines() == [
        "drafted 6 questions (2 single-fact, 1 multi-hop, 1 unanswerable, 2 follow-up), dropped 10: "
        "3 quotes not found in the document, 0 near-duplicates, 6 malformed replies, 1 failed "
        "judge calls",
        f"written to {out} with status: draft; review each before it counts",
    ]
    assert calls == 16
    assert "ragguard: warning: a drafting call failed: judge: HTTP 500" in stderr
    assert_quotes_verbatim(out)
    drafted = entries(out)
    assert len(drafted) == 6
    assert {e["source"] for e in drafted} == {"judge:fake-model"}
    testset = load_testset(out)
    assert len(testset.drafts) == len(testset.questions) == 8  # a follow-up has two turns


def test_the_estimate_makes_no_call_and_counts_cached_replies(tmp_path: Path) -> None:
    with FakeOpenAI(default="ok") as server:
        path = config(tmp_path, server.base_url)
        code, stdout, _ = run("--count", 4, "--kinds", "single-fact", "--estimate", "-c", path)
        assert (code, server.calls) == (0, 0)
        assert stdout.startswith("estimate: 4 drafts, 4 judge calls to make (0 replies cached)")
        assert (
            run("--count", 4, "--kinds", "single-fact", "--out", tmp_path / "d.yaml", "-c", path)[0]
            == 0
        )
        assert server.calls == 4
        code, stdout, _ = run("--count", 4, "--kinds", "single-fact", "--estimate", "-c", path)
        assert server.calls == 4
    assert stdout.startswith("estimate: 4 drafts, 0 judge calls to make (4 replies cached)")
    assert not (tmp_path / "d2.yaml").exists()


def test_offline_drafts_are_the_same_bytes_for_the_same_seed(tmp_path: Path) -> None:
    outputs = {}
    for name, seed in (("first", 3), ("again", 3), ("other", 4)):
        outputs[name] = tmp_path / f"{name}.yaml"
        code, stdout, stderr = run(
            "--offline", "--corpus", DOCS_DIR, "--count", 6, "--seed", seed, "--out", outputs[name]
        )
        assert code == 0, stderr
        assert stdout.startswith("offline extractive drafts: drafted 6 questions (6 single-fact)")
    assert outputs["first"].read_bytes() == outputs["again"].read_bytes()
    assert outputs["first"].read_bytes() != outputs["other"].read_bytes()
    assert_quotes_verbatim(outputs["first"])
    assert {e["source"] for e in entries(outputs["first"])} == {"offline-extractive"}


def test_offline_mode_says_which_kinds_need_the_judge(tmp_path: Path) -> None:
    code, _, stderr = run(
        "--offline",
        "--corpus",
        DOCS_DIR,
        "--kinds",
        "single-fact,multi-hop",
        "--out",
        tmp_path / "d.yaml",
    )
    assert code == 0
    assert stderr == (
        "ragguard: warning: offline extractive drafts: multi-hop need the judge; "
        "drafting single-fact only\n"
    )


def test_drafts_are_appended_after_the_test_sets_own_bytes(tmp_path: Path) -> None:
    testset = tmp_path / "testset.yaml"
    shutil.copy(TESTSET_PATH, testset)
    before = testset.read_bytes()
    code, stdout, _ = run("--offline", "--corpus", DOCS_DIR, "--testset", testset, "--count", 3)
    assert code == 0
    assert (
        stdout.splitlines()[1]
        == f"appended to {testset} with status: draft; review each before it counts"
    )
    assert testset.read_bytes().startswith(before)
    loaded = load_testset(testset)
    assert len(loaded.drafts) == 3
    assert len(loaded.questions) == len(load_testset(TESTSET_PATH).questions) + 3
    # the demo test set already asks these: drafting again drops them as near-duplicates
    code, stdout, _ = run("--offline", "--corpus", DOCS_DIR, "--testset", testset, "--count", 3)
    assert load_testset(testset).drafts[:3] == loaded.drafts


def _run_file(drafts: Path, run_file: Path) -> None:
    """A run whose system retrieves each question's quoted passage and answers with it."""
    lines = []
    for question in load_testset(drafts).questions:
        chunks = [
            {"id": f"{e.doc}#{n}", "doc": e.doc, "text": e.quote}
            for n, e in enumerate(question.evidence)
        ]
        answer = question.reference_answer or "The documentation does not say."
        lines.append(json.dumps({"id": question.id, "retrieved": chunks, "answer": answer}))
    run_file.write_text("\n".join(lines) + "\n")


def score(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["score", *map(str, args)])
    return result.exit_code, result.output


def test_a_drafted_test_set_round_trips_through_score(tmp_path: Path) -> None:
    drafts = tmp_path / "drafts.yaml"
    with FakeOpenAI(default="ok") as server:
        path = config(tmp_path, server.base_url)
        code, _, stderr = run("--count", 10, "--out", drafts, "-c", path)
    assert code == 0, stderr
    kinds = {e["kind"] for e in entries(drafts)}
    assert kinds == {"single-fact", "multi-hop", "comparison", "unanswerable", "follow-up"}
    run_file = tmp_path / "run.jsonl"
    _run_file(drafts, run_file)
    out = tmp_path / "results.json"
    code, output = score("--testset", drafts, "--run", run_file, "--include-drafts", "--out", out)
    assert code == 0, output
    results = json.loads(out.read_text())
    scored = {q["id"] for q in results["questions"]}
    assert scored == {q.id for q in load_testset(drafts).questions}
    assert len(scored) == 12  # ten drafts, the follow-up's two turns each a question
    assert results["summary"]["hit_rate@1"]["value"] == 1.0
    code, output = score("--testset", drafts, "--run", run_file, "--out", tmp_path / "no.json")
    assert code == 2 and "draft" in output  # drafts wait for review unless included
    assert not (tmp_path / "no.json").exists()


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ("--kinds", "trivia", "--offline"),
            "--kinds: unknown kind 'trivia'; choose from single-fact,",
        ),
        (
            ("--kinds", "multi-hop", "--offline"),
            "--kinds: offline extractive drafts are single-fact only",
        ),
        (
            ("--docs", "guides/*", "--offline"),
            "--docs: 'guides/*' matches none of the 15 documents",
        ),
        (("--out", "drafts.json", "--offline"), "--out: 'drafts.json': drafts are written as YAML"),
        ((), "--config: no judge endpoint is configured"),
    ],
)
def test_bad_options_are_one_line(
    tmp_path: Path, monkeypatch, args: tuple[str, ...], error: str
) -> None:
    monkeypatch.chdir(tmp_path)
    default_out = () if "--out" in args else ("--out", "d.yaml")
    code, stdout, stderr = run("--corpus", DOCS_DIR, *default_out, *args)
    assert (code, stdout) == (2, "")
    assert stderr.startswith(f"ragguard: error: {error}") and stderr.count("\n") == 1, stderr
    assert list(tmp_path.iterdir()) == []


def test_more_drafts_than_the_call_budget_is_refused_before_any_call(tmp_path: Path) -> None:
    with FakeOpenAI(default="ok") as server:
        path = config(tmp_path, server.base_url)
        text = path.read_text().replace("max_retries: 0", "max_retries: 0\n  max_calls: 3")
        path.write_text(text)
        code, stdout, stderr = run("--count", 4, "--out", tmp_path / "d.yaml", "-c", path)
        assert server.calls == 0
    assert (code, stdout) == (2, "")
    assert stderr == (
        f"ragguard: error: {path}: judge.max_calls: drafting needs 4 judge calls, more than "
        "max_calls = 3; raise judge.max_calls or lower --count\n"
    )


def test_html_and_pdf_documents_are_drafted_from_their_text(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "limits.html").write_text(
        "<html><body><h1>Limits</h1><p>Each API key may send <b>100 requests</b>\n"
        "per minute to the Orders API.</p><script>var x = 1;</script></body></html>"
    )
    (docs / "terms.pdf").write_bytes(tiny_pdf("Refunds are issued within 14 days of the request."))
    out = tmp_path / "drafts.yaml"
    code, stdout, stderr = run("--offline", "--corpus", docs, "--out", out, "--count", 5)
    assert code == 0, stderr
    assert stdout.startswith("offline extractive drafts: drafted 2 questions (2 single-fact)")
    quotes = {label["doc"]: label["quote"] for e in entries(out) for label in quotes_of(e)}
    assert quotes == {
        "limits.html": "Each API key may send 100 requests per minute to the Orders API.",
        "terms.pdf": "Refunds are issued within 14 days of the request.",
    }


def test_a_judge_that_answers_nothing_is_exit_3_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "d.yaml"
    with FakeOpenAI(default="401") as server:
        path = config(tmp_path, server.base_url)
        code, stdout, stderr = run("--count", 3, "--kinds", "single-fact", "--out", out, "-c", path)
        assert server.calls == 1  # a 401 stops every further call
    assert code == 3
    assert stdout.startswith("drafted 0 questions (none), dropped 3: 0 quotes not found")
    assert stdout.endswith(", 3 failed judge calls\n")
    lines = stderr.splitlines()
    assert lines[0].startswith("ragguard: warning: a drafting call failed: judge: HTTP 401")
    assert lines[-1] == (
        "ragguard: error: the judge answered none of the 3 drafting requests; see the "
        "warnings above and the judge: section"
    )
    assert not out.exists()


def test_drafts_appended_to_a_linked_shared_test_set_keep_the_link_and_its_mode(
    tmp_path: Path,
) -> None:
    shared, repo = tmp_path / "shared", tmp_path / "repo"
    shared.mkdir(), repo.mkdir()
    shutil.copy(TESTSET_PATH, shared / "testset.yaml")
    os.chmod(shared / "testset.yaml", 0o664)  # the team's group may edit it
    link = repo / "testset.yaml"
    os.symlink("../shared/testset.yaml", link)
    code, _, _ = run("--offline", "--corpus", DOCS_DIR, "--testset", link, "--count", 3)
    assert code == 0
    assert link.is_symlink() and os.readlink(link) == "../shared/testset.yaml"
    assert len(load_testset(shared / "testset.yaml").drafts) == 3
    assert stat.S_IMODE((shared / "testset.yaml").stat().st_mode) == 0o664
