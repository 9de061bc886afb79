"""Every verdict explains itself (issue 28): each item's rendering in the comment and the
terminal, pinned as exact text on the hand-made cases of compare_cases.py."""

from __future__ import annotations

import json

from compare_cases import case_regression
from ragguard.compare import compare
from ragguard.compare.serialise import comparison_json
from ragguard.render import comparison_terminal, render_comment

# --- item 5: the p-value the gate decided with, said to be adjusted, everywhere ------------


def test_the_adjusted_p_value_is_shown_and_named_in_the_comment_terminal_and_json() -> None:
    comparison = compare(*case_regression())
    faithfulness = next(m for m in comparison.metrics if m.name == "faithfulness")
    assert (faithfulness.p_value, faithfulness.verdict) == (0.5, "pass")
    assert (
        "| `faithfulness` | 1.000 | 0.917 | ▼ −0.083 | [−0.250, 0.000] · p = 0.500 "
        "(adjusted 0.625) | ✅ pass |" in render_comment(comparison)
    )
    row = next(
        line for line in comparison_terminal(comparison).splitlines() if line.startswith("faith")
    )
    assert row.split() == [
        "faithfulness", "1.000", "0.917", "−0.083", "[−0.250,", "0.000]", "0.500",
        "(adjusted", "0.625)", "pass",
    ]  # fmt: skip
    data = json.loads(comparison_json(comparison))["metrics"]["faithfulness"]
    assert (data["p_value"], data["p_adjusted"]) == (0.5, 0.625)
