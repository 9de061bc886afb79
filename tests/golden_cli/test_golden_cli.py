"""The command line's user-visible behaviour, byte for byte, against stored golden outputs.

Each scenario of record.py runs ``python -m ragguard ...`` as a user would and must give the
stored exit codes, stdout, stderr and written files (after the normalisation README.md
lists). After an intended change of the output, regenerate and review the diff:

    RAGGUARD_UPDATE_GOLDEN=1 python -m pytest tests/golden_cli
    git diff tests/golden_cli/
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest


def _load_record():
    """record.py by its path, under a name no other test module can shadow."""
    name = "ragguard_golden_cli_record"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("record.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


record = _load_record()
UPDATE = os.environ.get("RAGGUARD_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("scenario", record.SCENARIOS, ids=lambda scenario: scenario.name)
def test_cli_output_matches_golden(scenario) -> None:
    produced = record.produce(scenario)
    if UPDATE:
        record.write_golden(scenario, produced)
    stored = record.read_golden(scenario)
    assert stored, f"no goldens for {scenario.name}; run with RAGGUARD_UPDATE_GOLDEN=1"
    problems = record.differences(stored, produced)
    assert not problems, (
        f"{scenario.name} ({scenario.why}) differs from tests/golden_cli/{scenario.name}/;"
        " if the change is intended, regenerate with RAGGUARD_UPDATE_GOLDEN=1 and review"
        " the diff\n\n" + "\n".join(problems)
    )


def test_every_golden_folder_belongs_to_a_scenario() -> None:
    assert record.stale_folders() == [], "remove the goldens of scenarios that are gone"


def test_scenario_names_are_unique() -> None:
    names = [scenario.name for scenario in record.SCENARIOS]
    assert len(names) == len(set(names))
