"""``ragguard testset review``: walk the drafted questions in a terminal (docs/review.md)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ragguard.cli.options import config_option
from ragguard.config.load import DEFAULT_CONFIG_NAME
from ragguard.core.errors import InputError

if TYPE_CHECKING:
    from ragguard.config.model import Config

PROMPT = "[a]ccept / [e]dit / [r]eject / [s]kip / [q]uit"
CHOICES = {"a": "a", "accept": "a", "e": "e", "edit": "e", "r": "r", "reject": "r"}
CHOICES |= {"s": "s", "skip": "s", "q": "q", "quit": "q"}
NO_TERMINAL = (
    "review asks what to do with each draft and needs a terminal (stdin is not one); run it "
    "in a terminal, or accept a draft by setting its status: reviewed in the file"
)


class TerminalConsole:
    """The reviewer's terminal: cards on stdout, a decision per line read from stdin, and
    the editor named by VISUAL, else EDITOR."""

    def show(self, text: str) -> None:
        click.echo(text, nl=False)

    def choose(self) -> str:
        while True:
            try:
                answer = click.prompt(PROMPT, default="", show_default=False)
            except click.Abort:  # end of input (Ctrl-D): as quit
                click.echo()
                return "q"
            choice = CHOICES.get(answer.strip().lower())
            if choice is not None:
                return choice
            click.echo("type a, e, r, s or q")

    def edit(self, text: str) -> str:
        command = _editor_command()
        with tempfile.TemporaryDirectory(prefix="ragguard-review-") as folder:
            path = Path(folder) / "draft.yaml"
            path.write_text(text, encoding="utf-8")
            try:
                done = subprocess.run([*command, str(path)], check=False)
            except OSError as exc:
                raise InputError("EDITOR", f"cannot start {command[0]!r}: {exc.strerror}") from None
            if done.returncode != 0:
                raise InputError(
                    "EDITOR", f"{command[0]} exited with code {done.returncode}; nothing changed"
                )
            return path.read_text(encoding="utf-8")


def _editor_command() -> list[str]:
    """The editor to run: VISUAL, else EDITOR, split as a shell would."""
    for name in ("VISUAL", "EDITOR"):
        value = os.environ.get(name, "").strip()
        if value:
            try:
                return shlex.split(value)
            except ValueError as exc:
                raise InputError(name, f"cannot read the command {value!r}: {exc}") from None
    raise InputError(
        "EDITOR", "neither VISUAL nor EDITOR is set; set one (e.g. export EDITOR=nano) to edit"
    )


@click.command("review")
@click.argument("testset", required=False, type=click.Path(path_type=Path))
@config_option(
    "The suite's ragguard.yml: its test set (when TESTSET is not given) and corpus: "
    "(evidence shown in its document).",
    default=None,
)
def review_command(testset: Path | None, config_path: Path | None) -> None:
    """Walk the drafted questions (status: draft) of TESTSET one at a time: accept, edit in
    $EDITOR, reject, skip or quit. Each decision is written to the file at once."""
    from ragguard.pipeline.review import check_reviewable, review_corpus, review_drafts

    config = _config(testset, config_path)
    path = testset if testset is not None or config is None else config.testset
    assert path is not None  # _config refuses no TESTSET without a config
    check_reviewable(path)
    if not sys.stdin.isatty():
        raise InputError("stdin", NO_TERMINAL)
    documents, chunks = (config.documents, config.corpus) if config else (None, None)
    corpus = review_corpus(documents, chunks)
    tally = review_drafts(path, TerminalConsole(), corpus)
    click.echo(tally.line(path))


def _config(testset: Path | None, config_path: Path | None) -> Config | None:
    """The config: -c, else ./ragguard.yml when there is one (needed without TESTSET)."""
    from ragguard.config.load import load_config, local_config

    path = config_path or local_config()
    if path is None:
        if testset is None:
            raise InputError(
                DEFAULT_CONFIG_NAME,
                "not found; give the test set to review (ragguard testset review TESTSET) "
                "or a config with -c",
            )
        return None
    return load_config(path)
