"""A ragas or deepeval conversation made a ragguard conversation entry (docs/formats.md,
"Importing conversations").

Each user message is a turn. The labels of the files are those of the whole conversation
(deepeval's ``context``, ragas' ``reference_tool_calls``) or of an answer (deepeval's
``tools_called``); ragguard scores each turn on its own, so each label goes to a turn:

- an answer's tool calls (deepeval) are what its turn expects;
- a context goes to every turn whose answer in the saved conversation retrieved a text
  holding it; a reference tool call (ragas) to the turn whose answer made a call of that
  name (each made call taken once, in order);
- what no answer retrieved or called goes to the last turn, where the conversation's
  reference is reached, and is reported.

The conversation's reference (ragas' ``reference``, deepeval's ``expected_outcome``) is the
last turn's ``reference_answer``. A conversation whose context is in no chunk or document, or
with a turn left with nothing to score, is not imported (ragguard scores every turn).
"""

from __future__ import annotations

from typing import Any

from ragguard.testset.context_labels import LabelSources, TextIndex, found_labels, merged, preview
from ragguard.testset.formats.foreign_turns import ForeignConversation
from ragguard.testset.formats.foreign_values import ForeignCall


def conversation_entry(
    conversation: ForeignConversation, conversation_id: str, sources: LabelSources, flavour: str
) -> tuple[dict[str, Any] | None, str, str]:
    """The conversation's entry, or why it cannot be imported; and what was put on its last
    turn for want of a better one ('' when nothing was)."""
    if not conversation.turns:
        return None, "has no user message (a scenario alone is for deepeval's simulator)", ""
    labels, why = found_labels(conversation.contexts, sources)
    if why:
        return None, why, ""
    contexts, unplaced_contexts = place_contexts(conversation)
    calls, unplaced_calls = place_calls(conversation)
    turns: list[dict[str, Any]] = []
    for index, turn in enumerate(conversation.turns):
        relevant = merged(labels[number] for number in contexts[index])
        if not relevant and not calls[index]:
            return None, _nothing_to_score(index, turn.question), ""
        last = index == len(conversation.turns) - 1
        reference = conversation.reference_answer if last else None
        turns.append(_turn_entry(turn.question, relevant, reference, calls[index]))
    entry = {
        "id": conversation_id,
        "turns": turns,
        "meta": {"imported_from": flavour, **conversation.meta},
    }
    return entry, "", _on_last_turn(conversation, unplaced_contexts, unplaced_calls)


def _nothing_to_score(index: int, question: str) -> str:
    return (
        f"turn {index + 1} ({preview(question)}) has nothing to score: no reference context "
        "or tool call belongs to it, and ragguard scores every turn"
    )


def _turn_entry(
    question: str, relevant: list[Any], reference: str | None, calls: list[ForeignCall]
) -> dict[str, Any]:
    entry: dict[str, Any] = {"question": question}
    if relevant:
        entry["relevant"] = relevant
    if reference:
        entry["reference_answer"] = reference
    if calls:
        entry["expected_tools"] = [call.to_entry() for call in calls]
    return entry


def place_contexts(conversation: ForeignConversation) -> tuple[list[list[int]], list[int]]:
    """For each turn, the indexes of the contexts it needs: those its answer retrieved; a
    context no answer retrieved goes to the last turn (and its index is returned too)."""
    retrieved = TextIndex(
        {
            f"{turn_index}.{text_index}": text
            for turn_index, turn in enumerate(conversation.turns)
            for text_index, text in enumerate(turn.retrieved)
        }
    )
    per_turn: list[list[int]] = [[] for _ in conversation.turns]
    unplaced: list[int] = []
    for index, context in enumerate(conversation.contexts):
        turns = sorted({int(name.split(".")[0]) for name in retrieved.holding(context)})
        if not turns:
            turns = [len(per_turn) - 1]
            unplaced.append(index)
        for turn in turns:
            per_turn[turn].append(index)
    return per_turn, unplaced


def place_calls(conversation: ForeignConversation) -> tuple[list[list[ForeignCall]], list[int]]:
    """For each turn, the tool calls it should make: its answer's (deepeval), and each
    reference call (ragas) where the saved conversation made a call of that name, the
    earliest one not taken yet; a reference call made nowhere goes to the last turn (and its
    index is returned too)."""
    per_turn = [list(turn.expected_tools) for turn in conversation.turns]
    made = [(name, index) for index, turn in enumerate(conversation.turns) for name in turn.called]
    taken = [False] * len(made)
    unplaced: list[int] = []
    for index, call in enumerate(conversation.reference_tools):
        found = next(
            (i for i, (name, _) in enumerate(made) if not taken[i] and name == call.name), None
        )
        if found is None:
            per_turn[-1].append(call)
            unplaced.append(index)
            continue
        taken[found] = True
        per_turn[made[found][1]].append(call)
    return per_turn, unplaced


def _on_last_turn(conversation: ForeignConversation, contexts: list[int], calls: list[int]) -> str:
    """What went to the last turn for want of a better one; '' when there is one turn."""
    if len(conversation.turns) < 2 or not (contexts or calls):
        return ""
    what = [f"reference context {index + 1}" for index in contexts] + [
        f"reference tool call {index + 1} ({conversation.reference_tools[index].name})"
        for index in calls
    ]
    return (
        f"{', '.join(what)} put on the last turn: no answer of the saved conversation "
        "retrieved or called it"
    )
