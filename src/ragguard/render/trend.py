"""The trend of each metric over the target branch's last baselines, as mermaid charts.

GitHub renders a ```` ```mermaid ```` block natively in comments and job summaries. The data is
the data branch's history file (one line per saved baseline: commit and summary values), plus
this run's values as the last point. Pure: history lines and values in, markdown out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

MAX_POINTS = 20
MAX_CHARTS = 8
_SHA = re.compile(r"^[0-9a-f]{7,40}$")
_METRIC = re.compile(r"^[A-Za-z0-9_]+(@[0-9]+)?$")


def _value(summary: Any, metric: str) -> float | None:
    if not isinstance(summary, Mapping):
        return None
    value = summary.get(metric)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def trend_markdown(
    history: Sequence[Mapping[str, Any]],
    head: Mapping[str, float | None],
    branch: str,
    head_label: str = "this run",
) -> str:
    """A collapsed section with one chart per metric; empty when there is no history."""
    recent = [line for line in history if _SHA.match(str(line.get("commit", "")))][-MAX_POINTS:]
    if not recent:
        return ""
    labels = [str(line["commit"])[:7] for line in recent] + [head_label]
    charts = []
    for metric in [m for m in head if _METRIC.match(m)][:MAX_CHARTS]:
        values = [_value(line.get("summary"), metric) for line in recent] + [head.get(metric)]
        if any(v is None for v in values):
            continue
        charts.append(_chart(metric, labels, [float(v) for v in values if v is not None]))
    if not charts:
        return ""
    safe_branch = re.sub(r"[^A-Za-z0-9._/-]", "_", branch)[:100]
    return (
        f"<details><summary>Trend over the last {len(recent)} baselines of "
        f"<code>{safe_branch}</code></summary>\n\n" + "\n\n".join(charts) + "\n\n</details>\n"
    )


def _chart(metric: str, labels: Sequence[str], values: Sequence[float]) -> str:
    axis = ", ".join(f'"{label}"' for label in labels)
    points = ", ".join(f"{value:.4f}" for value in values)
    return (
        "```mermaid\nxychart-beta\n"
        f'    title "{metric}"\n'
        f"    x-axis [{axis}]\n"
        f'    y-axis "{metric}" 0 --> 1\n'
        f"    line [{points}]\n```"
    )
