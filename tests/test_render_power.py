"""The plain sentence when a test set is too small for its max_drop."""

from __future__ import annotations

from ragguard.compare.detectable import Noise, detectable
from ragguard.render.power import too_small_lines
from ragguard.render.text import escape_markdown

NOISE = Noise(True, 0.1, "test")


def _escape(name: str) -> str:
    return escape_markdown(name, 60)


def test_one_metric_gets_the_full_sentence() -> None:
    found = detectable("recall@5", 40, 0.05, NOISE, max_drop=0.05)
    assert found.drop is not None and found.needed is not None
    (line,) = too_small_lines([found], str)
    assert line == (
        f"With 40 questions this test set can detect a drop of about {found.drop:.2f} in "
        f"recall@5, not the 0.05 its gate rule asks for; about {found.needed} questions would "
        "detect 0.05, and asking each question more than once (system.repeat) lowers the noise "
        "too."
    )


def test_a_detectable_max_drop_says_nothing() -> None:
    assert too_small_lines([detectable("recall@5", 40, 0.05, NOISE, max_drop=0.5)], str) == []


def test_metric_names_from_the_results_are_escaped() -> None:
    hostile = "x](https://evil)<img src=x>"
    found = detectable(hostile, 40, 0.05, NOISE, max_drop=0.05)
    (line,) = too_small_lines([found, found], _escape)
    assert "<img" not in line
    assert "](https" not in line
