"""ragas and deepeval test sets, in the files those libraries write (tests/data/foreign,
written by ragas 0.4.3 and deepeval 4.3.1 with make_fixtures.py there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragguard.core.errors import InputError
from ragguard.testset.formats.foreign import read_foreign

FOREIGN = Path(__file__).parent.parent / "data" / "foreign"

FILES = [
    ("ragas.jsonl", "ragas"),
    ("ragas_testset.csv", "ragas"),
    ("deepeval.json", "deepeval"),
    ("deepeval.jsonl", "deepeval"),
    ("deepeval.csv", "deepeval"),
]
AUTH_CONTEXTS = (
    "Keys sent as query parameters are refused with status 400.",
    "Send the key in the Authorization header as a bearer token:\n"
    "`Authorization: Bearer <your-api-key>`.",
)


@pytest.mark.parametrize(("name", "flavour"), FILES)
def test_every_published_shape_reads_to_the_same_questions(name, flavour):
    questions = read_foreign(FOREIGN / name, flavour)

    assert [q.question for q in questions] == [
        "How many requests per minute are allowed?",
        'Can I send the API key as a query parameter, or "in the URL"?',
        "Does the API support GraphQL?",
    ]
    assert questions[0].contexts == ("Each API key may send 100 requests per minute.",)
    assert questions[1].contexts == AUTH_CONTEXTS
    assert questions[0].reference_answer == "100 requests per minute, per API key."


def test_ragas_retrieved_contexts_are_not_labels():
    first = read_foreign(FOREIGN / "ragas.jsonl", "ragas")[0]

    assert "Webhooks are retried for three days." not in first.contexts


def test_what_the_tools_add_is_kept_as_meta():
    ragas = read_foreign(FOREIGN / "ragas_testset.csv", "ragas")[0]
    deepeval = read_foreign(FOREIGN / "deepeval.json", "deepeval")[0]

    assert ragas.meta == {"synthesizer_name": "single_hop_specific"}
    assert deepeval.meta == {"source_file": "docs/orders.md"}


def test_ragas_01_test_set_keys_are_read(write):
    path = write(
        "old.jsonl",
        json.dumps(
            {
                "question": "Q?",
                "contexts": ["a context"],
                "ground_truth": "A.",
                "evolution_type": "simple",
            }
        )
        + "\n",
    )

    (question,) = read_foreign(path, "ragas")

    assert (question.question, question.contexts, question.reference_answer) == (
        "Q?",
        ("a context",),
        "A.",
    )
    assert question.meta == {"evolution_type": "simple"}


def test_deepeval_name_is_read(write):
    path = write("d.json", json.dumps([{"input": "Q?", "context": ["c"], "name": "auth-1"}]))

    assert read_foreign(path, "deepeval")[0].name == "auth-1"


@pytest.mark.parametrize(
    ("name", "content", "flavour", "fragments"),
    [
        ("a.jsonl", '{"reference_contexts": ["c"]}\n', "ragas", ["a.jsonl:1", "user_input"]),
        ("b.jsonl", '{"user_input": "Q", "reference_contexts": "c"}\n', "ragas", ["b.jsonl:1"]),
        (
            "c.jsonl",
            '{"user_input": "Q", "reference_contexts": [1, 2]}\n',
            "ragas",
            ["c.jsonl:1", "reference_contexts", "list of strings"],
        ),
        ("d.json", '{"input": "Q"}', "deepeval", ["d.json", "JSON list"]),
        ("e.json", '[{"input": "Q"}, 3]', "deepeval", ["e.json", "[1]"]),
        ("f.json", '[{"input": "Q"}, {"input": ""}]', "deepeval", ["f.json", "[1].input"]),
        (
            "g.csv",
            "user_input,reference_contexts\nQ,['unclosed\n",
            "ragas",
            ["g.csv:2", "reference_contexts"],
        ),
        (
            "g2.csv",
            "user_input,reference_contexts\nQ,\"['c', {['a']}]\"\n",
            "ragas",
            ["g2.csv:2: reference_contexts:", "as ragas writes it"],
        ),
        (
            "g3.csv",
            "user_input,reference_contexts\nQ,\"['c', ['a'], {'b': 1}]\"\n",
            "ragas",
            ["g3.csv:2: reference_contexts[1]:", "list of strings", "found a list"],
        ),
        (
            "g4.csv",
            "user_input,reference_contexts\nQ,\"['c\\udc00']\"\n",
            "ragas",
            ["g4.csv:2: reference_contexts:", "lone surrogate \\udc00 in a string"],
        ),
        (
            "g5.json",
            '[{"input": "Q"}, {"input": "Q2", "context": ["\\ud800"]}]',
            "deepeval",
            ["g5.json:1:", "lone surrogate \\ud800 in a string (column 47)"],
        ),
        ("h.txt", "x", "ragas", ["h.txt", ".jsonl, .json or .csv"]),
        ("i.json", "[]", "deepeval", ["i.json", "no deepeval question"]),
    ],
)
def test_bad_files_are_one_line_errors(write, name, content, flavour, fragments):
    path = write(name, content)

    with pytest.raises(InputError) as caught:
        read_foreign(path, flavour)

    message = str(caught.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
