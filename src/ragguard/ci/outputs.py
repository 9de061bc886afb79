"""Step outputs ($GITHUB_OUTPUT) and the job summary ($GITHUB_STEP_SUMMARY).

Outputs use GitHub's heredoc form (``name<<DELIMITER``), with a delimiter that does not occur
in the value, so a multi-line value (the metrics JSON, a message) cannot end early or smuggle
in another output.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragguard.compare import Comparison
from ragguard.results.judging import JudgeCosts


def output_block(name: str, value: str) -> str:
    """One output in the multi-line-safe form GitHub reads from $GITHUB_OUTPUT."""
    if not name or any(c in name for c in "\r\n=<"):
        raise ValueError(f"output name {name!r} is not usable")
    delimiter = f"ragguard_{secrets.token_hex(8)}"
    while delimiter in value:
        delimiter = f"ragguard_{secrets.token_hex(8)}"
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def parse_output_file(text: str) -> dict[str, str]:
    """Read $GITHUB_OUTPUT back the way the runner does (``name=value`` and heredoc forms).

    The runner reads the file line by line, a line ending at ``\r\n``, ``\r`` or ``\n``, and
    joins a heredoc's lines with ``\n``.
    """
    found: dict[str, str] = {}
    lines = re.split(r"\r\n|\r|\n", text)
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value: list[str] = []
            while index < len(lines) and lines[index] != delimiter:
                value.append(lines[index])
                index += 1
            if index >= len(lines):
                raise ValueError(f"output {name}: delimiter {delimiter} never closes")
            index += 1
            found[name] = "\n".join(value)
        elif "=" in line:
            name, value_text = line.split("=", 1)
            found[name] = value_text
    return found


def write_outputs(path: Path | None, values: Mapping[str, str]) -> None:
    """Append ``values`` to $GITHUB_OUTPUT (nothing outside Actions, where it is unset)."""
    if path is None:
        return
    with path.open("a", encoding="utf-8") as handle:
        for name, value in values.items():
            handle.write(output_block(name, value))


def append_summary(path: Path | None, markdown: str) -> None:
    """Append to the job summary (GitHub shows up to 1 MiB of it per step)."""
    if path is None:
        return
    with path.open("a", encoding="utf-8") as handle:
        handle.write(markdown if markdown.endswith("\n") else markdown + "\n")


def metrics_output(comparison: Comparison) -> dict[str, dict[str, Any]]:
    """Every metric's head value, baseline value, delta and verdict (None where unknown);
    the cost metrics (latency_p50, latency_p95 in seconds, tokens, cost) too, lower-is-better."""
    return {
        m.name: {
            "value": m.head,
            "baseline": m.baseline,
            "delta": m.delta,
            "p_value": m.p_value,
            "verdict": m.verdict,
        }
        for m in (*comparison.metrics, *comparison.costs)
    }


def action_outputs(
    comparison: Comparison,
    *,
    results_path: Path,
    comment_url: str | None,
    comment_id: int | None,
    status: str,
    comment_path: Path | None = None,
) -> dict[str, str]:
    """The action's outputs, as strings (as GitHub keeps them)."""
    paths = {"comment-path": str(comment_path)} if comment_path is not None else {}
    return {
        "verdict": comparison.reported_verdict,
        "status": status,
        "metrics": json.dumps(metrics_output(comparison), sort_keys=True, allow_nan=False),
        "comment-url": comment_url or "",
        "comment-id": "" if comment_id is None else str(comment_id),
        "results-path": str(results_path),
        "newly-failing": str(len(comparison.of_kind("newly_failing"))),
        **judge_outputs(comparison.judge_spent),
        **paths,
    }


def judge_outputs(costs: JudgeCosts | None) -> dict[str, str]:
    """``judge-calls``, ``judge-tokens`` and ``judge-cost`` (empty: no judge, or no price):
    ``costs`` is everything the judge cost, the rechecks' reruns included."""
    if costs is None:
        return {"judge-calls": "", "judge-tokens": "", "judge-cost": ""}
    cost = costs.cost
    return {
        "judge-calls": str(costs.calls),
        "judge-tokens": str(costs.tokens),
        "judge-cost": "" if cost is None else f"{cost:.6f}",
    }
