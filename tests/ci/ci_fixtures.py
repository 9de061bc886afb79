"""Helpers shared by the `ragguard ci` tests (fixtures themselves live in conftest.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "github"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))  # act_harness: GitRepo

EVENTS = Path(__file__).resolve().parents[1] / "fixtures" / "events"
REPOSITORY = "octo-org/octo-repo"


def event_payload(name: str) -> dict[str, Any]:
    """A payload from @octokit/webhooks-examples, as GitHub sends it."""
    return json.loads((EVENTS / f"{name}.json").read_text(encoding="utf-8"))
