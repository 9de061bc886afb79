"""Every verdict explains itself (issue 28): each item's rendering in the comment and the
terminal, pinned as exact text on the hand-made cases of compare_cases.py."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from compare_cases import QUESTIONS, case_regression, head_results, results
from ragguard.compare import Comparison, compare
from ragguard.compare.serialise import comparison_json
from ragguard.config.sections.gate import GateRules
from ragguard.render import comparison_terminal, render_comment, render_summary
from ragguard.render.frame import baseline_phrase
from ragguard.render.text import p_text
from ragguard.render.verdict import latency_line, provenance_line
from ragguard.results.chunks import Chunk
from test_compare_costs import budgets

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


# --- item 4: a baseline evaluated after this run; a change too small for its unit ----------


@dataclass(frozen=True)
class _Stored:
    exact: bool = True
    commit: str = "1f2e3d4c5b6a79881726354433221100ffeeddcc"
    branch: str = "main"


def test_a_baseline_rerun_after_this_run_reads_as_newer_once() -> None:
    rerun = results(created_at="2026-11-30T12:35:00+00:00")  # five minutes after the head
    comparison = compare(rerun, head_results(), GateRules())
    assert comparison.provenance.age == "newer than this run"
    assert provenance_line(comparison) == (
        "Baseline: commit 1f2e3d4c5b6a on main, created 2026\\-11\\-30T12:35:00\\+00:00 "
        "(newer than this run); this run: commit aa11bb22cc33."
    )
    assert baseline_phrase(_Stored(), comparison) == (
        "the merge base's baseline: commit `1f2e3d4c5b6a` on main, newer than this run"
    )
    older = compare(results(), head_results(), GateRules())
    assert "(2 days before this run)" in provenance_line(older)
    assert baseline_phrase(_Stored(), older).endswith(", 2 days older than this run")


def test_a_latency_change_of_microseconds_shows_in_a_unit_that_shows_it() -> None:
    slower = head_results(latency=100.004)  # 4 µs slower on every question
    comparison = compare(results(), slower, GateRules())
    p50 = next(m for m in comparison.costs if m.name == "latency_p50")
    assert p_text(p50.p_value) == "0.004"
    row = next(
        line for line in comparison_terminal(comparison).splitlines() if "latency_p50" in line
    )
    assert row.split() == [
        "latency_p50", "0.14s", "0.14s", "▲", "+4", "µs", "(+<1%),", "worse", "0.004", "no",
        "budget",
    ]  # fmt: skip
    assert latency_line(comparison) == "p50 135 → 135 ms (+4 µs), p95 166 → 167 ms (+4 µs)"
    assert "Latency: p50 135 → 135 ms (+4 µs), p95" in render_summary(comparison)


# --- item 6: what the test set can detect now, and what more questions would buy ----------

POWER_SENTENCE = (
    "With 8 questions this test set can detect only large drops in 5 gated metrics (about "
    "0.99 in hit_rate@1, about 0.99 in hit_rate@3, no drop at all in mrr and 2 more), not the "
    "0.05 their gate rules ask for; about 720 questions would detect 0.05 in all of them, and "
    "asking each question more than once (system.repeat) lowers the noise too."
)


def test_the_power_notice_says_what_the_test_set_detects_and_what_questions_buy() -> None:
    comparison = compare(*case_regression())
    assert POWER_SENTENCE in comparison_terminal(comparison).splitlines()
    footer = render_comment(comparison).splitlines()[-1]
    assert POWER_SENTENCE.replace("hit_rate@", "hit\\_rate@\u200b") in footer
    assert "add about" not in footer and footer.count("questions would detect") == 1


# --- item 1: the headline always says what decided the verdict -----------------------------


def _heading(comparison) -> str:
    return render_comment(comparison).splitlines()[1]


def test_a_failure_decided_by_a_latency_budget_names_it_in_the_headline() -> None:
    rules = budgets(latency_p95={"max_increase": "20%"})
    comparison = compare(results(latency=100.0), head_results(latency=400.0), rules)
    assert comparison.verdict == "fail"
    assert (
        _heading(comparison)
        == "### ❌ ragguard · orders\\-api: **fail** · `latency_p95` over budget"
    )
    assert "fail: latency_p95: rose 180%, 0.17s → 0.47s" in comparison_terminal(comparison)


def test_a_failure_decided_by_a_removed_passing_question_names_it() -> None:
    comparison = compare(results(), head_results(questions=QUESTIONS[1:]), GateRules())
    assert _heading(comparison) == (
        "### ❌ ragguard · orders\\-api: **fail** · passing question **auth\\-token** removed"
    )
    assert "fail: auth-token: removed; it passed in the baseline" in comparison_terminal(comparison)


def test_an_error_that_compared_nothing_says_so_instead_of_counting_no_errors() -> None:
    other = results(questions=tuple(replace(q, id=f"x-{q.id}") for q in QUESTIONS))
    comparison = compare(other, head_results(), GateRules())
    assert comparison.verdict == "error"
    assert _heading(comparison) == (
        "### 🛑 ragguard · orders\\-api: **error** · no question id in common with the "
        "baseline; nothing was compared"
    )


# --- item 2: one truthful account of each relabelled question ------------------------------


def _relabelled_to_pass() -> Comparison:
    """auth-token retrieved auth at rank 1 and passed; the change retrieves status instead and
    relabels the question to status: it passes only under its new labels."""
    relabelled = (replace(QUESTIONS[0], relevant={"status": 2}), *QUESTIONS[1:])
    return compare(results(), head_results(questions=relabelled), GateRules())


def test_a_question_passing_only_by_its_relabel_is_a_reason_and_not_fixed() -> None:
    comparison = _relabelled_to_pass()
    (question,) = comparison.relabelled
    assert question.passes_by_relabel and question.kind == "passing"
    comment = render_comment(comparison)
    assert _heading(comparison) == (
        "### ❌ ragguard · orders\\-api: **fail** · **auth\\-token** passes only under its new "
        "labels"
    )
    assert "- ❌ auth\\-token: relabelled; passes only under the new labels" in comment
    assert "#### Fixed" not in comment and "#### Fixed" not in render_summary(comparison)
    assert "fail: auth-token: relabelled; passes only under the new labels" in (
        comparison_terminal(comparison)
    )
    data = json.loads(comparison_json(comparison))
    assert data["questions"]["fixed"] == 0
    (change,) = data["question_changes"]
    assert (change["id"], change["kind"], change["passes_by_relabel"]) == (
        "auth-token",
        "passing",
        True,
    )


def test_relabelled_evidence_questions_are_not_said_to_be_re_scored() -> None:
    from test_compare_evidence import QUOTE, _question, _results

    chunks = {"q": [Chunk("limits.md#1", text=QUOTE, doc="limits.md")]}
    baseline = _results([_question()], chunks)
    head = _results([_question(QUOTE + ".")], chunks)  # the quote edited: relabelled
    comparison = compare(baseline, head, GateRules())
    assert [q.relabel_kept for q in comparison.relabelled] == [True]
    summary = render_summary(comparison)
    assert "re\\-scored" not in summary and "re-scored" not in summary
    assert (
        "Relabelled questions keep the baseline's values under the old labels (evidence labels: "
        "judging the baseline's chunks by the new evidence needs their text, which results do "
        "not keep), so a label fix can show as a change." in summary
    )
    chunk_ids = compare(results(), head_results(questions=_relabelled_questions()), GateRules())
    assert (
        "Relabelled questions are re-scored on the baseline's retrieved chunks with the new "
        "labels, so a label fix does not show as a regression." in render_summary(chunk_ids)
    )


def _relabelled_questions():
    return (*QUESTIONS[:-1], replace(QUESTIONS[-1], relevant={"orders": 2, "faq": 1}))


# --- item 3: where the evidence went after a rechunk; groups only of equal whys ------------


def _rechunked(head_chunks) -> Comparison:
    from test_compare_evidence import QUOTE, _question, _results

    quote = Chunk("limits.md#1", text=QUOTE, doc="limits.md")
    baseline = _results([_question()], {"q": [quote, Chunk("faq#1")]})
    head = _results(
        [_question()], {"q": [Chunk(c, text=t, doc="limits.md") for c, t in head_chunks]}
    )
    return compare(baseline, head, GateRules(per_question={"hit_rate@3": 1}))


def test_a_rechunked_evidence_question_says_which_chunk_holds_the_evidence_now() -> None:
    from test_compare_evidence import QUOTE

    moved = _rechunked(
        [("faq#2", "x"), ("pricing#4", "y"), ("limits.md#9", "z"), ("limits.md#12", QUOTE)]
    )
    where = "the evidence moved from {a} at rank 1 to {b} at rank 4, out of the top 3"
    comment = render_comment(moved)
    assert where.format(a="*limits\\.md\\#\u200b1*", b="*limits\\.md\\#\u200b12*") in comment
    assert (
        "    retrieval: " + where.format(a="limits.md#1", b="limits.md#12")
        in comparison_terminal(moved).splitlines()
    )
    (change,) = json.loads(comparison_json(moved))["question_changes"]
    assert change["rank_change"] == {
        "chunk": "limits.md#1",
        "k": 3,
        "baseline_rank": 1,
        "head_rank": 4,
        "head_chunk": "limits.md#12",
        "evidence": True,
    }


def test_a_rechunked_evidence_question_says_when_no_chunk_holds_the_evidence() -> None:
    gone = _rechunked([("faq#2", "x"), ("pricing#4", "y"), ("limits.md#9", "z")])
    where = "the evidence was in {a} at rank 1; no retrieved chunk holds it now"
    assert where.format(a="*limits\\.md\\#\u200b1*") in render_comment(gone)
    assert (
        "    retrieval: " + where.format(a="limits.md#1") in comparison_terminal(gone).splitlines()
    )


def test_questions_are_grouped_only_when_their_whys_are_the_same_uncut() -> None:
    from compare_cases import unsupported, with_sentences

    start = "The gateway retries every failed request " + "and waits " * 20
    sentences = {
        "retry-429": [unsupported(start + "one second.", None, 0.0)],
        "page-size": [unsupported(start + "one minute.", None, 0.0)],
        "next-page": [unsupported(start + "one minute.", None, 0.0)],
    }
    head = with_sentences(head_results(), sentences)
    comparison = compare(with_sentences(results(), {}), head, GateRules())
    bullets = [line for line in render_comment(comparison).splitlines() if line.startswith("- ")]
    grouped = [line for line in bullets if " — 2 questions: " in line]
    assert len(grouped) == 1 and grouped[0].endswith("**next\\-page**, **page\\-size**")
    assert any(line.startswith("- **retry\\-429** · rate\\-limits: ") for line in bullets)
    assert not any(" — 3 questions: " in line for line in bullets)
