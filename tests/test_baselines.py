"""Local = CI: compare reads ./ragguard.yml as run does, reads the baseline document CI
stores (ragguard.baseline/1), and `ragguard baseline fetch` gets it from the data branch."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from tests.conftest import assert_input_error

from compare_cases import BASELINE_GIT, head_results, results
from ragguard.compare.baseline import BASELINE_SCHEMA, load_baseline
from ragguard.github.databranch import baseline_document, encode_document
from ragguard.results.io import write_results

SUITE_YAML = """\
suite: orders-api
testset: testset.yaml
system: {recorded: run.jsonl}
metrics: [hit_rate@1, hit_rate@3, mrr, ndcg@3]
gate:
  metrics:
    mrr: {max_drop: 0.01, alpha: off}
"""
TESTSET = "- id: q1\n  question: Q?\n  relevant: [a]\n"


def _stored_document(saved_at: str = "2026-11-28T10:00:00+00:00") -> bytes:
    data = "".join(results().json_chunks()).encode()
    return encode_document(
        baseline_document(
            "orders-api", "main", BASELINE_GIT["sha"], data, saved_at, "2026-11-28T09:00:00+00:00"
        )
    )


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    """A suite folder whose gate is stricter than the defaults: mrr may not drop at all."""
    (tmp_path / "ragguard.yml").write_text(SUITE_YAML, encoding="utf-8")
    (tmp_path / "testset.yaml").write_text(TESTSET, encoding="utf-8")
    (tmp_path / "run.jsonl").write_text('{"id": "q1", "retrieved": ["a"]}\n', encoding="utf-8")
    write_results(results(), tmp_path / "baseline.json")
    write_results(head_results({"retry-429": 2}), tmp_path / "results.json")
    return tmp_path


def test_compare_reads_the_local_ragguard_yml_like_run(ragguard_process, suite_dir: Path) -> None:
    here = ragguard_process("compare", "baseline.json", "results.json", cwd=suite_dir)
    assert here.stdout.endswith("gate rules: ragguard.yml\n")
    explicit = ragguard_process(
        "compare", "baseline.json", "results.json", "-c", "ragguard.yml", cwd=suite_dir
    )
    assert here.returncode == explicit.returncode == 1  # mrr dropped: fails under this gate
    assert here.stdout == explicit.stdout and here.stderr == ""
    elsewhere = suite_dir / "elsewhere"
    elsewhere.mkdir()
    defaults = ragguard_process("compare", "../baseline.json", "../results.json", cwd=elsewhere)
    assert defaults.returncode == 0  # no ragguard.yml here: the documented defaults
    assert defaults.stdout.endswith("gate rules: the defaults (no ragguard.yml here)\n")


def test_a_stored_baseline_document_compares_with_its_provenance(tmp_path: Path) -> None:
    path = tmp_path / "stored.json"
    path.write_bytes(_stored_document())
    stored = load_baseline(path)
    assert json.loads(path.read_text())["schema"] == BASELINE_SCHEMA
    assert stored.results.suite == "orders-api"
    provenance = stored.provenance(head_results())
    assert provenance is not None
    assert provenance.commit == BASELINE_GIT["sha"] and provenance.branch == "main"
    assert provenance.created_at == "2026-11-28T09:00:00+00:00"  # the commit's time
    assert provenance.age == "2 days"
    plain = tmp_path / "plain.json"
    write_results(results(), plain)
    assert load_baseline(plain).provenance(head_results()) is None


def test_compare_accepts_the_stored_document(ragguard_process, tmp_path: Path) -> None:
    (tmp_path / "stored.json").write_bytes(_stored_document())
    write_results(head_results(), tmp_path / "results.json")
    done = ragguard_process(
        "compare", "stored.json", "results.json", "--markdown", "comment.md", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    comment = (tmp_path / "comment.md").read_text(encoding="utf-8")
    assert "Baseline: commit 1f2e3d4c5b6a on main" in comment


def test_a_stored_document_without_results_is_a_one_line_error(
    ragguard_process, tmp_path: Path
) -> None:
    (tmp_path / "stored.json").write_text(json.dumps({"schema": BASELINE_SCHEMA}))
    write_results(head_results(), tmp_path / "results.json")
    done = ragguard_process("compare", "stored.json", "results.json", cwd=tmp_path)
    assert_input_error(done.returncode, done.stderr, "stored.json", "results", "fetch it again")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


def _clone_with(tmp_path: Path, latest: bytes) -> Path:
    """A clone whose origin has a data branch as the action writes it, ``latest`` the
    newest baseline of orders-api on main."""
    origin = tmp_path / "origin"
    origin.mkdir()
    _git(origin, "init", "-q", "-b", "main")
    (origin / "README").write_text("code\n")
    _git(origin, "add", ".")
    _git(origin, "commit", "-qm", "code")
    _git(origin, "checkout", "-q", "--orphan", "ragguard-data")
    _git(origin, "rm", "-rqf", ".")
    (origin / "main" / "orders-api").mkdir(parents=True)
    (origin / "main" / "orders-api.json").write_bytes(latest)
    snapshot = origin / "main" / "orders-api" / f"{BASELINE_GIT['sha']}.json"
    snapshot.write_bytes(_stored_document("2026-11-27T00:00:00+00:00"))
    _git(origin, "add", ".")
    _git(origin, "commit", "-qm", "baselines")
    _git(origin, "checkout", "-q", "main")
    _git(tmp_path, "clone", "-q", str(origin), "work")
    return tmp_path / "work"


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    return _clone_with(tmp_path, _stored_document())


def test_baseline_fetch_gets_the_newest_of_a_branch(ragguard_process, clone: Path) -> None:
    done = ragguard_process("baseline", "fetch", "--suite", "orders-api", cwd=clone)
    assert done.returncode == 0, done.stderr
    assert "baseline of orders-api: 1f2e3d4c5b6a on main" in done.stdout
    assert (clone / "baseline.json").read_bytes() == _stored_document()
    write_results(head_results(), clone / "results.json")
    compared = ragguard_process("compare", "baseline.json", "results.json", cwd=clone)
    assert compared.returncode == 0, compared.stderr


def test_baseline_fetch_gets_a_commits_baseline_by_prefix(ragguard_process, clone: Path) -> None:
    done = ragguard_process(
        "baseline", "fetch", "--suite", "orders-api", "--commit", "1f2e3d", "--out", "b.json",
        cwd=clone,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (clone / "b.json").read_bytes() == _stored_document("2026-11-27T00:00:00+00:00")


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--suite", "other"], ["origin/ragguard-data:main/other.json", "--suite"]),
        (["--suite", "orders-api", "--commit", "abc"], ["--commit", "none"]),
        (
            ["--suite", "orders-api", "--data-branch", "nope"],
            ["origin/nope:", "no baseline stored yet: origin has no branch nope"],
        ),
        (
            ["--suite", "orders-api", "--remote", "upstream"],
            ["--remote:", "this checkout has no git remote 'upstream': add it"],
        ),
        (
            ["--suite", "orders-api", "--remote", "/nowhere/repo.git"],
            ["--remote:", "/nowhere/repo.git is not a git repository git can read"],
        ),
        ([], ["ragguard.yml", "--suite"]),
    ],
)
def test_baseline_fetch_failures_are_one_line(
    ragguard_process, clone: Path, args: list[str], fragments: list[str]
) -> None:
    done = ragguard_process("baseline", "fetch", *args, cwd=clone)
    assert done.stdout == ""
    assert_input_error(done.returncode, done.stderr, *fragments)
    assert not (clone / "baseline.json").exists()


def test_baseline_fetch_without_a_remote_says_there_is_none(ragguard_process, clone) -> None:
    _git(clone, "remote", "remove", "origin")
    done = ragguard_process("baseline", "fetch", "--suite", "orders-api", cwd=clone)
    assert done.stderr == (
        "ragguard: error: --remote: this checkout has no git remote 'origin': add it "
        "(git remote add origin URL) or pass --remote with the repository's URL\n"
    )
    assert "repository exists" not in done.stderr


def test_baseline_fetch_takes_the_remote_s_url(ragguard_process, clone: Path) -> None:
    origin = str(clone.parent / "origin")
    done = ragguard_process(
        "baseline", "fetch", "--suite", "orders-api", "--remote", origin, cwd=clone
    )
    assert done.returncode == 0, done.stderr
    assert (clone / "baseline.json").read_bytes() == _stored_document()


def test_baseline_fetch_without_credentials_says_so(clone: Path, monkeypatch) -> None:
    """A remote that asks for a login git cannot give (no token, no prompt in CI)."""
    import http.server
    import threading

    from ragguard.core.errors import InputError
    from ragguard.github.fetch import fetch_baseline

    class AskForLogin(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), AskForLogin)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    url = f"http://127.0.0.1:{server.server_address[1]}/team/repo.git"
    try:
        with pytest.raises(InputError) as caught:
            fetch_baseline(clone, "orders-api", remote=url)
    finally:
        server.shutdown()
    assert str(caught.value).startswith(f"{url}/ragguard-data: git has no credentials for {url}")
    assert "give git a token for the repository" in str(caught.value)


_WHOLE = _stored_document()


@pytest.mark.parametrize(
    ("stored", "fragments"),
    [
        (_WHOLE[: len(_WHOLE) // 2], ["stored baseline is not JSON", "orders-api.json:"]),
        (b"\xff\xfe" + _WHOLE[2:], ["orders-api.json:1:", "not UTF-8 (byte 0xff)"]),
        (_WHOLE.replace(b'"suite":', b'"suit":', 1), ["suite: missing"]),
        (b'{"schema": "ragguard.results/1"}', ["testset", "missing"]),
    ],
    ids=["cut-in-half", "not-utf8", "results-incomplete", "not-a-results-file"],
)
def test_a_damaged_stored_baseline_is_refused_before_anything_is_written(
    ragguard_process, tmp_path: Path, stored: bytes, fragments: list[str]
) -> None:
    """#31: the fetched bytes are checked whole before --out is written."""
    work = _clone_with(tmp_path, stored)
    done = ragguard_process("baseline", "fetch", "--suite", "orders-api", cwd=work)
    assert done.stdout == ""
    assert_input_error(
        done.returncode, done.stderr, "origin/ragguard-data:main/orders-api.json",
        "run the action on the target branch again", *fragments,
    )  # fmt: skip
    assert sorted(path.name for path in work.iterdir()) == [".git", "README"]


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--remote", "--upload-pack=touch {pwned}"),
        ("--remote", "-c core.sshCommand=touch {pwned}"),
        ("--data-branch", "--upload-pack=touch {pwned}"),
        ("--branch", "--output={pwned}"),
        ("--data-branch", "x:refs/heads/main"),
    ],
)
def test_baseline_fetch_never_hands_git_an_option(
    ragguard_process, clone: Path, option: str, value: str
) -> None:
    pwned = clone.parent / "pwned"
    given = value.format(pwned=pwned)
    done = ragguard_process(
        "baseline", "fetch", "--suite", "orders-api", f"{option}={given}", cwd=clone
    )
    assert_input_error(done.returncode, done.stderr, option)
    assert not pwned.exists()
    assert not (clone / "baseline.json").exists()


def test_a_value_that_slips_past_the_check_still_reaches_git_as_a_name(clone: Path) -> None:
    """Below the check, git itself gets the remote after --end-of-options."""
    from ragguard.core.git import END_OF_OPTIONS, run_git

    pwned = clone.parent / "pwned"
    done = run_git("fetch", END_OF_OPTIONS, f"--upload-pack=touch {pwned}", cwd=clone)
    assert done is not None and done.returncode != 0
    assert not pwned.exists()
