"""compare: pairing, re-scoring relabelled questions, drift, rules, verdicts, determinism."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from compare_cases import (
    BASELINE_GIT,
    CONFIG,
    QUESTIONS,
    head_results,
    results,
    supported,
    unsupported,
    with_sentences,
)
from ragguard.compare import (
    ADDED,
    ERROR,
    FAIL,
    FIXED,
    INCOMPARABLE,
    NEWLY_FAILING,
    PASS,
    PASSING,
    REMOVED,
    STILL_FAILING,
    WARN,
    RankChange,
    compare,
    describe_age,
    exit_code,
    per_question_rule,
)
from ragguard.compare.serialise import comparison_json
from ragguard.config.sections.gate import GateRules, MetricRule
from ragguard.metrics.names import parse_metric_list
from ragguard.render import render_comment
from ragguard.results.chunks import Chunk
from ragguard.results.io import load_results, write_results
from ragguard.results.model import QuestionResult, Results
from ragguard.results.records import RunRecord
from ragguard.scoring.score import score_question
from ragguard.testset.model import Question

RULES = GateRules()


def test_identical_runs_pass_with_zero_deltas() -> None:
    comparison = compare(results(), head_results(), RULES)
    assert comparison.verdict == PASS
    assert comparison.reasons == ()
    assert comparison.n_paired == len(QUESTIONS)
    for metric in comparison.metrics:
        assert (metric.delta, metric.p_value, metric.low, metric.high) == (0.0, 1.0, 0.0, 0.0)
        assert metric.n == len(QUESTIONS)
    assert comparison.of_kind(NEWLY_FAILING) == ()
    assert exit_code(comparison) == 0


def test_same_inputs_give_the_same_bytes_even_through_files(tmp_path: Path) -> None:
    baseline = with_sentences(results({"retry-429": 2}), {})
    head = with_sentences(head_results({"retry-429": 0, "page-size": 3}), {})
    write_results(baseline, tmp_path / "b.json")
    write_results(head, tmp_path / "h.json")
    first = comparison_json(compare(baseline, head, RULES))
    again = comparison_json(
        compare(load_results(tmp_path / "b.json"), load_results(tmp_path / "h.json"), RULES)
    )
    assert first == again
    assert '"verdict"' in first


def test_newly_failing_question_says_why_retrieval_and_generation() -> None:
    baseline = with_sentences(results(), {})
    hallucinated = unsupported("Tokens never expire.", "tokens", 0.2, 1)
    head = with_sentences(
        head_results({"retry-429": 0, "page-size": 5}),
        {"auth-token": [supported("Use POST /tokens.", "auth"), hallucinated]},
    )
    comparison = compare(baseline, head, RULES)
    failing = {q.id: q for q in comparison.of_kind(NEWLY_FAILING)}
    assert sorted(failing) == ["auth-token", "page-size", "retry-429"]
    assert failing["retry-429"].rank_change == RankChange("rate-limits", 3, 1, None)
    assert failing["page-size"].rank_change == RankChange("pagination", 3, 1, 5)
    assert failing["auth-token"].hallucinated == (hallucinated,)
    assert [m.metric for m in failing["auth-token"].misses] == ["faithfulness"]
    assert failing["auth-token"].rank_change is None


def test_critical_question_newly_failing_blocks_on_its_own() -> None:
    comparison = compare(results(), head_results({"auth-expiry": 0}), RULES)
    hit3 = next(m for m in comparison.metrics if m.name == "hit_rate@3")
    assert hit3.verdict == PASS  # 1 of 8 questions: not significant
    assert comparison.verdict == FAIL
    assert [(r.tier, r.subject) for r in comparison.reasons] == [(FAIL, "auth-expiry")]
    assert exit_code(comparison) == 1
    relaxed = compare(results(), head_results({"auth-expiry": 0}), GateRules(critical_blocks=False))
    assert relaxed.verdict == PASS


def test_relabelled_question_is_rescored_and_never_a_regression() -> None:
    # same system, same ranking; the head's test set now says "status" answers order-cancel
    relabelled = replace(QUESTIONS[-1], relevant={"status": 2})
    baseline = results()
    assert baseline.by_id["order-cancel"].metrics["hit_rate@3"] == 1.0  # under the old label
    head = head_results(questions=(*QUESTIONS[:-1], relabelled), run_questions=QUESTIONS)
    assert head.by_id["order-cancel"].metrics["hit_rate@3"] == 0.0  # under the new label
    comparison = compare(baseline, head, RULES)
    diff = next(q for q in comparison.questions if q.id == "order-cancel")
    assert diff.relabelled
    assert diff.kind == STILL_FAILING  # re-scored with the new label, it failed before too
    assert [q.id for q in comparison.relabelled] == ["order-cancel"]
    assert all(m.delta == 0.0 for m in comparison.metrics)
    assert comparison.verdict == PASS


def test_relabel_that_shows_a_real_regression_still_does() -> None:
    changed = replace(QUESTIONS[0], relevant={"auth": 2, "sdk": 1})
    baseline = results()
    head = head_results({"auth-token": 0}, questions=(changed, *QUESTIONS[1:]))
    comparison = compare(baseline, head, RULES)
    diff = next(q for q in comparison.questions if q.id == "auth-token")
    assert diff.relabelled
    assert diff.kind == NEWLY_FAILING


def test_a_relabel_that_turns_a_regression_into_a_pass_counts_like_a_removal() -> None:
    # the retriever lost the "auth" chunk; the change relabels what it now returns as relevant
    moved = replace(QUESTIONS[0], relevant={"changelog": 2})  # the first filler chunk
    baseline = results()
    head = head_results(
        {"auth-token": 0}, questions=(moved, *QUESTIONS[1:]), run_questions=QUESTIONS
    )
    assert head.by_id["auth-token"].metrics["hit_rate@3"] == 1.0  # under the new label
    comparison = compare(baseline, head, RULES)
    diff = next(q for q in comparison.questions if q.id == "auth-token")
    assert (diff.relabelled, diff.kind, diff.passes_by_relabel) == (True, PASSING, True)
    assert [(r.tier, r.text, r.subject) for r in comparison.reasons] == [
        (FAIL, "relabelled; passes only under the new labels", "auth-token")
    ]
    warned = compare(baseline, head, GateRules(on_removed="warn"))
    assert warned.verdict == WARN


def test_drift_added_and_removed_are_counted_not_compared() -> None:
    extra = Question(
        "webhook-sign", "How are webhooks signed?", {"webhooks": 2}, tags=("webhooks",)
    )
    baseline = results(questions=QUESTIONS)
    head = head_results(questions=(*QUESTIONS[1:], extra))
    comparison = compare(baseline, head, RULES)
    assert [q.id for q in comparison.of_kind(ADDED)] == ["webhook-sign"]
    assert [q.id for q in comparison.of_kind(REMOVED)] == ["auth-token"]
    assert comparison.n_paired == len(QUESTIONS) - 1
    assert all(m.n == len(QUESTIONS) - 1 for m in comparison.metrics)
    # auth-token passed in the baseline: removing it fails the gate (gate.on_removed)
    assert comparison.verdict == FAIL
    assert [(r.tier, r.subject) for r in comparison.reasons] == [(FAIL, "auth-token")]
    warned = compare(baseline, head, GateRules(on_removed="warn"))
    assert [(r.tier, r.subject) for r in warned.reasons] == [(WARN, "auth-token")]


def test_a_removed_question_that_failed_in_the_baseline_does_not_count() -> None:
    baseline = results({"auth-token": 0}, questions=QUESTIONS)  # auth-token missed at 3
    head = head_results(questions=QUESTIONS[1:])
    comparison = compare(baseline, head, RULES)
    (removed,) = comparison.of_kind(REMOVED)
    assert (removed.id, removed.baseline_passed) == ("auth-token", False)
    assert comparison.verdict == PASS


def test_a_question_critical_in_the_baseline_stays_critical_until_merged() -> None:
    critical = tuple(replace(q, critical=True) if q.id == "retry-429" else q for q in QUESTIONS)
    baseline = results(questions=critical)
    head = head_results({"retry-429": 0}, questions=QUESTIONS)  # the change unmarks it
    comparison = compare(baseline, head, RULES)
    assert ("critical question newly fails", "retry-429") in [
        (r.text, r.subject) for r in comparison.reasons
    ]


def test_fixed_questions() -> None:
    comparison = compare(results({"retry-429": 0, "next-page": 4}), head_results(), RULES)
    assert sorted(q.id for q in comparison.of_kind(FIXED)) == ["next-page", "retry-429"]
    assert comparison.verdict == PASS


def test_errors_beyond_max_error_rate_give_error_never_pass() -> None:
    errors = {"auth-token": "timeout after 30s", "retry-429": "HTTP 500"}
    head = head_results(errors=errors)
    comparison = compare(results(), head, RULES)
    assert comparison.verdict == ERROR
    assert comparison.head_errors == 2
    assert comparison.reasons[0].tier == ERROR
    assert exit_code(comparison) == 3
    assert comparison.blocks
    lenient = compare(results(), head, GateRules(max_error_rate=0.25))
    assert lenient.verdict != ERROR
    # an errored question scores 0 and is counted: crashing never improves a metric
    assert {q.id for q in lenient.of_kind(NEWLY_FAILING)} == set(errors)


def test_incomparable_settings_say_what_differs() -> None:
    head = head_results(config={**CONFIG, "faithfulness": {"method": "judge", "threshold": 0.75}})
    comparison = compare(results(), head, RULES)
    assert comparison.verdict == INCOMPARABLE
    assert [(d.key, d.baseline, d.head) for d in comparison.setting_diffs] == [
        ("faithfulness.method", '"lexical"', '"judge"')
    ]
    assert exit_code(comparison) == 3
    as_warning = compare(results(), head, GateRules(on_incomparable="warn"))
    assert as_warning.verdict == INCOMPARABLE
    assert not as_warning.blocks
    assert exit_code(as_warning) == 0


def test_metric_in_one_file_only_is_reported_not_compared() -> None:
    baseline = results(metrics="hit_rate@3,mrr,recall@5")
    head = with_sentences(head_results(metrics="hit_rate@3,mrr"), {})
    comparison = compare(baseline, head, RULES)
    by_name = {m.name: m for m in comparison.metrics}
    assert by_name["faithfulness"].only_in == "head"
    assert by_name["recall@5"].only_in == "baseline"
    assert by_name["faithfulness"].delta is None
    assert by_name["mrr"].delta == 0.0


def test_rules_floor_alpha_off_and_warn_tiers() -> None:
    baseline, head = results(), head_results({"retry-429": 2})
    mrr = {"mrr": MetricRule(max_drop=0.05, alpha=None)}
    drop = compare(baseline, head, GateRules(metrics=mrr))
    assert drop.verdict == FAIL  # mrr fell 0.0625 > 0.05, alpha off: the drop alone blocks
    assert any(r.subject == "mrr" and "alpha off" in r.text for r in drop.reasons)
    tolerant = {"mrr": MetricRule(max_drop=0.1, warn_drop=0.01, alpha=None)}
    assert compare(baseline, head, GateRules(metrics=tolerant)).verdict == WARN
    floor = {"hit_rate@1": MetricRule(min=0.95)}
    assert compare(baseline, head, GateRules(metrics=floor)).verdict == FAIL
    assert (
        compare(baseline, head, GateRules(metrics={"mrr": MetricRule(warn_min=0.99)})).verdict
        == WARN
    )
    assert compare(baseline, head, RULES).verdict == PASS  # 1 of 8 questions: not significant


def test_significant_drop_beyond_max_drop_fails() -> None:
    questions = tuple(
        Question(f"q{i:02d}", f"Question {i}?", {f"c{i}": 1}, tags=("t",)) for i in range(40)
    )
    baseline = results(questions=questions)
    head = head_results({f"q{i:02d}": 0 for i in range(8)}, questions=questions)
    comparison = compare(baseline, head, RULES)
    hit3 = next(m for m in comparison.metrics if m.name == "hit_rate@3")
    assert hit3.test == "McNemar exact"
    assert hit3.p_value == pytest.approx(1 / 2**8)  # one-sided: only a drop fails
    assert hit3.p_adjusted is not None and hit3.p_adjusted >= hit3.p_value
    assert hit3.high is not None and hit3.high < 0
    assert comparison.verdict == FAIL


def test_tags_where_the_regression_concentrates_come_first() -> None:
    comparison = compare(results(), head_results({"page-size": 0, "next-page": 4}), RULES)
    assert comparison.tags[0].tag == "pagination"
    assert comparison.tags[0].newly_failing == 2
    assert [t.tag for t in comparison.tags[1:]] == sorted(t.tag for t in comparison.tags[1:])


def test_default_per_question_rule_uses_shared_metrics() -> None:
    baseline = with_sentences(results(), {})
    assert per_question_rule(RULES, baseline, with_sentences(head_results(), {})) == {
        "hit_rate@3": 1.0,
        "faithfulness": 1.0,
    }
    assert per_question_rule(
        RULES,
        results(metrics="hit_rate@1,hit_rate@5,mrr"),
        head_results(metrics="hit_rate@1,hit_rate@5,mrr"),
    ) == {"hit_rate@5": 1.0}
    configured = GateRules(per_question={"mrr": 0.5})
    assert per_question_rule(configured, baseline, head_results()) == {"mrr": 0.5}


def test_no_baseline_reports_head_values_and_still_applies_floors() -> None:
    head = head_results({"retry-429": 0})
    comparison = compare(None, head, RULES)
    assert comparison.baseline_missing
    assert comparison.verdict == PASS
    assert all(m.only_in == "head" and m.delta is None for m in comparison.metrics)
    floor = GateRules(metrics={"hit_rate@3": MetricRule(min=0.9)})
    assert compare(None, head, floor).verdict == FAIL


def test_latency_and_provenance() -> None:
    comparison = compare(results(latency=100.0), head_results(latency=300.0), RULES)
    latency = comparison.latency
    assert (latency.baseline_p50, latency.head_p50) == (135.0, 335.0)
    assert latency.head_p95 == pytest.approx(300.0 + 70.0 * 0.95 + 0.0, abs=1.0)
    provenance = comparison.provenance
    assert provenance.commit == BASELINE_GIT["sha"]
    assert provenance.branch == "main"
    assert provenance.age == "2 days"
    assert describe_age("2026-01-01T00:00:00+00:00", "2026-01-01T05:30:00+00:00") == "5 hours"
    assert describe_age("not a date", "2026-01-01T00:00:00+00:00") is None


# The noise test: run-to-run noise does not fail the gate at the defaults; a real drop does.

NOISE_N = 60
NOISE_SPECS = parse_metric_list("hit_rate@1,hit_rate@3,recall@5,mrr,ndcg@3")
NOISE_QUESTIONS = tuple(
    Question(f"n{i:02d}", f"Question {i}?", {f"rel{i}": 2}, tags=(f"topic{i % 4}",))
    for i in range(NOISE_N)
)
FILLER = ("f1", "f2", "f3", "f4", "f5")


def _noisy_run(ranks: dict[str, int], faithfulness: dict[str, float]) -> Results:
    """Results of one run: each question's relevant chunk at ``ranks[id]`` (0: not retrieved)."""
    scored = []
    for question in NOISE_QUESTIONS:
        rank = ranks[question.id]
        ranking = list(FILLER[:4]) if rank else list(FILLER)
        if rank:
            ranking.insert(rank - 1, next(iter(question.relevant)))
        record = RunRecord(question.id, tuple(Chunk(c) for c in ranking))
        result: QuestionResult = score_question(question, record, NOISE_SPECS)
        metrics = {**result.metrics, "faithfulness": faithfulness[question.id]}
        scored.append(replace(result, metrics=metrics))
    names = (*(spec.name for spec in NOISE_SPECS), "faithfulness")
    return Results("noise", "2026-01-01T00:00:00+00:00", names, {}, tuple(scored), "fp")


def _noise_trial(seed: int) -> tuple[str, str]:
    """(verdict of a rerun of the same system, verdict after a real retrieval drop)."""
    rng = random.Random(seed)
    ranks = {
        q.id: rng.choices([1, 2, 3, 4, 0], [0.6, 0.2, 0.1, 0.05, 0.05])[0] for q in NOISE_QUESTIONS
    }
    quality = {q.id: rng.uniform(0.6, 1.0) for q in NOISE_QUESTIONS}

    def jittered() -> dict[str, float]:
        return {k: min(1.0, max(0.0, v + rng.uniform(-0.1, 0.1))) for k, v in quality.items()}

    baseline, rerun_values = _noisy_run(ranks, jittered()), jittered()
    rerun = _noisy_run(ranks, rerun_values)
    in_top = sorted(k for k, rank in ranks.items() if 1 <= rank <= 3)
    pushed_out = set(rng.sample(in_top, round(0.15 * NOISE_N)))
    dropped = _noisy_run({k: 0 if k in pushed_out else r for k, r in ranks.items()}, rerun_values)
    return compare(baseline, rerun, RULES).verdict, compare(baseline, dropped, RULES).verdict


def _noise_verdicts(seeds: range) -> tuple[list[str], list[str]]:
    trials = [_noise_trial(seed) for seed in seeds]
    return [noise for noise, _ in trials], [drop for _, drop in trials]


def test_noise_does_not_fail_the_gate_and_a_real_drop_does() -> None:
    noise, drop = _noise_verdicts(range(12))
    assert FAIL not in noise
    assert drop == [FAIL] * 12


@pytest.mark.e2e
def test_noise_across_many_seeds() -> None:
    noise, drop = _noise_verdicts(range(100, 300))
    assert noise.count(FAIL) == 0, noise
    assert drop.count(FAIL) == 200


def _shuffled(results: Results, seed: int) -> Results:
    questions = list(results.questions)
    random.Random(seed).shuffle(questions)
    return replace(results, questions=tuple(questions))


def test_question_order_in_the_files_changes_neither_verdict_nor_comment() -> None:
    # 60 questions: the sampled sign-flip and the sampled max-T adjustment both run
    rng = random.Random(3)
    ranks = {
        q.id: rng.choices([1, 2, 3, 4, 0], [0.5, 0.2, 0.1, 0.1, 0.1])[0] for q in NOISE_QUESTIONS
    }
    faith = {q.id: rng.uniform(0.5, 1.0) for q in NOISE_QUESTIONS}
    baseline = _noisy_run(ranks, faith)
    moved = {k: (0 if rng.random() < 0.12 else r) for k, r in ranks.items()}
    head = _noisy_run(moved, {k: max(0.0, v - rng.uniform(0, 0.1)) for k, v in faith.items()})
    first = compare(baseline, head, RULES)
    assert any(m.test == "sign-flip" for m in first.metrics)
    assert all(m.p_adjusted is not None for m in first.metrics)
    comment = render_comment(first)
    for seed in range(3):
        again = compare(_shuffled(baseline, seed), _shuffled(head, seed + 10), RULES)
        assert [(m.p_value, m.p_adjusted, m.verdict) for m in again.metrics] == [
            (m.p_value, m.p_adjusted, m.verdict) for m in first.metrics
        ]
        assert again.verdict == first.verdict
        assert render_comment(again) == comment


def _answers(hallucinating: set[str], n: int = 40) -> Results:
    """n answers of three supported sentences; the ones named add one unsupported sentence."""
    questions = []
    for i in range(n):
        qid = f"q{i:02d}"
        bad = qid in hallucinating
        metrics = {"faithfulness": 0.75 if bad else 1.0, "hallucination_free": 0.0 if bad else 1.0}
        questions.append(QuestionResult(qid, f"Question {i}?", "ok", metrics))
    names = ("faithfulness", "hallucination_free")
    return Results("answers", "2026-01-01T00:00:00+00:00", names, {}, tuple(questions), "fp")


def test_hallucination_free_catches_what_a_small_faithfulness_drop_hides() -> None:
    # 2 of 40 answers hallucinate in the baseline, 9 in the head (the 2 and 7 more): the
    # faithfulness mean drops 0.044, under max_drop 0.05; the share of clean answers 0.175
    baseline = _answers({"q00", "q01"})
    head = _answers({f"q{i:02d}" for i in range(9)})
    comparison = compare(baseline, head, GateRules())
    by_name = {m.name: m for m in comparison.metrics}
    assert by_name["faithfulness"].verdict != FAIL  # warn_drop 0: it only warns
    free = by_name["hallucination_free"]
    assert free.test == "McNemar exact"
    assert free.p_value == pytest.approx(1 / 2**7)
    assert free.verdict == FAIL and comparison.verdict == FAIL


# The command line: ragguard compare BASE HEAD, its outputs and exit codes.


def _files(tmp_path: Path, baseline: Results | None, head: Results) -> tuple[Path, Path]:
    base_path, head_path = tmp_path / "baseline.json", tmp_path / "head.json"
    if baseline is not None:
        write_results(baseline, base_path)
    write_results(head, head_path)
    return base_path, head_path


def _config(tmp_path: Path, gate: str) -> Path:
    (tmp_path / "testset.yaml").write_text("- {id: q1, question: Q?, relevant: [c1]}\n")
    (tmp_path / "run.jsonl").write_text('{"id": "q1", "retrieved": ["c1"]}\n')
    path = tmp_path / "ragguard.yml"
    path.write_text(
        f"suite: orders-api\ntestset: testset.yaml\nsystem: {{recorded: run.jsonl}}\n{gate}"
    )
    return path


@pytest.mark.parametrize(
    ("head_ranks", "options", "code", "first_line"),
    [
        ({}, {}, 0, "PASS"),
        ({"auth-expiry": 0}, {}, 1, "FAIL"),
        ({}, {"errors": {"auth-token": "boom", "retry-429": "boom"}}, 3, "ERROR"),
        ({}, {"config": {**CONFIG, "k": 5}}, 3, "INCOMPARABLE"),
    ],
)
def test_cli_exit_codes(tmp_path, ragguard_cli, head_ranks, options, code, first_line) -> None:
    base_path, head_path = _files(tmp_path, results(), head_results(head_ranks, **options))
    result = ragguard_cli("compare", base_path, head_path)
    assert result.exit_code == code, result.output
    assert result.stdout.splitlines()[0].endswith(first_line)


def test_cli_warn_exits_zero_and_reads_the_gate_section(tmp_path, ragguard_cli) -> None:
    base_path, head_path = _files(tmp_path, results(), head_results({"retry-429": 2}))
    config = _config(
        tmp_path, "gate:\n  metrics:\n    mrr: {max_drop: 0.1, warn_drop: 0.01, alpha: off}\n"
    )
    result = ragguard_cli("compare", base_path, head_path, "-c", config)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].endswith("WARN")
    failing = _config(tmp_path, "gate:\n  metrics:\n    mrr: {max_drop: 0.01, alpha: off}\n")
    assert ragguard_cli("compare", base_path, head_path, "-c", failing).exit_code == 1


def test_cli_incomparable_as_warning_exits_zero(tmp_path, ragguard_cli) -> None:
    head = head_results(config={**CONFIG, "k": 5})
    base_path, head_path = _files(tmp_path, results(), head)
    config = _config(tmp_path, "gate:\n  on_incomparable: warn\n")
    assert ragguard_cli("compare", base_path, head_path, "-c", config).exit_code == 0


def test_cli_writes_every_output_and_they_are_reproducible(tmp_path, ragguard_cli) -> None:
    base_path, head_path = _files(tmp_path, results(), head_results({"retry-429": 0}))
    names = ("comment.md", "summary.md", "junit.xml", "comparison.json")
    outputs = []
    for run in ("a", "b"):
        paths = [tmp_path / run / name for name in names]
        result = ragguard_cli(
            "compare",
            base_path,
            head_path,
            "--markdown",
            paths[0],
            "--summary",
            paths[1],
            "--junit",
            paths[2],
            "--json",
            paths[3],
        )
        assert result.exit_code == 0, result.output
        outputs.append([path.read_bytes() for path in paths])
    assert outputs[0] == outputs[1]
    assert b"retry\\-429" in outputs[0][0] and b"<testsuites" in outputs[0][2]


def test_cli_bad_input_is_one_line_exit_2(tmp_path, cli_error, write) -> None:
    base_path, head_path = _files(tmp_path, results(), head_results())
    cli_error(
        ["compare", tmp_path / "nope.json", head_path], "nope.json", "--allow-missing-baseline"
    )
    broken = write("broken.json", '{"schema": "ragguard.results/1"')
    cli_error(["compare", base_path, broken], "broken.json", "not valid JSON")
    config = _config(tmp_path, "gate:\n  alpha: 7\n")
    cli_error(["compare", base_path, head_path, "-c", config], "ragguard.yml:5", "gate.alpha")
    bare = write("bare.md.j2", "no marker here\n")
    cli_error(
        ["compare", base_path, head_path, "--markdown", tmp_path / "c.md", "--template", bare],
        "bare.md.j2",
        "hidden marker",
    )


def test_cli_missing_baseline_gives_the_no_baseline_report(tmp_path, ragguard_process) -> None:
    _, head_path = _files(tmp_path, None, head_results())
    comment = tmp_path / "comment.md"
    completed = ragguard_process(
        "compare",
        tmp_path / "none.json",
        head_path,
        "--allow-missing-baseline",
        "--markdown",
        comment,
    )
    assert completed.returncode == 0, completed.stderr
    assert "No baseline yet" in comment.read_text(encoding="utf-8")


def test_a_rule_for_a_metric_neither_file_has_is_not_silently_ignored() -> None:
    rules = GateRules(metrics={"faithfulness": MetricRule(min=0.9)}, per_question={"mrr@5": 1.0})
    comparison = compare(results(), head_results(), rules)
    assert comparison.verdict == WARN
    assert [r.subject for r in comparison.reasons] == ["faithfulness", "mrr@5"]


def test_baseline_errors_are_counted_and_said() -> None:
    comparison = compare(results(errors={"auth-token": "timeout"}), head_results(), RULES)
    assert comparison.baseline_errors == 1
    assert [q.id for q in comparison.of_kind(FIXED)] == ["auth-token"]
    assert "1 question could not be evaluated in the baseline" in render_comment(comparison)


def test_outputs_do_not_depend_on_the_process(tmp_path: Path) -> None:
    """Two processes with different hash seeds write the same bytes."""
    base_path, head_path = _files(tmp_path, results(), head_results({"retry-429": 0}))
    script = Path(sys.executable).parent / "ragguard"
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / seed
        subprocess.run(
            [
                str(script),
                "compare",
                str(base_path),
                str(head_path),
                "--json",
                str(out / "c.json"),
                "--markdown",
                str(out / "c.md"),
                "--junit",
                str(out / "c.xml"),
            ],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            check=False,
            timeout=60,
        )
        outputs.append([(out / name).read_bytes() for name in ("c.json", "c.md", "c.xml")])
    assert outputs[0] == outputs[1]


def test_nothing_in_common_with_the_baseline_is_an_error_never_a_pass() -> None:
    """Another suite's results, a renamed test set: no question id or no metric shared."""
    renamed = tuple(replace(q, id=f"renamed-{q.id}") for q in QUESTIONS)
    no_question = compare(results(), head_results(questions=renamed), RULES)
    assert no_question.n_paired == 0
    assert no_question.verdict == ERROR and exit_code(no_question) == 3
    assert [r.text for r in no_question.reasons if r.tier == ERROR] == [
        "no question id in common with the baseline; nothing was compared"
    ]

    no_metric = compare(results(metrics="recall@5"), head_results(metrics="mrr"), RULES)
    assert no_metric.verdict == ERROR and exit_code(no_metric) == 3
    assert "no metric in common with the baseline; nothing was compared" in [
        r.text for r in no_metric.reasons
    ]


def test_head_results_without_questions_are_an_error_even_without_a_baseline() -> None:
    empty = replace(head_results(), questions=())
    for baseline in (None, results()):
        comparison = compare(baseline, empty, RULES)
        assert comparison.verdict == ERROR and exit_code(comparison) == 3
        assert comparison.reasons[0].text == (
            "the head results hold no question; nothing was evaluated"
        )


def test_common_metric_names_with_no_values_compare_nothing_and_are_an_error() -> None:
    """The check looked at the metrics' names: two files listing the same metrics, where no
    question has a value, passed."""

    def without_values(found: Results) -> Results:
        return replace(found, questions=tuple(replace(q, metrics={}) for q in found.questions))

    empty = compare(without_values(results()), without_values(head_results()), RULES)

    assert empty.metrics and all(m.only_in is None and m.n == 0 for m in empty.metrics)
    assert empty.verdict == ERROR and exit_code(empty) == 3
    assert [r.text for r in empty.reasons if r.tier == ERROR] == [
        "no question has a value of any common metric on both sides; nothing was compared"
    ]


def test_abstention_joins_the_per_question_rule_where_both_runs_score_it() -> None:
    """An answered ``answerable: false`` question fails (#29 item 5): ``abstention: 1`` in
    the default rule and in a configured one that does not name it (``abstention: 0``
    there keeps such answers passing); not when one run lacks the metric."""
    baseline, head = results(), head_results()
    with_abstention = [replace(r, metrics=(*r.metrics, "abstention")) for r in (baseline, head)]
    assert per_question_rule(RULES, *with_abstention)["abstention"] == 1.0
    configured = GateRules(per_question={"mrr": 0.5})
    assert per_question_rule(configured, *with_abstention) == {"mrr": 0.5, "abstention": 1.0}
    named = GateRules(per_question={"mrr": 0.5, "abstention": 0.0})
    assert per_question_rule(named, *with_abstention) == {"mrr": 0.5, "abstention": 0.0}
    assert "abstention" not in per_question_rule(RULES, baseline, with_abstention[1])
