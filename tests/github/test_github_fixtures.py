"""The committed fixtures (OpenAPI subset, event payloads) and the script that extracts them."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

from fake_github import FakeGitHub
from openapi_contract import OpenAPIContract, openapi_to_jsonschema

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "tests" / "fixtures" / "events"


def extractor() -> ModuleType:
    path = ROOT / "scripts" / "extract_openapi_subset.py"
    spec = importlib.util.spec_from_file_location("extract_openapi_subset", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_subset_comes_from_octokit_and_matches_the_fakes_handlers(
    contract: OpenAPIContract,
) -> None:
    assert contract.source.startswith("@octokit/openapi@")
    served = {op.operation_id for op in contract.operations}
    handled = set(FakeGitHub(contract=contract)._handlers)
    assert served == handled
    assert {f"{m} {p}" for m, p in extractor().OPERATIONS} == {op.key for op in contract.operations}
    assert len(contract.all_operations) > 500  # the whole API's paths, to name what is not served


def test_event_payloads_are_the_real_examples() -> None:
    assert "@octokit/webhooks-examples@" in (EVENTS / "SOURCE").read_text()
    opened = json.loads((EVENTS / "pull_request.opened.json").read_text())
    synchronize = json.loads((EVENTS / "pull_request.synchronize.json").read_text())
    assert (opened["action"], synchronize["action"]) == ("opened", "synchronize")
    for event in (opened, synchronize):
        assert event["number"] == event["pull_request"]["number"]
        assert len(event["pull_request"]["head"]["sha"]) == 40
        assert event["pull_request"]["base"]["ref"]
    push = json.loads((EVENTS / "push.json").read_text())
    assert push["ref"].startswith("refs/heads/") and len(push["after"]) == 40
    dispatch = json.loads((EVENTS / "workflow_dispatch.json").read_text())
    assert dispatch["ref"].startswith("refs/heads/") and "inputs" in dispatch
    run = json.loads((EVENTS / "workflow_run.completed.json").read_text())
    assert run["action"] == "completed" and run["workflow_run"]["conclusion"] == "success"
    assert run["workflow_run"]["pull_requests"]


def test_resolve_refs_inlines_and_cuts_cycles() -> None:
    spec = {
        "components": {
            "schemas": {
                "node": {
                    "type": "object",
                    "properties": {"child": {"$ref": "#/components/schemas/node"}},
                },
                "leaf": {"type": "string", "description": "words"},
            }
        }
    }
    resolved = extractor().resolve_refs({"$ref": "#/components/schemas/node"}, spec)
    assert resolved["properties"]["child"] == {}
    assert extractor().resolve_refs({"a": {"$ref": "#/components/schemas/leaf"}}, spec) == {
        "a": {"type": "string", "description": "words"}
    }


def test_strip_docs_keeps_fields_named_like_doc_keywords() -> None:
    schema = {
        "type": "object",
        "description": "prose",
        "properties": {"description": {"type": "string", "example": "x"}},
    }
    assert extractor().strip_docs(schema) == {
        "type": "object",
        "properties": {"description": {"type": "string"}},
    }


def test_nullable_becomes_json_schema_null() -> None:
    assert openapi_to_jsonschema({"type": "string", "nullable": True}) == {
        "type": ["string", "null"]
    }
    assert openapi_to_jsonschema({"type": "string", "enum": ["a"], "nullable": True}) == {
        "type": ["string", "null"],
        "enum": ["a", None],
    }
    assert openapi_to_jsonschema({"oneOf": [{"type": "string"}], "nullable": True}) == {
        "anyOf": [{"oneOf": [{"type": "string"}]}, {"type": "null"}]
    }
