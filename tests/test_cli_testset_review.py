"""``ragguard testset review`` driven as a reviewer drives it: the real process under a
pseudo-terminal (pexpect), keys typed, an EDITOR script that edits the draft, and the test
set's bytes checked after each session."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect
import pytest
from tests.conftest import _console_script

PROMPT = r"\[a\]ccept / \[e\]dit / \[r\]eject / \[s\]kip / \[q\]uit"

TESTSET = """\
# Orders API questions; keep this comment.
- id: q1
  question: How do I authenticate?   # reviewed long ago
  relevant: [auth]

- id: d1
  question: How many requests per minute?
  relevant:
    - {doc: limits.md, quote: 100 requests per minute}
  reference_answer: One hundred.
  kind: single-hop
  source: limits.md
  status: draft   # drafted

- id: d2
  question: What does page_size do?
  relevant: [{doc: pages.md, quote: at most 50 orders}]
  status: draft
- id: d3
  question: Is there a sandbox?
  relevant: [sandbox]
  status: "draft"
"""

LIMITS = "# Limits\n\nEach API key may send up to 100 requests per minute; then 429.\n"
PAGES = "# Pages\n\nA page holds at most 50 orders.\n"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "testset.yaml").write_text(TESTSET)
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "limits.md").write_text(LIMITS)
    (tmp_path / "corpus" / "pages.md").write_text(PAGES)
    (tmp_path / "run.jsonl").write_text('{"id": "q1", "retrieved": ["auth"]}\n')
    (tmp_path / "ragguard.yml").write_text(
        "suite: orders\ntestset: testset.yaml\ncorpus: corpus\nsystem:\n  recorded: run.jsonl\n"
    )
    return tmp_path


def _editor(folder: Path, body: str) -> Path:
    """An EDITOR: a script that runs ``body`` (Python) on the file it is given."""
    script = folder / "editor.py"
    script.write_text(
        f"#!{sys.executable}\nimport sys\npath = sys.argv[1]\n"
        "text = open(path).read()\n" + body + "open(path, 'w').write(text)\n"
    )
    script.chmod(0o755)
    return script


def _review(folder: Path, *args: str, editor: Path | None = None) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if k not in ("VISUAL", "EDITOR")}
    if editor is not None:
        env["EDITOR"] = str(editor)
    child = pexpect.spawn(
        _console_script()[0],
        ["testset", "review", *args],
        cwd=str(folder),
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 200),
    )
    return child


def _finish(child: pexpect.spawn) -> str:
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return child.before


def test_accept_reject_and_skip_change_only_their_entries(suite: Path):
    child = _review(suite)
    child.expect("draft 1 of 3")
    child.expect(r"id: +d1")
    child.expect(r"kind: +single-hop")
    child.expect(r"source: +limits\.md")
    child.expect(r"answer: +One hundred\.")
    child.expect(r"Each API key may send up to »100 requests per minute«; then 429\.")
    child.expect(PROMPT)
    child.sendline("a")
    child.expect("draft 2 of 3")
    child.expect(r"A page holds »at most 50 orders«\.")
    child.expect(PROMPT)
    child.sendline("r")
    child.expect("draft 3 of 3")
    child.expect(r"id: +d3")
    child.expect(PROMPT)
    child.sendline("s")
    out = _finish(child)
    assert "1 accepted, 0 edited, 1 rejected, 1 skipped; 1 draft left" in out
    expected = TESTSET.replace("status: draft   # drafted", "status: reviewed   # drafted")
    start = expected.index("- id: d2")
    expected = expected[:start] + expected[expected.index("- id: d3") :]
    assert (suite / "testset.yaml").read_text() == expected


def test_quit_leaves_the_file_as_it_was(suite: Path):
    child = _review(suite)
    child.expect(PROMPT)
    child.sendline("x")
    child.expect("type a, e, r, s or q")
    child.expect(PROMPT)
    child.sendline("q")
    out = _finish(child)
    assert "0 accepted, 0 edited, 0 rejected, 0 skipped; 3 drafts left" in out
    assert (suite / "testset.yaml").read_text() == TESTSET


def test_an_edit_is_written_and_the_draft_shown_again(suite: Path):
    editor = _editor(suite, "text = text.replace('How many requests', 'How many calls')\n")
    child = _review(suite, "testset.yaml", editor=editor)
    child.expect(PROMPT)
    child.sendline("e")
    child.expect("draft 1 of 3")  # the edited draft, shown again to accept
    child.expect("How many calls per minute")
    child.expect(PROMPT)
    child.sendline("a")
    child.expect(PROMPT)
    child.sendline("q")
    out = _finish(child)
    assert "1 accepted, 1 edited" in out
    expected = TESTSET.replace("How many requests", "How many calls").replace(
        "status: draft   # drafted", "status: reviewed   # drafted"
    )
    assert (suite / "testset.yaml").read_text() == expected


def test_an_invalid_edit_is_shown_and_asked_again_never_written(suite: Path):
    editor = _editor(suite, "text = text.replace('status: draft', 'status: approved')\n")
    child = _review(suite, editor=editor)
    child.expect(PROMPT)
    child.sendline("e")
    child.expect(r"not saved: .*testset\.yaml:\d+: status: expected draft or reviewed")
    child.expect(PROMPT)
    child.sendline("r")
    child.expect("draft 2 of 3")
    child.expect(PROMPT)
    child.sendline("q")
    _finish(child)
    text = (suite / "testset.yaml").read_text()
    assert "approved" not in text and "- id: d1" not in text
    assert text.startswith("# Orders API questions; keep this comment.\n- id: q1\n")


def test_without_an_editor_the_reviewer_is_told_and_asked_again(suite: Path):
    child = _review(suite)
    child.expect(PROMPT)
    child.sendline("e")
    child.expect("neither VISUAL nor EDITOR is set")
    child.expect(PROMPT)
    child.sendline("q")
    _finish(child)
    assert (suite / "testset.yaml").read_text() == TESTSET


def test_review_needs_a_terminal(suite: Path, ragguard_process):
    done = ragguard_process("testset", "review", cwd=suite)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("ragguard: error: stdin: review asks what to do")
    assert (suite / "testset.yaml").read_text() == TESTSET


def test_without_a_test_set_or_a_config_it_says_what_to_give(tmp_path, monkeypatch, cli_error):
    monkeypatch.chdir(tmp_path)
    cli_error(
        ["testset", "review"], "ragguard.yml:", "not found", "ragguard testset review TESTSET"
    )


def test_visual_comes_before_editor(monkeypatch):
    from ragguard.cli.commands.testset_review import _editor_command

    monkeypatch.setenv("VISUAL", "code --wait")
    monkeypatch.setenv("EDITOR", "vi")
    assert _editor_command() == ["code", "--wait"]
    monkeypatch.setenv("VISUAL", " ")
    assert _editor_command() == ["vi"]
