"""action.yml and the example workflows: inputs reach `ragguard ci`, nothing is interpolated
into a script (template injection), every output comes from the `ragguard ci` step."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from ragguard.ci.settings import INPUT_VARIABLES

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
WORKFLOWS = sorted((ROOT / "docs" / "workflows").glob("*.yml")) + sorted(
    (ROOT / ".github" / "workflows").glob("*.yml")
)


def ci_step() -> dict:
    [step] = [s for s in ACTION["runs"]["steps"] if s.get("id") == "ci"]
    return step


def test_every_input_is_described_optional_and_passed_through_its_own_variable() -> None:
    env = ci_step()["env"]
    for name, spec in ACTION["inputs"].items():
        assert spec["description"].strip(), name
        assert spec["required"] is False and "default" in spec, name
        if name in INPUT_VARIABLES:
            assert env[INPUT_VARIABLES[name]] == f"${{{{ inputs.{name} }}}}", name
    handled = set(INPUT_VARIABLES) | {"working-directory", "install"}
    assert set(ACTION["inputs"]) == handled


def test_no_expression_is_interpolated_into_a_script() -> None:
    steps = list(ACTION["runs"]["steps"])
    for path in WORKFLOWS:
        workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
        steps += [step for job in workflow["jobs"].values() for step in job["steps"]]
    scripts = [step["run"] for step in steps if "run" in step]
    assert scripts, "no run steps found"
    assert not [script for script in scripts if "${{" in script]


def test_outputs_come_from_the_ci_step_and_branding_is_set() -> None:
    for name, spec in ACTION["outputs"].items():
        assert spec["value"] == f"${{{{ steps.ci.outputs.{name} }}}}", name
        assert spec["description"].strip(), name
    assert {"verdict", "metrics", "comment-url", "results-path"} <= set(ACTION["outputs"])
    assert ACTION["branding"]["icon"] and ACTION["branding"]["color"]


def test_ci_runs_through_python_so_the_jobs_interpreter_is_used() -> None:
    assert ci_step()["run"] == "python -m ragguard ci"
    assert re.search(
        r"python -m pip install .*\"\$RAGGUARD_ACTION_PATH\"", ACTION["runs"]["steps"][0]["run"]
    )
