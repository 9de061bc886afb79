"""render/repeats.py: the sentences about repeats, from a Repeats value."""

from __future__ import annotations

from ragguard.compare.model import Repeats
from ragguard.render.repeats import asked, cost_line, repeat_lines

CLASSES = {"stable_pass": 35, "flaky": 3, "stable_fail": 2}


def _repeats(**changes: object) -> Repeats:
    values: dict[str, object] = {
        "head_runs": (3, 3),
        "baseline_runs": (3, 3),
        "head_calls": 120,
        "head_system_ms": 250_000.0,
        "head_classes": CLASSES,
        "baseline_classes": {"stable_pass": 36, "flaky": 2, "stable_fail": 2},
    }
    values.update(changes)
    return Repeats(**values)  # type: ignore[arg-type]


def test_how_often_a_side_asked() -> None:
    assert asked((1, 1)) == "once"
    assert asked((3, 3)) == "3 times"
    assert asked((2, 3)) == "2 to 3 times"  # a question with fewer runs than the others


def test_the_cost_line_names_calls_and_system_time_and_leaves_out_unknown_time() -> None:
    assert (
        cost_line(_repeats())
        == "Each question asked 3 times: 120 system calls, 4m 10s of system time."
    )
    assert (
        cost_line(_repeats(head_system_ms=None)) == "Each question asked 3 times: 120 system calls."
    )


def test_nothing_is_said_without_repeats() -> None:
    assert repeat_lines(None, str) == []


def test_the_lists_of_flakiness_changes_are_cut_after_eight_ids() -> None:
    ids = tuple(f"q{i}" for i in range(11))
    lines = repeat_lines(_repeats(became_flaky=ids), lambda i: f"<{i}>")
    assert lines[-1] == (
        "11 questions became flaky: <q0>, <q1>, <q2>, <q3>, <q4>, <q5>, <q6>, <q7> and 3 more "
        "(baseline: 36 stable pass, 2 flaky, 2 stable fail)."
    )


def test_a_head_asked_once_shows_no_classes_and_no_flakiness() -> None:
    lines = repeat_lines(
        _repeats(head_runs=(1, 1), baseline_classes=None, head_calls=40, became_flaky=("q1",)), str
    )
    assert lines[0] == "Each question asked once: 40 system calls, 4m 10s of system time."
    assert lines[1].startswith("The baseline asked each question 3 times, this run once:")
    assert len(lines) == 2
