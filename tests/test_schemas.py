"""The JSON Schemas of a test-set entry and a run record (schemas/) agree with the readers.

A schema cannot say everything a reader checks (unique ids, start <= end, a label of grade 1
or more), so the test is one-way: whatever the reader accepts, the schema accepts. Files
shipped with ragguard are checked whole; generated entries (hypothesis) check the agent keys
and the rest of the shapes.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragguard.core.errors import InputError, Where
from ragguard.results.records import record_from_mapping
from ragguard.testset.conversations import conversation_turns
from ragguard.testset.load import question_from_mapping

ROOT = Path(__file__).resolve().parents[1]
TESTSET = json.loads((ROOT / "schemas/testset-entry.schema.json").read_text())
RUN = json.loads((ROOT / "schemas/run-record.schema.json").read_text())
FORMAT = jsonschema.Draft202012Validator


def test_the_schemas_are_valid_json_schemas():
    FORMAT.check_schema(TESTSET)
    FORMAT.check_schema(RUN)


SHIPPED_TESTSETS = sorted(
    [*ROOT.glob("src/ragguard/demo/**/*testset*.yaml"), ROOT / "tests/badinput/common/testset.yaml"]
)
SHIPPED_RUNS = sorted(
    [*ROOT.glob("src/ragguard/demo/**/*.run.jsonl"), ROOT / "tests/badinput/common/run.jsonl"]
)


@pytest.mark.parametrize("path", SHIPPED_TESTSETS, ids=lambda p: p.name)
def test_every_shipped_test_set_entry_is_valid(path):
    data = yaml.safe_load(path.read_text())
    entries = data["questions"] if isinstance(data, dict) else data
    for entry in entries:
        FORMAT(TESTSET).validate(entry)


@pytest.mark.parametrize("path", SHIPPED_RUNS, ids=lambda p: p.name)
def test_every_shipped_run_line_is_valid(path):
    for line in path.read_text().splitlines():
        FORMAT(RUN).validate(json.loads(line))


ANY = st.one_of(st.none(), st.booleans(), st.integers(-1, 3), st.text(max_size=3))


def mostly(valid: st.SearchStrategy, invalid: st.SearchStrategy) -> st.SearchStrategy:
    """Valid values nine times in ten, so that many generated entries are read."""
    return st.sampled_from([True] * 9 + [False]).flatmap(lambda ok: valid if ok else invalid)


IDS = mostly(
    st.sampled_from(["c1", "c2", "doc#3"]) | st.integers(0, 9), st.sampled_from([" ", "", -2])
)
GRADES = mostly(st.integers(1, 4), st.sampled_from([0, -1, True, 1.5, "2"]))
EVIDENCE = st.fixed_dictionaries(
    {"doc": IDS},
    optional={
        "quote": mostly(st.sampled_from(["two years", None]), st.text(max_size=2)),
        "chars": mostly(st.just([0, 4]), st.lists(st.integers(-1, 5), max_size=3)),
        "grade": GRADES,
    },
).map(lambda e: {k: v for k, v in e.items() if not (k == "chars" and "quote" in e)})
LABELS = mostly(
    st.dictionaries(st.sampled_from(["c1", "c2", "c3"]), GRADES, min_size=1, max_size=3)
    | st.lists(mostly(IDS, EVIDENCE), min_size=1, max_size=3),
    st.one_of(IDS, st.lists(EVIDENCE, max_size=2), ANY),
)
ARGUMENTS = mostly(st.dictionaries(st.sampled_from(["id", "q"]), ANY, max_size=2), ANY)
TOOLS = mostly(
    st.lists(
        mostly(
            st.fixed_dictionaries({"name": st.just("lookup")}, optional={"arguments": ARGUMENTS})
            | st.just("lookup"),
            st.fixed_dictionaries({"name": ANY}) | st.sampled_from(["", " "]),
        ),
        min_size=1,
        max_size=3,
    ),
    st.one_of(st.just([]), ANY),
)
ENTRIES = st.fixed_dictionaries(
    {"id": IDS, "question": mostly(st.just("What?"), st.sampled_from(["", "  ", 3]))},
    optional={
        "relevant": LABELS,
        "answerable": mostly(st.booleans(), ANY),
        "hops": mostly(
            st.lists(st.fixed_dictionaries({"relevant": LABELS}), min_size=1, max_size=3),
            st.one_of(st.just([]), ANY),
        ),
        "expected_tools": TOOLS,
        "tool_order": mostly(st.sampled_from(["any", "strict"]), st.sampled_from(["sorted", 1])),
        "tags": mostly(st.lists(st.sampled_from(["a", "b"]), max_size=2), ANY),
    },
)


TURNS = st.fixed_dictionaries(
    {"question": mostly(st.just("Next?"), st.sampled_from(["", 3]))},
    optional={
        "relevant": LABELS,
        "expected_tools": TOOLS,
        "critical": mostly(st.booleans(), ANY),
    },
)
CONVERSATIONS = st.fixed_dictionaries(
    {
        "id": IDS,
        "turns": mostly(st.lists(TURNS, min_size=1, max_size=3), st.one_of(st.just([]), ANY)),
    },
    optional={
        "tags": mostly(st.lists(st.sampled_from(["a", "b"]), max_size=2), ANY),
        "critical": mostly(st.booleans(), ANY),
    },
)


def _accepted(read, entry) -> bool:
    try:
        read(entry, Where("t"))
    except InputError:
        return False
    return True


FAST = settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def _check_one_way(entries: st.SearchStrategy, read, schema) -> int:
    """Every generated value the reader accepts validates; returns how many it accepted."""
    accepted = []

    @FAST
    @given(entries)
    def check(value):
        if _accepted(read, value):
            accepted.append(value)
            FORMAT(schema).validate(value)

    check()
    return len(accepted)


def test_a_test_set_entry_the_loader_accepts_is_valid_under_the_schema():
    assert _check_one_way(ENTRIES, question_from_mapping, TESTSET) >= 60


def test_a_conversation_the_loader_accepts_is_valid_under_the_schema():
    assert _check_one_way(CONVERSATIONS, _read_conversation, TESTSET) >= 60


def _read_conversation(entry, where):
    return conversation_turns(entry, where, question_from_mapping)


CHUNKS = mostly(
    IDS
    | st.fixed_dictionaries(
        {"id": IDS},
        optional={"text": st.just("text"), "score": st.floats(-1, 1), "doc": IDS},
    ),
    st.fixed_dictionaries({"id": IDS}, optional={"text": ANY, "score": ANY, "x": ANY}),
)
STEPS = st.lists(
    mostly(
        st.fixed_dictionaries(
            {"type": st.just("retrieval")},
            optional={
                "query": mostly(st.just("q"), ANY),
                "retrieved": mostly(st.lists(CHUNKS, max_size=3, unique_by=str), ANY),
            },
        )
        | st.fixed_dictionaries(
            {"type": st.just("tool"), "name": mostly(st.just("lookup"), ANY)},
            optional={"arguments": ARGUMENTS | st.just('{"id": 1}')},
        )
        | st.fixed_dictionaries(
            {"type": st.just("llm")},
            optional={
                "usage": mostly(
                    st.dictionaries(st.sampled_from(["prompt_tokens", "cost"]), st.integers(0, 9)),
                    st.dictionaries(st.sampled_from(["tokens", "cost"]), st.integers(-1, 9)),
                )
            },
        ),
        st.one_of(ANY, st.fixed_dictionaries({"type": st.just("search")})),
    ),
    max_size=4,
)
RECORDS = st.fixed_dictionaries(
    {"id": IDS},
    optional={
        "retrieved": mostly(st.lists(CHUNKS, max_size=3, unique_by=str), ANY),
        "answer": mostly(st.just("an answer"), ANY),
        "steps": mostly(STEPS, ANY),
        "latency_ms": mostly(st.integers(0, 9), ANY),
    },
)


def test_a_run_record_the_reader_accepts_is_valid_under_the_schema():
    assert _check_one_way(RECORDS, record_from_mapping, RUN) >= 60


def test_the_agent_examples_of_the_docs_are_valid():
    docs = (ROOT / "docs/agents.md").read_text()
    blocks = [block.split("```", 1)[0] for block in docs.split("```yaml\n")[1:]]
    assert len(blocks) == 2
    for entry in (entry for block in blocks for entry in yaml.safe_load(block)):
        if "turns" in entry:
            _read_conversation(entry, Where("docs/agents.md"))
        else:
            question_from_mapping(entry, Where("docs/agents.md"))
        FORMAT(TESTSET).validate(entry)
    record = json.loads(docs.split("```json\n", 1)[1].split("```", 1)[0])
    record_from_mapping(record, Where("docs/agents.md"))
    FORMAT(RUN).validate(record)
