"""The review walk (pipeline/review.py) with a scripted console: the interface the terminal
implements, handed in as the architecture's edges are."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ragguard.pipeline.review import Corpus, review_drafts

CONVERSATION = """\
- id: q1
  question: How do I authenticate?
  relevant: [auth]
- id: chat
  kind: conversation
  status: draft
  turns:
    - question: I bought a model X.
      relevant: [models]
    - question: How long is its warranty?
      relevant: [{doc: warranty.md, quote: two years}]
      reference_answer: Two years.
"""


class Scripted:
    """Answers from a list; edits with a function; keeps what was shown."""

    def __init__(self, choices: list[str], edit=lambda text: text) -> None:
        self.choices = choices
        self.shown: list[str] = []
        self.editor = edit

    def show(self, text: str) -> None:
        self.shown.append(text)

    def choose(self) -> str:
        return self.choices.pop(0)

    def edit(self, text: str) -> str:
        return self.editor(text)


def test_a_conversation_is_shown_turn_by_turn_and_accepted_as_a_whole(tmp_path: Path):
    path = tmp_path / "t.yaml"
    path.write_text(CONVERSATION)
    console = Scripted(["a"])
    corpus = Corpus(documents={"warranty.md": "Every model X has a warranty of two years."})
    tally = review_drafts(path, console, corpus)
    [card] = console.shown
    assert "id:        chat" in card and "kind:      conversation" in card
    assert "turn 1: I bought a model X." in card
    assert "turn 2: How long is its warranty?" in card
    assert "…Every model X has a warranty of »two years«." not in card  # not cut: no …
    assert "Every model X has a warranty of »two years«." in card
    assert (tally.accepted, tally.left) == (1, 0)
    assert path.read_text() == CONVERSATION.replace("status: draft", "status: reviewed")


def test_a_byte_order_mark_is_kept(tmp_path: Path):
    path = tmp_path / "t.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + CONVERSATION.encode())
    review_drafts(path, Scripted(["a"]), Corpus())
    assert (
        path.read_bytes()
        == b"\xef\xbb\xbf" + CONVERSATION.replace("status: draft", "status: reviewed").encode()
    )


def test_an_edit_that_sets_reviewed_accepts_it_and_the_walk_goes_on(tmp_path: Path):
    path = tmp_path / "t.yaml"
    path.write_text(CONVERSATION)
    console = Scripted(["e"], edit=lambda text: text.replace("draft", "reviewed"))
    tally = review_drafts(path, console, Corpus())
    assert (tally.edited, tally.left) == (1, 0)
    assert path.read_text() == CONVERSATION.replace("status: draft", "status: reviewed")


def test_an_unchanged_edit_writes_nothing(tmp_path: Path):
    path = tmp_path / "t.yaml"
    path.write_text(CONVERSATION)
    console = Scripted(["e", "q"])
    tally = review_drafts(path, console, Corpus())
    assert "no change\n" in console.shown
    assert (tally.edited, tally.left) == (0, 1)
    assert path.read_text() == CONVERSATION


def test_a_refused_edit_is_reopened_to_fix_and_then_written(tmp_path: Path):
    path = tmp_path / "t.yaml"
    path.write_text(CONVERSATION)
    seen: list[str] = []

    def edit(text: str) -> str:
        seen.append(text)
        if len(seen) == 1:
            return text.replace("status: draft", "status: done")
        return text.replace("status: done", "status: reviewed")

    console = Scripted(["e", "e"], edit=edit)
    tally = review_drafts(path, console, Corpus())
    assert "status: done" in seen[1]  # the refused text, not the file's, is reopened
    refusal = [text for text in console.shown if text.startswith("not saved: ")]
    assert len(refusal) == 1 and "status: expected draft or reviewed" in refusal[0]
    assert (tally.edited, tally.left) == (1, 0)
    assert path.read_text() == CONVERSATION.replace("status: draft", "status: reviewed")


def test_a_linked_group_writable_test_set_stays_linked_and_group_writable(tmp_path: Path):
    shared, repo = tmp_path / "shared", tmp_path / "repo"
    shared.mkdir(), repo.mkdir()
    (shared / "t.yaml").write_text(CONVERSATION)
    os.chmod(shared / "t.yaml", 0o664)
    link = repo / "t.yaml"
    os.symlink("../shared/t.yaml", link)
    review_drafts(link, Scripted(["a"]), Corpus())
    assert link.is_symlink() and os.readlink(link) == "../shared/t.yaml"
    assert (shared / "t.yaml").read_text() == CONVERSATION.replace(
        "status: draft", "status: reviewed"
    )
    assert stat.S_IMODE((shared / "t.yaml").stat().st_mode) == 0o664
