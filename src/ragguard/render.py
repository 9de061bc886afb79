"""Rendering values as text: the terminal table, markdown through jinja2, and escaping.

Everything that comes from the evaluated system or the test set is untrusted: markdown
output passes it through :func:`escape_markdown`, terminal output through
:func:`printable`.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment
from tabulate import tabulate

from ragguard.metrics.retrieval import Explanation
from ragguard.results import STATUS_OK, Results

PACKAGE_TEMPLATES = Path(__file__).parent / "templates"
SOURCE_TEMPLATES = Path(__file__).resolve().parents[2] / "templates"

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>&@:=\"'$^])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def printable(text: str, limit: int = 200) -> str:
    """One line of untrusted text for a terminal: control characters removed, cut at limit."""
    flat = _CONTROL.sub("", " ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def escape_markdown(text: Any, limit: int = 300) -> str:
    """Untrusted text as inert markdown: one line, every markup character escaped.

    Backslash escapes stop emphasis, links, images, headings, tables and autolinks;
    ``<`` and ``&`` become entities so no HTML tag or comment (and so no fake marker) can
    open; ``@`` is escaped so mentions do not notify.
    """
    flat = printable(str(text), limit)
    return _MARKDOWN_SPECIAL.sub(lambda m: _ENTITY.get(m.group(1), "\\" + m.group(1)), flat)


_ENTITY = {"<": "&lt;", ">": "&gt;", "&": "&amp;", "|": "&#124;", "@": "@\u200b"}


@cache
def environment() -> SandboxedEnvironment:
    """The jinja2 environment: sandboxed, templates from the wheel or the source tree."""
    env = SandboxedEnvironment(
        loader=jinja2.FileSystemLoader([str(PACKAGE_TEMPLATES), str(SOURCE_TEMPLATES)]),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["md"] = escape_markdown
    env.filters["fmt"] = fmt
    return env


def summary_rows(results: Results) -> list[list[str]]:
    rows = []
    for name in results.metrics:
        summary = results.summary.get(name)
        if summary is None:
            rows.append([name, "n/a", "", "0"])
        else:
            interval = f"[{fmt(summary.low)}, {fmt(summary.high)}]"
            rows.append([name, fmt(summary.value), interval, str(summary.n)])
    return rows


def counts_line(results: Results) -> str:
    counts = {status: n for status, n in results.counts.items() if n}
    parts = ", ".join(f"{n} {status}" for status, n in counts.items())
    total = len(results.questions)
    return f"{total} question{'' if total == 1 else 's'}: {parts}"


def terminal_report(results: Results) -> str:
    """The plain-text table ``ragguard score`` and ``ragguard report`` print."""
    lines = [f"suite {printable(results.suite)} · {counts_line(results)}", ""]
    lines.append(
        tabulate(
            summary_rows(results),
            headers=["metric", "value", "95% CI", "n"],
            tablefmt="simple",
            disable_numparse=True,
        )
    )
    problems = [q for q in results.questions if q.status != STATUS_OK]
    if problems:
        lines.append("")
        for question in problems:
            lines.append(
                f"{question.status}: {printable(question.id, 80)}: {printable(question.error or '')}"
            )
    return "\n".join(lines) + "\n"


def markdown_report(results: Results) -> str:
    template = environment().get_template("report.md.j2")
    problems = [q for q in results.questions if q.status != STATUS_OK]
    return template.render(
        results=results,
        rows=summary_rows(results),
        counts=counts_line(results),
        problems=problems,
    )


def json_report(results: Results) -> str:
    """The summary as JSON (the full per-question data is the results file itself)."""
    data = {
        "suite": results.suite,
        "questions": len(results.questions),
        "counts": results.counts,
        "metrics": {
            name: {"value": s.value, "n": s.n, "ci": [s.low, s.high]}
            for name, s in results.summary.items()
        },
    }
    return json.dumps(data, indent=2, allow_nan=False) + "\n"


def explanation_text(question_id: str, question: str, explanation: Explanation) -> str:
    """The seed's worked-example layout for one question at one cut-off."""
    k = explanation.k
    header = printable(question_id, 80) + (f": {printable(question)}" if question else "")
    lines = [header]
    for row in explanation.rows:
        lines.append(
            f"  rank {row.rank}: {printable(row.chunk, 60)}  rel {row.grade} / "
            f"log2({row.rank + 1}) = {row.gain:.3f}"
        )
    hits, n_rel = explanation.hits, explanation.n_relevant
    lines.append(f"precision@{k} = {hits}/{k} = {hits / k:.3f}")
    lines.append(f"recall@{k}    = {hits}/{n_rel} = {hits / n_rel if n_rel else 0.0:.3f}")
    first = explanation.first_rank
    rr = f"1/{first} = {1 / first:.3f}" if first else "0 (no relevant chunk retrieved) = 0.000"
    lines.append(f"reciprocal rank = {rr}")
    lines.append(f"DCG@{k} = {explanation.dcg:.3f}, IDCG@{k} = {explanation.idcg:.3f}")
    lines.append(f"nDCG@{k} = {explanation.ndcg:.3f}")
    return "\n".join(lines) + "\n"
