"""Writes the ragas and deepeval files tests/formats/test_foreign.py reads, with the
libraries' own writers (run with ragas 0.4.3 and deepeval 4.3.1 installed; no network,
no model: nothing is generated, only saved). The contexts quote the demo's Orders API docs;
the third question's context is in no document, on purpose."""

import os

os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "YES"

from deepeval.dataset import EvaluationDataset as DeepevalDataset
from deepeval.dataset import Golden
from ragas import EvaluationDataset, SingleTurnSample
from ragas.testset.synthesizers.testset_schema import Testset, TestsetSample

QUESTIONS = [
    (
        "How many requests per minute are allowed?",
        ["Each API key may send 100 requests per minute."],
        "100 requests per minute, per API key.",
    ),
    (
        'Can I send the API key as a query parameter, or "in the URL"?',
        [
            "Keys sent as query parameters are refused with status 400.",
            "Send the key in the Authorization header as a bearer token:\n"
            "`Authorization: Bearer <your-api-key>`.",
        ],
        "No; send it in the Authorization header.",
    ),
    (
        "Does the API support GraphQL?",
        ["The Orders API offers a GraphQL endpoint at /graphql."],
        "Yes.",
    ),
]

samples = [
    SingleTurnSample(user_input=q, reference_contexts=c, reference=r) for q, c, r in QUESTIONS
]
samples[0] = SingleTurnSample(
    user_input=QUESTIONS[0][0],
    reference_contexts=QUESTIONS[0][1],
    reference=QUESTIONS[0][2],
    retrieved_contexts=["Webhooks are retried for three days."],
    response="A hundred.",
)
EvaluationDataset(samples=samples).to_jsonl("ragas.jsonl")
Testset(
    samples=[TestsetSample(eval_sample=s, synthesizer_name="single_hop_specific") for s in samples]
).to_pandas().to_csv("ragas_testset.csv", index=False)

goldens = [
    Golden(input=q, context=c, expected_output=r, source_file="docs/orders.md")
    for q, c, r in QUESTIONS
]
dataset = DeepevalDataset(goldens=goldens)
for file_type in ("json", "jsonl", "csv"):
    dataset.save_as(file_type=file_type, directory=".", file_name="deepeval")
