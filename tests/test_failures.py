"""Failed questions grouped by their error: once with a count, a capped list of ids."""

from __future__ import annotations

from ragguard.render.failures import FailureGroup, capped, failure_lines, group_failures


def test_identical_errors_are_one_group_the_largest_first_in_the_order_met() -> None:
    groups = group_failures(
        [
            ("q1", "error", "timed out"),
            ("q2", "error", "command exited with status 1: boom"),
            ("q3", "error", "command exited with status 1: boom"),
            ("q4", "missing", "timed out"),
            ("q5", "error", "HTTP 500"),
        ]
    )
    assert groups == [
        FailureGroup("error", "command exited with status 1: boom", ("q2", "q3")),
        FailureGroup("error", "timed out", ("q1",)),
        FailureGroup("missing", "timed out", ("q4",)),
        FailureGroup("error", "HTTP 500", ("q5",)),
    ]


def test_a_crash_that_failed_every_question_is_one_line_with_a_count_and_capped_ids() -> None:
    failed = [(f"q{i}", "error", "command exited with status 1: boom") for i in range(200)]
    assert failure_lines(group_failures(failed)) == [
        "error (200 questions): command exited with status 1: boom",
        "  q0, q1, q2, q3, q4, q5, q6, q7, q8, q9 and 190 more",
    ]


def test_a_single_failure_keeps_the_plain_form() -> None:
    lines = failure_lines(group_failures([("page", "error", "RuntimeError: retriever offline")]))
    assert lines == ["error: page: RuntimeError: retriever offline"]


def test_many_distinct_errors_are_capped_with_a_count_of_the_rest() -> None:
    failed = [(f"q{i}", "error", f"HTTP 500 for q{i}") for i in range(13)]
    lines = failure_lines(group_failures(failed), max_groups=10)
    assert len(lines) == 11
    assert lines[-1] == (
        "and 3 other errors (3 questions): see the results file or `ragguard explain RESULTS ID`"
    )


def test_untrusted_messages_and_ids_cannot_break_the_log() -> None:
    failed = [
        ("a\x1b[2Jb", "error", "::error::forged\nsecond line\x07"),
        ("c", "error", "::error::forged\nsecond line\x07"),
    ]
    lines = failure_lines(group_failures(failed))
    assert len(lines) == 2
    assert all("\x1b" not in line and "\x07" not in line for line in lines)
    assert "::error::" not in lines[0]


def test_capped_shows_all_ids_up_to_the_limit() -> None:
    assert capped(("a", "b"), 2) == "a, b"
    assert capped(("a", "b", "c"), 2) == "a, b and 1 more"


def test_a_long_message_is_cut_in_the_middle_so_its_end_still_tells_errors_apart() -> None:
    long = "connection failed: " + "x" * 300
    lines = failure_lines(
        group_failures(
            [
                ("q1", "error", f"{long} (after 3 attempts)"),
                ("q2", "error", f"{long} (after 2 attempts)"),
            ]
        )
    )
    assert lines[0].endswith("x (after 3 attempts)") and lines[1].endswith("x (after 2 attempts)")
    assert lines[0].startswith("error: q1: connection failed: xxx")
    assert " … " in lines[0] and len(lines[0]) < 230
