"""Reports of one results file: the terminal table, markdown, JSON, and ``explain``."""

from __future__ import annotations

import json
from collections.abc import Mapping

from ragguard.metrics.retrieval import Explanation
from ragguard.render.failures import failure_lines, group_failures
from ragguard.render.text import environment, fmt, printable, simple_table
from ragguard.results.model import STATUS_OK, Results


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
    lines.append(simple_table(["metric", "value", "95% CI", "n"], summary_rows(results)))
    problems = [(q.id, q.status, q.error or "") for q in results.questions if q.status != STATUS_OK]
    if problems:
        lines.append("")
        lines.extend(failure_lines(group_failures(problems)))  # an error shared: shown once
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


def evidence_lines(evidence: Mapping[str, int], metrics: Mapping[str, float]) -> list[str]:
    """For a question labelled with evidence: its labels, and its values as scored (each
    rank above shows the grade its chunk earned: the best label it covers)."""
    lines = ["labels are evidence; a chunk's rel is the best grade of the labels it covers:"]
    lines += [f"  {printable(key, 100)}  grade {grade}" for key, grade in evidence.items()]
    scored = ", ".join(f"{name} = {value:.3f}" for name, value in metrics.items())
    return [*lines, f"as scored: {scored}"] if scored else lines
