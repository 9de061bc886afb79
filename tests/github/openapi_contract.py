"""GitHub's OpenAPI description (the extracted subset) as a request checker for the fake.

The fixture ``tests/fixtures/github-openapi-subset.json`` is written by
``scripts/extract_openapi_subset.py`` from the npm package ``@octokit/openapi``. A request is
conforming when its method and path match an operation of the description, its path and query
parameters have the documented names and types, and its JSON body validates against the
operation's request body schema. Bodies are checked strictly: a property the schema does not list
is reported too, because GitHub ignores unknown fields silently and a misspelt field would
otherwise pass unnoticed.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft4Validator

SUBSET_PATH = Path(__file__).resolve().parent.parent / "fixtures" / "github-openapi-subset.json"


class ContractError(Exception):
    """A request that GitHub's description does not allow; ``status`` is what the fake answers."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Operation:
    """One operation of the description: its key (``METHOD /path/{template}``) and details."""

    key: str
    operation_id: str
    method: str
    template: str
    pattern: re.Pattern[str]
    parameters: tuple[dict[str, Any], ...]
    body_required: bool
    body_validator: Draft4Validator | None
    responses: frozenset[int]
    response_validators: dict[int, Draft4Validator]


@dataclass(frozen=True)
class Match:
    operation: Operation
    path_params: dict[str, str]


def openapi_to_jsonschema(schema: Any, strict: bool = True) -> Any:
    """Turn OpenAPI 3.0's ``nullable`` into JSON Schema and, if ``strict``, forbid unknown fields."""
    if isinstance(schema, list):
        return [openapi_to_jsonschema(item, strict) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        key: (
            {name: openapi_to_jsonschema(sub, strict) for name, sub in value.items()}
            if key == "properties"
            else openapi_to_jsonschema(value, strict)
        )
        for key, value in schema.items()
        if key != "nullable"
    }
    if strict and "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    if schema.get("nullable"):
        if isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def answer_schema(schema: Any) -> Any:
    """A response schema for checking the fake's answers, which carry a subset of the fields.

    ``required`` is dropped (the fake leaves out fields PyGithub does not need), and so ``oneOf``
    becomes ``anyOf`` (without ``required``, several branches match). Types, enums and unknown
    fields are still checked: the fake must not invent a field or give one the wrong type.
    """
    if isinstance(schema, list):
        return [answer_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in openapi_to_jsonschema(schema, strict=True).items():
        if key == "required":
            continue
        if key == "properties":
            out[key] = {name: answer_schema(sub) for name, sub in value.items()}
        else:
            out["anyOf" if key == "oneOf" else key] = answer_schema(value)
    return out


def template_pattern(template: str, multi_segment: set[str]) -> re.Pattern[str]:
    """A regex for a path template; ``x-multi-segment`` parameters may contain slashes."""
    parts = re.split(r"(\{[^}]+\})", template)
    regex = ""
    for part in parts:
        if part.startswith("{") and part.endswith("}"):
            name = part[1:-1]
            group = re.sub(r"\W", "_", name)
            regex += f"(?P<{group}>.+)" if name in multi_segment else f"(?P<{group}>[^/]+)"
        else:
            regex += re.escape(part)
    return re.compile(f"^{regex}$")


def literal_weight(template: str) -> int:
    """Prefer templates with more literal text, so ``/issues/comments/{id}`` beats a parameter."""
    return len(re.sub(r"\{[^}]+\}", "", template))


class OpenAPIContract:
    """Matches requests to operations and checks them against the description."""

    def __init__(self, subset: dict[str, Any]) -> None:
        self.source: str = subset["source"]
        self.all_operations: dict[str, list[str]] = subset["all_operations"]
        self.operations: list[Operation] = sorted(
            (self._operation(key, raw) for key, raw in subset["operations"].items()),
            key=lambda op: -literal_weight(op.template),
        )
        self._all_patterns = sorted(
            ((template_pattern(p, self._multi(p)), p) for p in self.all_operations),
            key=lambda item: -literal_weight(item[1]),
        )

    @classmethod
    def load(cls, path: Path = SUBSET_PATH) -> OpenAPIContract:
        return cls(json.loads(path.read_text()))

    @staticmethod
    def _multi(template: str) -> set[str]:
        # Whole-API paths carry no parameter details; these are the multi-segment ones GitHub has.
        return {"path", "ref", "sha", "basehead"} & set(re.findall(r"\{([^}]+)\}", template))

    @staticmethod
    def _operation(key: str, raw: dict[str, Any]) -> Operation:
        method, template = key.split(" ", 1)
        multi = {p["name"] for p in raw["parameters"] if p.get("x-multi-segment")}
        body = raw["requestBody"]
        validator = None
        if body is not None:
            schema = openapi_to_jsonschema(copy.deepcopy(body["schema"]))
            validator = Draft4Validator(schema)
        return Operation(
            key=key,
            operation_id=raw["operationId"],
            method=method,
            template=template,
            pattern=template_pattern(template, multi),
            parameters=tuple(raw["parameters"]),
            body_required=bool(body and body["required"]),
            body_validator=validator,
            responses=frozenset(int(code) for code in raw["responses"] if code.isdigit()),
            response_validators={
                int(code): Draft4Validator(answer_schema(schema))
                for code, schema in raw.get("response_schemas", {}).items()
            },
        )

    def match(self, method: str, path: str) -> Match:
        """The served operation for ``method path``, or a ContractError saying why there is none."""
        for op in self.operations:
            found = op.pattern.match(path)
            if found and op.method == method:
                return Match(op, found.groupdict())
        for pattern, template in self._all_patterns:
            if pattern.match(path):
                if method in self.all_operations[template]:
                    raise ContractError(
                        404,
                        f"{method} {template} is in GitHub's API but the fake does not serve it; "
                        "add it to scripts/extract_openapi_subset.py and the fake",
                    )
                raise ContractError(
                    404,
                    f"{method} {path}: GitHub's API has {template} only for "
                    f"{', '.join(self.all_operations[template])}",
                )
        raise ContractError(404, f"{method} {path} is not a path of GitHub's REST API")

    def check(
        self, match: Match, query: dict[str, list[str]], body: bytes, content_type: str
    ) -> Any:
        """Check parameters and body; return the parsed JSON body (or None)."""
        op = match.operation
        for param in op.parameters:
            if param["in"] == "path":
                check_scalar(op, param, match.path_params[param["name"]])
        known_query = {p["name"]: p for p in op.parameters if p["in"] == "query"}
        for name, values in query.items():
            if name not in known_query:
                raise ContractError(
                    422, f"{op.key}: query parameter {name!r} is not in GitHub's description"
                )
            for value in values:
                check_scalar(op, known_query[name], value)
        for name, param in known_query.items():
            if param["required"] and name not in query:
                raise ContractError(422, f"{op.key}: required query parameter {name!r} is missing")
        return check_body(op, body, content_type)


def check_answer(op: Operation, status: int, payload: Any) -> str | None:
    """Why the fake's ``status`` answer does not match GitHub's response schema, or None."""
    validator = op.response_validators.get(status)
    if validator is None or payload is None:
        return None
    errors = sorted(validator.iter_errors(payload), key=lambda e: list(e.path))
    if not errors:
        return None
    problems = "; ".join(
        f"at {'/'.join(str(part) for part in error.path) or '(answer)'}: {error.message[:200]}"
        for error in errors[:5]
    )
    return f"fake's {status} answer to {op.key} breaks GitHub's schema {problems}"


def check_scalar(op: Operation, param: dict[str, Any], raw: str) -> None:
    """Check one path or query value (always a string on the wire) against its schema."""
    schema = param["schema"]
    kind = schema.get("type")
    value: Any = raw
    if kind == "integer":
        if not re.fullmatch(r"-?\d+", raw):
            raise ContractError(
                422, f"{op.key}: {param['in']} parameter {param['name']}={raw!r} is not an integer"
            )
        value = int(raw)
    elif kind == "boolean":
        if raw not in {"true", "false", "1", "0"}:
            raise ContractError(
                422, f"{op.key}: {param['in']} parameter {param['name']}={raw!r} is not a boolean"
            )
        return
    if "enum" in schema and value not in schema["enum"]:
        raise ContractError(
            422,
            f"{op.key}: {param['in']} parameter {param['name']}={raw!r} is not one of "
            f"{schema['enum']}",
        )


def check_body(op: Operation, body: bytes, content_type: str) -> Any:
    """Parse and validate a JSON request body against the operation's schema."""
    if not body.strip():
        if op.body_required:
            raise ContractError(422, f"{op.key}: a JSON request body is required")
        return None
    if op.body_validator is None:
        raise ContractError(422, f"{op.key}: takes no request body, got {len(body)} bytes")
    if "json" not in content_type:
        raise ContractError(415, f"{op.key}: body must be application/json, got {content_type!r}")
    try:
        parsed = json.loads(body)
    except ValueError as exc:
        raise ContractError(400, f"{op.key}: body is not JSON: {exc}") from None
    errors = sorted(op.body_validator.iter_errors(parsed), key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(part) for part in errors[0].path) or "(body)"
        raise ContractError(
            422, f"{op.key}: body does not match GitHub's schema at {where}: {errors[0].message}"
        )
    return parsed
