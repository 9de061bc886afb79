"""Writes the multi-turn ragas and deepeval files tests/formats/test_foreign_conversations.py
and tests/test_importing_conversations.py read, with the libraries' own writers (run with
ragas 0.4.3 and deepeval 4.3.1 installed, Python 3.11, in a scratch venv with
langchain-community 0.4.1: 0.4.2 dropped a module ragas 0.4.3 imports; no network, no model:
nothing is generated, only saved). The contexts quote the demo's Orders API docs.

- deepeval: ``ConversationalGolden`` goldens saved by ``EvaluationDataset.save_as`` as json,
  jsonl and csv (``deepeval_conversations.*``). The first conversation's assistant turns
  retrieve both contexts and call tools; in the second, the assistant retrieves the first
  context (a ``RetrievedContextData``, saved with deepeval's source marker) and not the
  second; the third golden is a scenario without turns, for deepeval's simulator.
- ragas: ``MultiTurnSample`` samples saved by ``EvaluationDataset.to_jsonl`` and ``to_csv``
  (``ragas_conversations.*``). The first has two user turns, each answered with a tool
  call that ``reference_tool_calls`` expects; the second one user turn whose recorded
  calls differ from the reference; the third opens with a greeting that calls no tool.
"""

import os

os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "YES"

from deepeval.dataset import ConversationalGolden
from deepeval.dataset import EvaluationDataset as DeepevalDataset
from deepeval.test_case import ToolCall as DeepevalToolCall
from deepeval.test_case import Turn
from deepeval.test_case.llm_test_case import RetrievedContextData
from ragas import EvaluationDataset, MultiTurnSample
from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage

CANCEL = "Cancelling a paid order refunds the full amount automatically."
REFUND_TIME = "A refund takes 5 to 10 business days to reach the customer's bank account."
RATE = "Each API key may send 100 requests per minute."
RETRY = (
    "A client that receives a 429 response should wait for that many seconds and then "
    "retry the request."
)

goldens = [
    ConversationalGolden(
        name="cancel-and-refund",
        scenario="A customer cancels a paid order and asks when the money comes back.",
        expected_outcome="The order is cancelled and refunded in 5 to 10 business days.",
        context=[CANCEL, REFUND_TIME],
        additional_metadata={"channel": "chat"},
        turns=[
            Turn(role="user", content="Please cancel order ord_123."),
            Turn(
                role="assistant",
                content="Order ord_123 was paid; it is cancelled and refunded.",
                retrieval_context=[
                    "Only orders that are pending or paid can be cancelled. " + CANCEL
                ],
                tools_called=[
                    DeepevalToolCall(name="lookup_order", input_parameters={"order_id": "ord_123"}),
                    DeepevalToolCall(
                        name="cancel_order",
                        input_parameters={"order_id": "ord_123"},
                        output={"status": "cancelled"},
                    ),
                ],
            ),
            Turn(role="user", content="When will I see the money?"),
            Turn(
                role="assistant",
                content="Within 5 to 10 business days.",
                retrieval_context=[
                    "Refunds are possible up to 180 days after the payment. " + REFUND_TIME
                ],
            ),
        ],
    ),
    ConversationalGolden(
        name="rate-limits",
        scenario="A developer asks about the rate limit, then about a 429 response.",
        expected_outcome="Wait for Retry-After seconds, then retry.",
        user_description="A backend developer.",
        context=[RATE, RETRY],
        turns=[
            Turn(role="user", content="How many requests per minute may I send?"),
            Turn(
                role="assistant",
                content="100 per minute.",
                retrieval_context=[
                    RetrievedContextData(
                        source="rate-limits.md",
                        context=RATE + " Extra requests return status 429.",
                    )
                ],
            ),
            Turn(role="user", content="And when I get a 429?"),
            Turn(role="assistant", content="Wait, then retry."),
        ],
    ),
    ConversationalGolden(
        name="graphql",
        scenario="A developer asks whether the API supports GraphQL.",
        expected_outcome="It does not.",
    ),
]
dataset = DeepevalDataset(goldens=goldens)
for file_type in ("json", "jsonl", "csv"):
    dataset.save_as(file_type=file_type, directory=".", file_name="deepeval_conversations")

samples = [
    MultiTurnSample(
        user_input=[
            HumanMessage(content="Where is my order ord_123?"),
            AIMessage(
                content="Let me look.",
                tool_calls=[ToolCall(name="get_order", args={"order_id": "ord_123"})],
            ),
            ToolMessage(content='{"status": "shipped", "carrier": "DHL"}'),
            AIMessage(content="It has shipped with DHL."),
            HumanMessage(content="Then cancel it, please."),
            AIMessage(
                content="Trying.",
                tool_calls=[ToolCall(name="cancel_order", args={"order_id": "ord_123"})],
            ),
            ToolMessage(content='{"error": 409}'),
            AIMessage(content="A shipped order cannot be cancelled."),
        ],
        reference="The order has shipped, so it cannot be cancelled.",
        reference_tool_calls=[
            ToolCall(name="get_order", args={"order_id": "ord_123"}),
            ToolCall(name="cancel_order", args={"order_id": "ord_123"}),
        ],
        reference_topics=["orders"],
    ),
    MultiTurnSample(
        user_input=[
            HumanMessage(content="Refund order ord_9 in full."),
            AIMessage(
                content="Refunding.",
                tool_calls=[ToolCall(name="create_refund", args={"order_id": "ord_9"})],
            ),
            ToolMessage(content='{"refund": "re_1"}'),
            AIMessage(content="Refunded."),
        ],
        reference_tool_calls=[
            ToolCall(name="lookup_order", args={"order_id": "ord_9"}),
            ToolCall(name="create_refund", args={"order_id": "ord_9"}),
            ToolCall(name="notify", args={}),
        ],
    ),
    MultiTurnSample(
        user_input=[
            HumanMessage(content="Hi!"),
            AIMessage(content="Hello, how can I help?"),
            HumanMessage(content="List my paid orders."),
            AIMessage(
                content="Here they are.",
                tool_calls=[ToolCall(name="list_orders", args={"status": "paid"})],
            ),
        ],
        reference_tool_calls=[ToolCall(name="list_orders", args={"status": "paid"})],
    ),
]
ragas_dataset = EvaluationDataset(samples=samples)
ragas_dataset.to_jsonl("ragas_conversations.jsonl")
ragas_dataset.to_csv("ragas_conversations.csv")
