"""Drafts as test-set YAML: every kind's entry loads through the test set loader as a draft,
with its kind, source and labels; appending keeps the file's bytes."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import yaml

from ragguard.testset.drafting.model import Draft, Quote, Turn
from ragguard.testset.drafting.writing import appended, drafts_yaml
from ragguard.testset.load import load_testset
from ragguard.testset.model import Evidence

ROOT = Path(__file__).resolve().parents[3]

A = Quote("a.md", "Refunds take 14 days.")
B = Quote("b.md", "Cards are charged at shipping.")
DRAFTS = [
    Draft("single-fact", "How long do refunds take?", "14 days.", "judge:m", evidence=(A,)),
    Draft("multi-hop", "When is a refunded card charged?", "x", "judge:m", hops=((A,), (B,))),
    Draft("comparison", "Which comes first?", "y", "judge:m", evidence=(A, B)),
    Draft("unanswerable", "Is there a GraphQL API?", None, "judge:m"),
    Draft(
        "follow-up",
        "How long do refunds take?",
        "14 days.",
        "judge:m",
        turns=(Turn("How long do refunds take?", "14 days.", (A,)), Turn("And cards?", "z", (B,))),
    ),
]


def test_every_kind_loads_as_a_draft_with_its_labels(tmp_path: Path) -> None:
    path = tmp_path / "drafts.yaml"
    path.write_text(drafts_yaml(DRAFTS, "drafted"), encoding="utf-8")
    testset = load_testset(path)
    by_id = testset.by_id
    assert len(testset.drafts) == len(testset.questions) == 6  # the follow-up is two turns
    fact = by_id[DRAFTS[0].id]
    assert (fact.kind, fact.source, fact.reference_answer) == ("single-fact", "judge:m", "14 days.")
    assert fact.evidence == (Evidence("a.md", quote=A.quote),)
    assert [hop.evidence for hop in by_id[DRAFTS[1].id].hops] == [
        (Evidence("a.md", quote=A.quote),),
        (Evidence("b.md", quote=B.quote),),
    ]
    assert len(by_id[DRAFTS[2].id].evidence) == 2
    assert not by_id[DRAFTS[3].id].answerable and not by_id[DRAFTS[3].id].has_relevant
    second = by_id[f"{DRAFTS[4].id}#2"]
    assert (second.question, second.kind, second.is_draft) == ("And cards?", "follow-up", True)


def test_every_kind_is_valid_under_the_test_set_entry_schema() -> None:
    schema = json.loads((ROOT / "schemas" / "testset-entry.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for entry in yaml.safe_load(drafts_yaml(DRAFTS, "drafted")):
        assert not list(validator.iter_errors(entry)), entry


def test_ids_are_stable_hashes_of_the_question() -> None:
    again = Draft("single-fact", "How long do refunds take?", "other", "offline-extractive")
    assert again.id == DRAFTS[0].id and again.id.startswith("draft-") and len(again.id) == 16
    assert DRAFTS[4].id != DRAFTS[0].id  # a conversation hashes all its turns


def test_appending_keeps_every_existing_byte() -> None:
    existing = "- id: q1\r\n  question: Old?\r\n  relevant: [c1]"  # no final line break
    text = appended(existing, drafts_yaml(DRAFTS[:1], "drafted"))
    assert text.startswith(existing + "\n\n# drafted\n- id: draft-")
    assert appended("", "x\n") == "x\n"
    assert appended("a\n", "x\n") == "a\n\nx\n"
