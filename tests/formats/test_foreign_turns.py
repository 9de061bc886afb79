"""Multi-turn ragas and deepeval test sets, in the files those libraries write
(tests/data/foreign/*_conversations.*, written by ragas 0.4.3 and deepeval 4.3.1 with
make_multiturn_fixtures.py there), read as conversations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragguard.core.errors import InputError
from ragguard.testset.formats.foreign import ForeignQuestion, read_foreign
from ragguard.testset.formats.foreign_turns import ForeignConversation, ForeignTurn
from ragguard.testset.formats.foreign_values import ForeignCall

FOREIGN = Path(__file__).parent.parent / "data" / "foreign"
CANCEL = "Cancelling a paid order refunds the full amount automatically."
REFUND_TIME = "A refund takes 5 to 10 business days to reach the customer's bank account."
RATE = "Each API key may send 100 requests per minute."
RETRY = (
    "A client that receives a 429 response should wait for that many seconds and then "
    "retry the request."
)
ORDER = {"order_id": "ord_123"}


def _shape(conversation: ForeignConversation) -> tuple:
    """Everything read, without the place (which differs between the formats)."""
    return (
        conversation.turns,
        conversation.contexts,
        conversation.reference_tools,
        conversation.reference_answer,
        conversation.name,
        dict(conversation.meta),
    )


@pytest.mark.parametrize("suffix", ["json", "jsonl", "csv"])
def test_deepeval_conversational_goldens_read_the_same_from_every_file(suffix):
    items = read_foreign(FOREIGN / f"deepeval_conversations.{suffix}", "deepeval")

    assert [_shape(item) for item in items] == [
        (
            (
                ForeignTurn(
                    "Please cancel order ord_123.",
                    expected_tools=(ForeignCall("lookup_order", ORDER), ForeignCall("cancel_order", ORDER)),
                    retrieved=(f"Only orders that are pending or paid can be cancelled. {CANCEL}",),
                ),
                ForeignTurn(
                    "When will I see the money?",
                    retrieved=(f"Refunds are possible up to 180 days after the payment. {REFUND_TIME}",),
                ),
            ),
            (CANCEL, REFUND_TIME),
            (),
            "The order is cancelled and refunded in 5 to 10 business days.",
            "cancel-and-refund",
            {
                "scenario": "A customer cancels a paid order and asks when the money comes back.",
                "additional_metadata": {"channel": "chat"},
            },
        ),
        (
            (
                ForeignTurn(
                    "How many requests per minute may I send?",
                    retrieved=(f"{RATE} Extra requests return status 429.",),
                ),
                ForeignTurn("And when I get a 429?"),
            ),
            (RATE, RETRY),
            (),
            "Wait for Retry-After seconds, then retry.",
            "rate-limits",
            {"scenario": "A developer asks about the rate limit, then about a 429 response."},
        ),
        (
            (),
            (),
            (),
            "It does not.",
            "graphql",
            {"scenario": "A developer asks whether the API supports GraphQL."},
        ),
    ]  # fmt: skip


@pytest.mark.parametrize("suffix", ["jsonl", "csv"])
def test_ragas_multi_turn_samples_read_the_same_from_every_file(suffix):
    items = read_foreign(FOREIGN / f"ragas_conversations.{suffix}", "ragas")

    assert [_shape(item) for item in items] == [
        (
            (
                ForeignTurn("Where is my order ord_123?", called=("get_order",)),
                ForeignTurn("Then cancel it, please.", called=("cancel_order",)),
            ),
            (),
            (ForeignCall("get_order", ORDER), ForeignCall("cancel_order", ORDER)),
            "The order has shipped, so it cannot be cancelled.",
            None,
            {"reference_topics": ["orders"]},
        ),
        (
            (ForeignTurn("Refund order ord_9 in full.", called=("create_refund",)),),
            (),
            (
                ForeignCall("lookup_order", {"order_id": "ord_9"}),
                ForeignCall("create_refund", {"order_id": "ord_9"}),
                ForeignCall("notify"),
            ),
            None,
            None,
            {},
        ),
        (
            (
                ForeignTurn("Hi!"),
                ForeignTurn("List my paid orders.", called=("list_orders",)),
            ),
            (),
            (ForeignCall("list_orders", {"status": "paid"}),),
            None,
            None,
            {},
        ),
    ]


def test_places_are_the_lines_and_items_of_the_files():
    jsonl = read_foreign(FOREIGN / "ragas_conversations.jsonl", "ragas")
    json_items = read_foreign(FOREIGN / "deepeval_conversations.json", "deepeval")

    assert jsonl[2].where.place.endswith("ragas_conversations.jsonl:3")
    assert json_items[1].where.place.endswith("deepeval_conversations.json [1]")


def test_an_entry_is_a_conversation_by_its_content_as_the_libraries_decide(write):
    ragas = write(
        "mixed.jsonl",
        json.dumps({"user_input": "Q?", "reference_contexts": ["c"]}) + "\n"
        + json.dumps({"user_input": [{"type": "human", "content": "Q?"}]}) + "\n",
    )  # fmt: skip
    deepeval = write(
        "mixed.json",
        json.dumps([{"input": "Q?", "context": ["c"]}, {"scenario": "S", "input": "ignored"}]),
    )

    assert [type(item) for item in read_foreign(ragas, "ragas")] == [
        ForeignQuestion,
        ForeignConversation,
    ]
    assert [type(item) for item in read_foreign(deepeval, "deepeval")] == [
        ForeignQuestion,
        ForeignConversation,
    ]


def test_what_comes_before_the_first_user_message_counts_with_the_first_turn(write):
    path = write(
        "early.json",
        json.dumps(
            [
                {
                    "scenario": "S",
                    "turns": [
                        {"role": "assistant", "content": "Hello!", "tools_called": [{"name": "greet"}]},
                        {"role": "user", "content": "Hi."},
                        {"role": "user", "content": "Anyone?"},
                        {"role": "assistant", "content": "Yes.", "tools_called": [{"name": "wake", "input_parameters": {"a": 1}}]},
                    ],
                }
            ]
        ),
    )  # fmt: skip

    (conversation,) = read_foreign(path, "deepeval")

    assert conversation.turns == (
        ForeignTurn("Hi.", expected_tools=(ForeignCall("greet"),)),
        ForeignTurn("Anyone?", expected_tools=(ForeignCall("wake", {"a": 1}),)),
    )


def _ragas(user_input, **more) -> str:
    return json.dumps({"user_input": user_input, **more}) + "\n"


HUMAN = {"type": "human", "content": "Q?"}


@pytest.mark.parametrize(
    ("name", "content", "flavour", "fragments"),
    [
        (
            "a.jsonl",
            _ragas([HUMAN, {"type": "system", "content": "x"}]),
            "ragas",
            ["a.jsonl:1", "user_input[1].type", "human, ai or tool", '"system"'],
        ),
        (
            "b.jsonl",
            _ragas([HUMAN, 7]),
            "ragas",
            ["b.jsonl:1", "user_input[1]", "a message {type, content}", "a number"],
        ),
        (
            "c.jsonl",
            _ragas([{"type": "human", "content": " "}]),
            "ragas",
            ["c.jsonl:1", "user_input[0].content", "the user's message"],
        ),
        (
            "d.jsonl",
            _ragas([HUMAN, {"type": "ai", "content": "", "tool_calls": [{"args": {}}]}]),
            "ragas",
            ["d.jsonl:1", "user_input[1].tool_calls[0].name", "the tool's name"],
        ),
        (
            "e.jsonl",
            _ragas([HUMAN], reference_tool_calls=[{"name": "f", "args": "x=1"}]),
            "ragas",
            ["e.jsonl:1", "reference_tool_calls[0].args", "an object of the call's arguments"],
        ),
        (
            "f.jsonl",
            _ragas([HUMAN], reference_tool_calls={"name": "f"}),
            "ragas",
            ["f.jsonl:1", "reference_tool_calls", "a list of tool calls"],
        ),
        (
            "g.csv",
            "user_input,reference\n\"[{'type': 'human', 'content': 'Q?'\",R\n",
            "ragas",
            ["g.csv:2", "user_input", "a list of messages as ragas writes it"],
        ),
        (
            "h.json",
            json.dumps([{"scenario": "S", "turns": [{"role": "bot", "content": "x"}]}]),
            "deepeval",
            ["h.json", "[0].turns[0].role", "user or assistant", '"bot"'],
        ),
        (
            "i.json",
            json.dumps([{"scenario": "S", "turns": {"role": "user"}}]),
            "deepeval",
            ["i.json", "[0].turns", "a list of turns"],
        ),
        (
            "j.csv",
            "scenario,turns\nS,[{\"role\": \"user\"\n",
            "deepeval",
            ["j.csv:2", "turns", "the JSON text of a list"],
        ),
        (
            "k.jsonl",
            json.dumps({"scenario": "S", "turns": [{"role": "user", "content": "Q"}, {"role": "assistant", "content": "A", "tools_called": [{"name": "f", "inputParameters": [1]}]}]}) + "\n",
            "deepeval",
            ["k.jsonl:1", "turns[1].tools_called[0].inputParameters", "an object"],
        ),
        (
            "l.jsonl",
            json.dumps({"scenario": "S", "turns": [{"role": "user", "content": "Q"}, {"role": "assistant", "content": "A", "retrieval_context": "one text"}]}) + "\n",
            "deepeval",
            ["l.jsonl:1", "turns[1].retrieval_context", "a list of strings"],
        ),
        (
            "m.json",
            json.dumps([{"scenario": ["S"], "turns": []}]),
            "deepeval",
            ["m.json", "[0].scenario", "the scenario", "a list"],
        ),
        (
            "o.csv",
            "user_input\n\"[{'type': 'human', 'content': {'a set'}}]\"\n",
            "ragas",
            ["o.csv:2", "user_input", "a list of messages as ragas writes it"],
        ),
        (
            "n.jsonl",
            _ragas([HUMAN, {"type": ["ai"], "content": "x"}]),
            "ragas",
            ["n.jsonl:1", "user_input[1].type", '["ai"]'],
        ),
    ],
)  # fmt: skip
def test_bad_multi_turn_files_are_one_line_errors(write, name, content, flavour, fragments):
    path = write(name, content)

    with pytest.raises(InputError) as caught:
        read_foreign(path, flavour)

    message = str(caught.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_MESSAGE = st.fixed_dictionaries(
    {"type": st.sampled_from(["human", "ai", "tool", "x"]) | _JSON},
    optional={"content": _JSON, "tool_calls": _JSON},
)
_TURN = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant"]) | _JSON},
    optional={"content": _JSON, "tools_called": _JSON, "retrieval_context": _JSON},
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    ragas=st.fixed_dictionaries(
        {"user_input": st.lists(_MESSAGE | _JSON, max_size=4)},
        optional={"reference_tool_calls": _JSON, "reference": _JSON, "rubrics": _JSON},
    ),
    deepeval=st.fixed_dictionaries(
        {"scenario": st.just("S") | _JSON},
        optional={"turns": st.lists(_TURN | _JSON, max_size=4) | _JSON, "context": _JSON,
                  "name": _JSON, "expected_outcome": _JSON, "additional_metadata": _JSON},
    ),
)  # fmt: skip
def test_any_multi_turn_entry_reads_or_is_one_input_error(tmp_path, ragas, deepeval):
    for flavour, entry in (("ragas", ragas), ("deepeval", deepeval)):
        path = tmp_path / f"{flavour}.jsonl"
        path.write_text(json.dumps(entry) + "\n", encoding="utf-8")
        try:
            read_foreign(path, flavour)
        except InputError as exc:
            assert "\n" not in str(exc)
