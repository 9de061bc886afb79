"""Extract the GitHub REST operations ragguard uses, and a few real webhook payloads, as fixtures.

The fake GitHub server in tests/github/ checks every request against GitHub's official OpenAPI
description (and its own successful answers against the documented response schemas). That description ships in the npm package ``@octokit/openapi`` (about 400 MB
unpacked), so only the operations the fake serves are kept, with their parameters and request
body schemas fully resolved (no ``$ref`` left), plus the bare list of every method and path of
the whole API (so the fake can tell "not GitHub's API" from "not served by the fake").

Event payloads come from ``@octokit/webhooks-examples`` (real payloads contributed to Octokit).

Regenerate (see docs/github.md)::

    mkdir -p /tmp/octokit && cd /tmp/octokit
    npm pack @octokit/openapi @octokit/webhooks-examples
    for f in *.tgz; do mkdir -p "${f%.tgz}" && tar xzf "$f" -C "${f%.tgz}"; done
    cd /work/main && python scripts/extract_openapi_subset.py \\
        --openapi /tmp/octokit/octokit-openapi-*/package \\
        --webhooks /tmp/octokit/octokit-webhooks-examples-*/package
"""

from __future__ import annotations

import argparse
import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SUBSET_PATH = REPO / "tests" / "fixtures" / "github-openapi-subset.json"
EVENTS_DIR = REPO / "tests" / "fixtures" / "events"

R = "/repos/{owner}/{repo}"

# Every operation the fake GitHub serves: (method, path template as in the description).
OPERATIONS: list[tuple[str, str]] = [
    ("GET", "/user"),
    ("GET", R),
    ("GET", R + "/pulls/{pull_number}"),
    ("GET", R + "/commits/{commit_sha}/pulls"),
    ("GET", R + "/commits/{ref}"),
    ("GET", R + "/issues/{issue_number}/comments"),
    ("POST", R + "/issues/{issue_number}/comments"),
    ("GET", R + "/issues/comments/{comment_id}"),
    ("PATCH", R + "/issues/comments/{comment_id}"),
    ("DELETE", R + "/issues/comments/{comment_id}"),
    ("POST", R + "/statuses/{sha}"),
    ("GET", R + "/commits/{ref}/status"),
    ("GET", R + "/commits/{ref}/statuses"),
    ("GET", R + "/compare/{basehead}"),
    ("GET", R + "/collaborators/{username}/permission"),
    ("GET", R + "/contents/{path}"),
    ("PUT", R + "/contents/{path}"),
    ("GET", R + "/git/ref/{ref}"),
    ("POST", R + "/git/refs"),
    ("PATCH", R + "/git/refs/{ref}"),
    ("GET", R + "/git/blobs/{file_sha}"),
    ("POST", R + "/git/trees"),
    ("POST", R + "/git/commits"),
    ("GET", R + "/actions/runs"),
    ("GET", R + "/actions/runs/{run_id}"),
    ("GET", R + "/actions/workflows/{workflow_id}/runs"),
    ("GET", R + "/actions/runs/{run_id}/artifacts"),
    ("GET", R + "/actions/artifacts"),
    ("GET", R + "/actions/artifacts/{artifact_id}"),
    ("GET", R + "/actions/artifacts/{artifact_id}/{archive_format}"),
]

Predicate = Callable[[dict[str, Any]], bool]

# Event payload fixtures: file name -> (webhook name, test the example must pass).
EVENTS: dict[str, tuple[str, Predicate]] = {
    "pull_request.opened.json": ("pull_request", lambda e: e.get("action") == "opened"),
    "pull_request.synchronize.json": (
        "pull_request",
        lambda e: e.get("action") == "synchronize",
    ),
    "push.json": ("push", lambda e: str(e.get("ref", "")).startswith("refs/heads/")),
    "workflow_dispatch.json": ("workflow_dispatch", lambda e: True),
    "merge_group.checks_requested.json": (
        "merge_group",
        lambda e: e.get("action") == "checks_requested",
    ),
    "issue_comment.created.json": (
        "issue_comment",
        lambda e: e.get("action") == "created",  # no example is on a pull request: tests add it
    ),
    "workflow_run.completed.json": (
        "workflow_run",
        lambda e: (
            e.get("action") == "completed"
            and e["workflow_run"].get("conclusion") == "success"
            and bool(e["workflow_run"].get("pull_requests"))
        ),
    ),
}


def resolve_refs(node: Any, root: dict[str, Any], seen: tuple[str, ...] = ()) -> Any:
    """Inline every ``$ref`` of ``node``; a reference cycle is cut to an empty schema."""
    if isinstance(node, list):
        return [resolve_refs(item, root, seen) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref in seen:
            return {}
        target: Any = root
        for part in ref.removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        return resolve_refs(copy.deepcopy(target), root, (*seen, ref))
    return {key: resolve_refs(value, root, seen) for key, value in node.items()}


def strip_docs(node: Any, names: bool = False) -> Any:
    """Drop prose and examples, which the validator ignores, to keep the fixture small.

    ``names`` is true for a ``properties`` mapping, whose keys are field names (a field may be
    called ``description``) and so are never dropped.
    """
    if isinstance(node, list):
        return [strip_docs(item) for item in node]
    if not isinstance(node, dict):
        return node
    dropped = set() if names else {"description", "example", "examples", "summary"}
    return {
        key: strip_docs(value, names=not names and key == "properties")
        for key, value in node.items()
        if key not in dropped
    }


def extract_operation(spec: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    """The parts of one operation the fake checks: parameters, request body, status codes."""
    item = spec["paths"].get(path)
    if item is None or method.lower() not in item:
        raise SystemExit(f"{method} {path} is not in the OpenAPI description; fix OPERATIONS")
    operation = item[method.lower()]
    parameters = resolve_refs(item.get("parameters", []) + operation.get("parameters", []), spec)
    body = operation.get("requestBody")
    schema = None
    required = False
    if body is not None:
        body = resolve_refs(body, spec)
        schema = body["content"].get("application/json", {}).get("schema")
        required = bool(body.get("required"))
    return {
        "operationId": operation["operationId"],
        "parameters": [
            {
                "name": p["name"],
                "in": p["in"],
                "required": bool(p.get("required")),
                "schema": strip_docs(p.get("schema", {})),
                **({"x-multi-segment": True} if p.get("x-multi-segment") else {}),
            }
            for p in parameters
        ],
        "requestBody": None
        if schema is None
        else {"required": required, "schema": strip_docs(schema)},
        "responses": sorted(operation.get("responses", {})),
        "response_schemas": success_schemas(operation, spec),
    }


def success_schemas(operation: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """The JSON schema of each 2xx answer, so the fake can check what it sends back."""
    schemas = {}
    for code, response in operation.get("responses", {}).items():
        if not code.startswith("2"):
            continue
        content = resolve_refs(response, spec).get("content", {})
        schema = content.get("application/json", {}).get("schema")
        if schema is not None:
            schemas[code] = strip_docs(schema)
    return schemas


def build_subset(spec: dict[str, Any], source: str) -> dict[str, Any]:
    """The fixture: where it came from, every method+path of the API, and our operations."""
    methods = {"get", "put", "post", "patch", "delete", "head", "options"}
    all_operations = {
        path: sorted(m.upper() for m in item if m in methods)
        for path, item in sorted(spec["paths"].items())
    }
    return {
        "source": source,
        "info_version": spec["info"]["version"],
        "all_operations": all_operations,
        "operations": {
            f"{method} {path}": extract_operation(spec, method, path) for method, path in OPERATIONS
        },
    }


def extract_events(webhooks_dir: Path) -> dict[str, dict[str, Any]]:
    """Pick the first real example payload of each event the action handles."""
    index = json.loads((webhooks_dir / "api.github.com" / "index.json").read_text())
    by_name = {entry["name"]: entry["examples"] for entry in index}
    chosen: dict[str, dict[str, Any]] = {}
    for filename, (name, wanted) in EVENTS.items():
        matches = [example for example in by_name[name] if wanted(example)]
        if not matches:
            raise SystemExit(f"no {name} example matches the rule for {filename}")
        chosen[filename] = matches[0]
    return chosen


def package_version(package_dir: Path) -> str:
    meta = json.loads((package_dir / "package.json").read_text())
    return f"{meta['name']}@{meta['version']}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--openapi", type=Path, help="unpacked @octokit/openapi package folder")
    parser.add_argument(
        "--webhooks", type=Path, help="unpacked @octokit/webhooks-examples package folder"
    )
    args = parser.parse_args()
    if args.openapi is None and args.webhooks is None:
        parser.error("give --openapi, --webhooks or both")
    if args.openapi is not None:
        spec_file = args.openapi / "generated" / "api.github.com.json"
        spec = json.loads(spec_file.read_text())
        subset = build_subset(
            spec, f"{package_version(args.openapi)} generated/api.github.com.json"
        )
        SUBSET_PATH.parent.mkdir(parents=True, exist_ok=True)
        SUBSET_PATH.write_text(json.dumps(subset, indent=1, sort_keys=True) + "\n")
        print(f"wrote {SUBSET_PATH.relative_to(REPO)}: {len(subset['operations'])} operations")
    if args.webhooks is not None:
        EVENTS_DIR.mkdir(parents=True, exist_ok=True)
        source = package_version(args.webhooks)
        for filename, payload in extract_events(args.webhooks).items():
            (EVENTS_DIR / filename).write_text(json.dumps(payload, indent=2) + "\n")
            print(f"wrote {(EVENTS_DIR / filename).relative_to(REPO)} from {source}")
        (EVENTS_DIR / "SOURCE").write_text(
            f"Payloads copied unchanged from {source} (api.github.com/index.json)\n"
            "by scripts/extract_openapi_subset.py --webhooks; see docs/github.md.\n"
        )


if __name__ == "__main__":
    main()
