"""`ragguard import` of multi-turn test sets: the conversations ragas and deepeval wrote
(tests/data/foreign/*_conversations.*) become ragguard conversations, each label on the
turn it belongs to, and score turn by turn."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from ragguard.core.errors import Where
from ragguard.results.io import load_results
from ragguard.testset.context_labels import LabelSources
from ragguard.testset.formats.foreign_turns import ForeignConversation, ForeignTurn
from ragguard.testset.formats.foreign_values import ForeignCall
from ragguard.testset.importing import import_questions, question_ids
from ragguard.testset.importing_turns import place_calls, place_contexts
from ragguard.testset.load import load_testset
from ragguard.testset.model import Evidence, Question, TestSet, ToolCall

ROOT = Path(__file__).parent.parent
FOREIGN = ROOT / "data" / "foreign"
DOCS = ROOT.parent / "src" / "ragguard" / "demo" / "orders_api" / "docs"
CANCEL = "Cancelling a paid order refunds the full amount automatically."
REFUND_TIME = "A refund takes 5 to 10 business days to reach the customer's bank account."
RATE = "Each API key may send 100 requests per minute."
RETRY = (
    "A client that receives a 429 response should wait for that many seconds and then "
    "retry the request."
)
ORDER = {"order_id": "ord_123"}
REFUND_META = {
    "imported_from": "deepeval",
    "scenario": "A customer cancels a paid order and asks when the money comes back.",
    "additional_metadata": {"channel": "chat"},
}
RATE_META = {
    "imported_from": "deepeval",
    "scenario": "A developer asks about the rate limit, then about a 429 response.",
}

DEEPEVAL_TESTSET = TestSet(
    (
        Question(
            "cancel-and-refund#1",
            "Please cancel order ord_123.",
            meta=REFUND_META,
            evidence=(Evidence("cancellations-refunds.md", quote=CANCEL),),
            expected_tools=(ToolCall("lookup_order", ORDER), ToolCall("cancel_order", ORDER)),
            conversation="cancel-and-refund",
        ),
        Question(
            "cancel-and-refund#2",
            "When will I see the money?",
            reference_answer="The order is cancelled and refunded in 5 to 10 business days.",
            meta=REFUND_META,
            evidence=(Evidence("cancellations-refunds.md", quote=REFUND_TIME),),
            conversation="cancel-and-refund",
        ),
        Question(
            "rate-limits#1",
            "How many requests per minute may I send?",
            meta=RATE_META,
            evidence=(Evidence("rate-limits.md", quote=RATE),),
            conversation="rate-limits",
        ),
        Question(
            "rate-limits#2",
            "And when I get a 429?",
            reference_answer="Wait for Retry-After seconds, then retry.",
            meta=RATE_META,
            evidence=(Evidence("rate-limits.md", quote=RETRY),),
            conversation="rate-limits",
        ),
    )
)


def _ragas_testset(shipped: str, refund: str) -> TestSet:
    return TestSet(
        (
            Question(
                f"{shipped}#1",
                "Where is my order ord_123?",
                meta={"imported_from": "ragas", "reference_topics": ["orders"]},
                expected_tools=(ToolCall("get_order", ORDER),),
                conversation=shipped,
            ),
            Question(
                f"{shipped}#2",
                "Then cancel it, please.",
                reference_answer="The order has shipped, so it cannot be cancelled.",
                meta={"imported_from": "ragas", "reference_topics": ["orders"]},
                expected_tools=(ToolCall("cancel_order", ORDER),),
                conversation=shipped,
            ),
            Question(
                f"{refund}#1",
                "Refund order ord_9 in full.",
                meta={"imported_from": "ragas"},
                expected_tools=(
                    ToolCall("lookup_order", {"order_id": "ord_9"}),
                    ToolCall("create_refund", {"order_id": "ord_9"}),
                    ToolCall("notify"),
                ),
                conversation=refund,
            ),
        )
    )


@pytest.mark.parametrize("suffix", ["json", "jsonl", "csv"])
def test_deepeval_conversations_import_to_these_turns(ragguard_cli, tmp_path, suffix):
    source = FOREIGN / f"deepeval_conversations.{suffix}"
    out = tmp_path / "testset.yaml"

    result = ragguard_cli(
        "import", source, "--from", "deepeval", "--docs", DOCS, "--out", out, "--skip-unlabelled"
    )

    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"imported 2 of 3 conversations from {source} into {out}\n"
    left_out, on_last = result.stderr.splitlines()
    assert "left out: has no user message" in left_out
    assert "reference context 2 put on the last turn" in on_last
    assert load_testset(out) == DEEPEVAL_TESTSET


def _text_id(*messages: str) -> str:
    return "c-" + hashlib.sha1("\n".join(messages).encode()).hexdigest()[:10]


@pytest.mark.parametrize("suffix", ["jsonl", "csv"])
def test_ragas_conversations_import_without_documents_as_they_have_no_context(
    ragguard_cli, tmp_path, suffix
):
    source = FOREIGN / f"ragas_conversations.{suffix}"
    out = tmp_path / "testset.jsonl"

    result = ragguard_cli("import", source, "--from", "ragas", "--out", out, "--skip-unlabelled")

    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"imported 2 of 3 conversations from {source} into {out}\n"
    (left_out,) = result.stderr.splitlines()
    assert 'left out: turn 1 ("Hi!") has nothing to score' in left_out
    assert load_testset(out) == _ragas_testset(
        _text_id("Where is my order ord_123?", "Then cancel it, please."),
        _text_id("Refund order ord_9 in full."),
    )


def test_an_import_stops_on_a_conversation_it_cannot_import_whole(cli_error, tmp_path):
    out = tmp_path / "t.yaml"

    cli_error(
        ["import", FOREIGN / "ragas_conversations.jsonl", "--from", "ragas", "--out", out],
        "ragas_conversations.jsonl:3:", 'turn 1 ("Hi!") has nothing to score',
        "1 of 3 conversations cannot be imported whole", "--skip-unlabelled",
    )  # fmt: skip
    assert not out.exists()


def test_contexts_still_need_the_documents(cli_error, tmp_path):
    cli_error(
        ["import", FOREIGN / "deepeval_conversations.json", "--from", "deepeval", "--out",
         tmp_path / "t.yaml"],
        "--corpus, --docs or both",
    )  # fmt: skip


def _chunk(chunk_id: str, doc: str, text: str) -> dict:
    return {"id": chunk_id, "doc": doc, "text": text}


def _turn_record(turn_id: str, chunks: list[dict], tools: list[dict]) -> str:
    steps = [{"type": "retrieval", "query": "q", "retrieved": chunks}] + [
        {"type": "tool", **tool} for tool in tools
    ]
    return json.dumps({"id": turn_id, "answer": "Done.", "steps": steps}) + "\n"


def test_an_imported_conversation_scores_turn_by_turn(ragguard_cli, tmp_path):
    testset = tmp_path / "testset.yaml"
    imported = ragguard_cli(
        "import", FOREIGN / "deepeval_conversations.json", "--from", "deepeval", "--docs", DOCS,
        "--out", testset, "--skip-unlabelled",
    )  # fmt: skip
    assert imported.exit_code == 0, imported.stderr
    cancel = _chunk("c1", "cancellations-refunds.md", f"To cancel an order... {CANCEL}")
    refund = _chunk("c2", "cancellations-refunds.md", f"Refunds... {REFUND_TIME}")
    limits = _chunk("r1", "rate-limits.md", f"{RATE} {RETRY}")
    other = _chunk("x", "webhooks.md", "Webhooks are retried.")
    lookup = {"name": "lookup_order", "arguments": ORDER}
    run = tmp_path / "run.jsonl"
    run.write_text(
        _turn_record("cancel-and-refund#1", [cancel], [lookup, {"name": "refund", "arguments": ORDER}])
        + _turn_record("cancel-and-refund#2", [refund], [])
        + _turn_record("rate-limits#1", [limits], [])
        + _turn_record("rate-limits#2", [other], [])
    )  # fmt: skip
    out = tmp_path / "results.json"

    scored = ragguard_cli(
        "score", "--testset", testset, "--run", run, "--metrics", "recall@3,tool_recall",
        "--out", out,
    )  # fmt: skip

    assert scored.exit_code == 0, scored.stderr
    metrics = {q.id: dict(q.metrics) for q in load_results(out).questions}
    assert metrics == {
        "cancel-and-refund#1": {"recall@3": 1.0, "tool_recall": 0.5},
        "cancel-and-refund#2": {"recall@3": 1.0},
        "rate-limits#1": {"recall@3": 1.0},
        "rate-limits#2": {"recall@3": 0.0},
    }


def _conversation(*turns: ForeignTurn, **more) -> ForeignConversation:
    return ForeignConversation(turns, Where("set.json"), **more)


def test_a_context_goes_to_every_turn_that_retrieved_it_else_to_the_last():
    conversation = _conversation(
        ForeignTurn("A?", retrieved=("intro. Each  API key may SEND 100 requests per minute.",)),
        ForeignTurn("B?", retrieved=("x", RATE)),
        ForeignTurn("C?"),
        contexts=(RATE, RETRY),
    )

    assert place_contexts(conversation) == ([[0], [0], [1]], [1])


def test_a_reference_call_goes_to_the_turn_that_made_it_each_made_call_taken_once():
    get, cancel, notify = ForeignCall("get"), ForeignCall("cancel", ORDER), ForeignCall("notify")
    conversation = _conversation(
        ForeignTurn("A?", called=("get",)),
        ForeignTurn("B?", called=("cancel", "get")),
        ForeignTurn("C?"),
        reference_tools=(get, cancel, get, notify),
    )

    assert place_calls(conversation) == ([[get], [cancel, get], [notify]], [3])


def test_what_went_to_the_last_turn_is_reported_only_when_there_was_a_choice():
    sources = LabelSources.of({}, {"limits.md": f"{RATE} {RETRY}"})
    two = _conversation(
        ForeignTurn("A?", retrieved=(RATE,)), ForeignTurn("B?"), contexts=(RATE, RETRY)
    )
    one = _conversation(ForeignTurn("A?"), contexts=(RATE,), reference_tools=(ForeignCall("f"),))

    imported = import_questions([two, one], sources, "deepeval")

    assert [note.why for note in imported.on_last_turn] == [
        "reference context 2 put on the last turn: no answer of the saved conversation "
        "retrieved or called it"
    ]
    assert [len(entry["turns"]) for entry in imported.entries] == [2, 1]


def test_a_conversation_is_imported_whole_or_not_at_all():
    sources = LabelSources.of({}, {"limits.md": RATE})
    missing = _conversation(ForeignTurn("A?"), contexts=(RATE, "Not in any document."))
    idle = _conversation(ForeignTurn("Hi!"), ForeignTurn("B?"), contexts=(RATE,))

    imported = import_questions([missing, idle], sources, "deepeval")

    assert imported.entries == []
    assert [u.why for u in imported.unlabelled] == [
        'reference context 2 ("Not in any document.") is in no chunk or document',
        'turn 1 ("Hi!") has nothing to score: no reference context or tool call belongs to '
        "it, and ragguard scores every turn",
    ]


def test_conversation_ids_come_from_the_user_messages_and_stay_apart_from_questions():
    conversation = _conversation(ForeignTurn("Q?"))
    ids = question_ids([conversation, conversation])

    assert ids[0].startswith("c-") and ids[1] == ids[0] + "-2"
    assert ids == question_ids([_conversation(ForeignTurn("Q?"))] * 2)
