"""The judge's prompts for drafting: one request per draft, naming its kind, the passages
(each with its document's id) and the JSON object to reply with. Pure text."""

from __future__ import annotations

from collections.abc import Sequence

from ragguard.testset.drafting.model import (
    COMPARISON,
    FOLLOW_UP,
    MULTI_HOP,
    SINGLE_FACT,
    UNANSWERABLE,
)
from ragguard.testset.drafting.passages import Passage

SYSTEM = (
    "You write test questions for evaluating a retrieval-augmented system over documentation. "
    "You read the passages given and reply with one JSON object only, no prose. A question "
    "reads as a user of the documentation would ask it, without naming the passage or the "
    "file. Every quote you give is copied word for word from one passage: a contiguous span "
    "of its text (a sentence or two), without ellipses, added quotation marks or changes. The "
    "answer is short and follows from the quotes alone."
)
EVIDENCE = '[{"doc": "<the passage\'s doc>", "quote": "<exact text from that passage>"}]'
INSTRUCTIONS = {
    SINGLE_FACT: (
        "Write one question that a single fact in the passage answers.",
        '{"question": "...", "answer": "...", "evidence": ' + EVIDENCE + "}",
    ),
    MULTI_HOP: (
        "Write one question that needs both passages: the first passage's fact leads to the "
        "second's. Give one quote per hop, in the order they are needed.",
        '{"question": "...", "answer": "...", "hops": [{"doc": "...", "quote": "..."}, '
        '{"doc": "...", "quote": "..."}]}',
    ),
    COMPARISON: (
        "Write one question that compares what the two passages say (which is larger, "
        "earlier, allowed ...). Quote each side.",
        '{"question": "...", "answer": "...", "evidence": ' + EVIDENCE + "}",
    ),
    UNANSWERABLE: (
        "Write one question a user of this documentation might plausibly ask, on the "
        "passage's topic, that the passage does NOT answer. The answer says that the "
        "documentation does not say.",
        '{"question": "...", "answer": "..."}',
    ),
    FOLLOW_UP: (
        "Write a two-turn conversation: a first question the passage answers, then a "
        "follow-up that only makes sense after the first (it refers back, e.g. 'and for "
        "that one?'). Quote the evidence of each turn.",
        '{"turns": [{"question": "...", "answer": "...", "evidence": ' + EVIDENCE + "}, "
        '{"question": "...", "answer": "...", "evidence": ' + EVIDENCE + "}]}",
    ),
}


def kind_line(kind: str) -> str:
    """The prompt's line naming the kind (the local test server reads it)."""
    return f"kind: {kind}"


def drafting_messages(kind: str, passages: Sequence[Passage]) -> list[dict[str, str]]:
    """The chat messages asking for one draft of ``kind`` from ``passages``."""
    task, shape = INSTRUCTIONS[kind]
    blocks = "\n\n".join(
        f'<passage doc="{passage.doc}">\n{passage.text}\n</passage>' for passage in passages
    )
    user = f"{kind_line(kind)}\n{task}\n\n{blocks}\n\nReply with JSON of this shape:\n{shape}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
