"""The rendered comparison: golden comments, escaping of hostile text, size, templates, JUnit.

Golden files live in tests/golden/. After an intended change of the comment, regenerate
them with ``RAGGUARD_UPDATE_GOLDEN=1 python -m pytest tests/test_render.py`` and review
the diff.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from tabulate import tabulate

from compare_cases import (
    GOLDEN_CASES,
    QUESTIONS,
    head_results,
    results,
    supported,
    unsupported,
    with_sentences,
)
from ragguard.compare import Comparison, compare
from ragguard.compare.serialise import comparison_json
from ragguard.config.sections.gate import GateRules, MetricRule
from ragguard.core.errors import InputError
from ragguard.render import (
    COMMENT_LIMIT,
    CUT_NOTE,
    comment_length,
    comment_marker,
    comparison_terminal,
    escape_markdown,
    render_comment,
    render_summary,
)
from ragguard.render.comment import SUMMARY_CUT_NOTE
from ragguard.render.junit import comparison_junit
from ragguard.render.text import simple_table

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("RAGGUARD_UPDATE_GOLDEN") == "1"


def _comparison(name: str) -> Comparison:
    baseline, head, rules = GOLDEN_CASES[name]()
    return compare(baseline, head, rules)


def _html(markdown: str) -> str:
    """GitHub's own renderer (cmark-gfm), raw HTML let through as GitHub lets safe tags."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_comment_matches_golden_file(name: str) -> None:
    text = render_comment(_comparison(name))
    path = GOLDEN / f"{name}.md"
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {path}; run with RAGGUARD_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")
    assert text.startswith(comment_marker("orders-api") + "\n")
    assert comment_length(text) < COMMENT_LIMIT


def test_golden_comments_say_what_each_case_is_about() -> None:
    regression = render_comment(_comparison("regression-hallucination"))
    assert "**fail**" in regression
    assert "*tokens* was at rank 1 and is no longer retrieved" in regression
    assert "*rate\\-limits* fell from rank 1 to rank 4, out of the top 3" in regression
    assert "Enterprise keys get 5000 requests per minute" in regression
    summary = render_summary(_comparison("regression-hallucination"))
    assert "support 0.31; closest chunk: quotas" in summary  # the full why: job summary
    no_baseline = render_comment(_comparison("no-baseline"))
    assert "No baseline yet" in no_baseline and "ragguard compare baseline.json" in no_baseline
    incomparable = render_comment(_comparison("incomparable"))
    assert "faithfulness\\.method" in incomparable and "To rebaseline" in incomparable
    error = render_comment(_comparison("error"))
    assert "**error**" in error and "timeout after 30s" in error
    assert "✅" not in error and "pass" not in error.split("####")[1]  # error is never a pass
    drift = render_comment(_comparison("drift"))
    assert "added (1)" in drift and "removed (1)" in drift and "relabelled (1)" in drift
    assert "Fixed (3)" in render_comment(_comparison("fixed"))


def test_cut_comment_drops_detail_in_order_and_points_to_the_summary() -> None:
    comparison = _comparison("cut")
    full = render_summary(comparison)
    comment = render_comment(comparison)
    assert comment_length(full) > COMMENT_LIMIT
    assert comment_length(comment) < COMMENT_LIMIT
    assert CUT_NOTE in comment and CUT_NOTE not in full
    assert "All 300 questions" in full and "All 300 questions" not in comment
    assert "Newly failing questions (300)" in comment
    assert "<details><summary>295 more</summary>" in comment  # the first 5, the rest folded
    assert "(see the job summary)" in comment


def test_a_summary_over_the_job_summary_limit_is_cut_to_fit() -> None:
    comparison = _comparison("cut")
    full = render_summary(comparison)
    limit = len(full.encode("utf-8")) // 2
    cut = render_summary(comparison, limit=limit)
    assert len(cut.encode("utf-8")) < limit
    assert SUMMARY_CUT_NOTE in cut and SUMMARY_CUT_NOTE not in full
    assert render_summary(comparison, limit=len(full.encode("utf-8")) + 1) == full


def test_metric_table_has_direction_marks_and_statistics() -> None:
    text = render_comment(_comparison("regression-hallucination"))
    row = next(line for line in text.splitlines() if line.startswith("| `hit_rate@3`"))
    assert "▼ −0.250" in row and "p = 0.250" in row and "[" in row
    html = _html(text)
    assert html.count("<table>") == 2  # metrics, tags (latency is a line; questions: summary)
    assert _html(render_summary(_comparison("regression-hallucination"))).count("<table>") == 3


HOSTILE = {
    "pipes": "a | b || c",
    "backticks": "`rm -rf /` ``` code",
    "details": "<details><summary>x</summary>hidden</details>",
    "img": '<img src="https://evil.example/x.png" onerror="alert(1)">',
    "mention": "@org/team and @someone please look",
    "link": "[click me](javascript:alert(1)) and ![i](https://evil.example/i.png)",
    "marker": "<!-- ragguard:comment suite=orders-api -->",
    "autolink": "see https://evil.example/a and www.evil.example",
    "heading": "# Big heading\n---\n> quote",
    "issue": "fixes #1 and org/repo#2",
}


def _hostile_comparison(big: str) -> Comparison:
    questions = tuple(
        replace(q, id=f"{q.id}{HOSTILE[key]}"[:90], question=HOSTILE[key], tags=(HOSTILE[key],))
        for q, key in zip(QUESTIONS, HOSTILE, strict=False)
    )
    texts = [*HOSTILE.values(), big]
    sentences = {
        q.id: [
            supported("fine.", "auth"),
            unsupported(texts[i % len(texts)], HOSTILE["img"], 0.1, 1),
            unsupported(big, HOSTILE["link"], 0.2, 2),
        ]
        for i, q in enumerate(questions)
    }
    baseline = with_sentences(results(questions=questions), {})
    errors = {questions[1].id: HOSTILE["details"] + big}
    head = with_sentences(
        head_results({q.id: 0 for q in questions[2:5]}, questions=questions, errors=errors),
        sentences,
    )
    return compare(baseline, head, GateRules(max_error_rate=0.5))


def test_hostile_text_renders_as_text() -> None:
    big = "A" * 50_000 + " | <b>bold</b> " + "B" * 50_000  # 100 KB
    comparison = _hostile_comparison(big)
    text = render_comment(comparison)
    assert comment_length(text) < COMMENT_LIMIT
    assert big not in text and "AAAA…" in text
    assert text.count("<!--") == 1 and text.startswith(comment_marker("orders-api"))
    assert re.search(r"(?<!\\)`rm", text) is None and "\\`rm" in text
    html = _html(text)
    prose = re.sub(r"<code>[^<]*</code>", "", html)  # GitHub links nothing inside code
    assert re.search(r"@(?!\u200b)", prose) is None  # no mention can notify
    assert re.search(r"#(?!\u200b)\d", prose) is None  # no issue reference
    assert "<img" not in html
    assert "<a " not in html  # no link, no autolink
    assert "<details>" in html and html.count("<details>") == 1  # only ragguard's own
    assert "<b>" not in html and "<h1" not in html and "<blockquote" not in html.split("<h4>")[0]
    assert html.count("<!--") == 1
    for table in re.findall(r"<table>.*?</table>", html, re.DOTALL):
        head_cells = len(re.findall(r"<th[ >]", table.split("</thead>")[0]))
        for row in re.findall(r"<tr>(.*?)</tr>", table.split("</thead>")[1], re.DOTALL):
            assert len(re.findall(r"<td[ >]", row)) == head_cells  # no pipe broke a row
    assert "[click me](javascript:alert(1))" in html.replace("\\", "")
    assert "@org/team" in html.replace("\u200b", "")


def test_escape_markdown_basics() -> None:
    assert escape_markdown("a|b") == "a&#124;b"
    assert escape_markdown("<!-- x -->") == "&lt;\\!\\-\\- x \\-\\-&gt;"
    assert escape_markdown("line\nbreak") == "line break"
    assert escape_markdown("x" * 1000, limit=10) == "x" * 9 + "…"
    assert escape_markdown("#12") == "\\#\u200b12"


@pytest.mark.parametrize(
    "rows",
    [
        [["hit_rate@1", "1.000", "[1.000, 1.000]", "1"], ["a-long-metric-name@10", "n/a", "", "0"]],
        [["m", "0.5", "", ""]],
        [],
        [["漢字漢字漢字漢字", "−0.250", "[−0.5, 0.0]", "10000"]],
    ],
)
def test_simple_table_lays_out_as_tabulate_simple_does(rows: list[list[str]]) -> None:
    headers = ["metric", "value", "95% CI", "n"]
    expected = tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)
    assert simple_table(headers, rows) == expected


def test_custom_template_extends_base_and_one_without_marker_is_refused(tmp_path: Path) -> None:
    comparison = _comparison("regression-hallucination")
    custom = tmp_path / "custom.md.j2"
    custom.write_text(
        '{% extends "base.md.j2" %}\n{% block latency %}\nOur own latency block.\n{% endblock %}\n'
    )
    text = render_comment(comparison, custom)
    assert "Our own latency block." in text and "#### Latency" not in text
    assert text.startswith(comment_marker("orders-api"))
    bare = tmp_path / "bare.md.j2"
    bare.write_text("Verdict: {{ verdict }}\n")
    with pytest.raises(InputError, match="hidden marker"):
        render_comment(comparison, bare)
    dropped = tmp_path / "dropped.md.j2"
    dropped.write_text('{% extends "base.md.j2" %}{% block marker %}{% endblock %}')
    with pytest.raises(InputError, match="hidden marker"):
        render_comment(comparison, dropped)
    broken = tmp_path / "broken.md.j2"
    broken.write_text("{% if %}")
    with pytest.raises(InputError, match="syntax"):
        render_comment(comparison, broken)


def test_template_cannot_reach_python_internals(tmp_path: Path) -> None:
    evil = tmp_path / "evil.md.j2"
    evil.write_text("{{ marker }}{{ ''.__class__.__mro__[1].__subclasses__() }}")
    with pytest.raises(InputError):
        render_comment(_comparison("no-change"), evil)


def test_json_is_deterministic_and_complete() -> None:
    first = comparison_json(_comparison("regression-hallucination"))
    assert first == comparison_json(_comparison("regression-hallucination"))
    data = json.loads(first)
    assert data["verdict"] == "fail" and data["blocks"] is True
    assert data["questions"]["newly_failing"] == 3
    assert data["metrics"]["hit_rate@3"]["p_value"] == 0.25  # one-sided: P(X >= 2), X ~ B(2, 1/2)
    changes = {q["id"]: q for q in data["question_changes"]}
    assert changes["retry-429"]["rank_change"] == {
        "chunk": "rate-limits",
        "k": 3,
        "baseline_rank": 1,
        "head_rank": 4,
    }


def test_junit_has_a_testcase_per_question_and_metric_rule() -> None:
    comparison = _comparison("regression-hallucination")
    root = ET.fromstring(comparison_junit(comparison))
    suite = root.find("testsuite")
    assert suite is not None
    names = [case.get("name") for case in suite.iter("testcase")]
    assert {f"question.{q.id}" for q in QUESTIONS} <= set(names)
    assert {f"metric.{m.name}" for m in comparison.metrics} <= set(names)
    failed = {c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None}
    assert {"question.auth-expiry", "question.retry-429", "gate.critical_questions"} <= failed
    assert suite.get("failures") == str(len(failed))
    errors = ET.fromstring(comparison_junit(_comparison("error"))).find("testsuite")
    assert errors is not None and errors.get("errors") == "3"  # two questions and the rate


def test_terminal_report_lists_verdict_metrics_and_failing_questions() -> None:
    text = comparison_terminal(_comparison("regression-hallucination"))
    assert text.splitlines()[0] == "ragguard compare · suite orders-api: FAIL"
    assert (
        "retry-429" in text and "rate-limits fell from rank 1 to rank 4, out of the top 3" in text
    )


def test_rules_line_names_the_built_in_hallucination_free_rule() -> None:
    """The footer must not claim the default max_drop for hallucination_free (built in: 0);
    a rule of the team's own replaces the mention."""
    baseline, head = with_sentences(results(), {}), with_sentences(head_results(), {})
    built_in = render_comment(compare(baseline, head, GateRules()))
    assert "max_drop 0.05, warn_drop 0, max_error_rate 0.05, hallucination_free max_drop 0." in (
        built_in
    )
    own = GateRules(metrics={"hallucination_free": MetricRule(max_drop=0.1)})
    mentioned = render_comment(compare(baseline, head, own))
    assert "hallucination_free max_drop" not in mentioned
    assert "1 metric rules." in mentioned
    retrieval_only = render_comment(compare(results(), head_results(), GateRules()))
    assert "hallucination_free" not in retrieval_only
