"""``ragguard testset``: commands that work on the test set; ``draft`` drafts questions from
the corpus (docs/testset-drafting.md), ``review`` walks the drafted questions (docs/review.md)."""

from __future__ import annotations

import click

from ragguard.cli.commands.testset_draft import draft_command
from ragguard.cli.commands.testset_review import review_command


@click.group("testset")
def testset_group() -> None:
    """Work on the test set: draft questions from the corpus, review drafted questions."""


testset_group.add_command(draft_command)
testset_group.add_command(review_command)
