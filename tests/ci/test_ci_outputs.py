"""$GITHUB_OUTPUT in the multi-line form, and the job summary."""

from __future__ import annotations

from pathlib import Path

from ragguard.ci.outputs import append_summary, output_block, parse_output_file, write_outputs


def test_multiline_values_round_trip_and_cannot_inject_outputs(tmp_path: Path) -> None:
    out = tmp_path / "output"
    hostile = "line one\nverdict=pass\nEOF\nghadelimiter_1\n"
    write_outputs(out, {"metrics": '{"mrr": {"delta": -0.25}}', "note": hostile})
    write_outputs(out, {"verdict": "fail"})
    assert parse_output_file(out.read_text()) == {
        "metrics": '{"mrr": {"delta": -0.25}}',
        "note": hostile,
        "verdict": "fail",
    }


def test_the_delimiter_never_occurs_in_the_value() -> None:
    block = output_block("x", "ragguard_")
    delimiter = block.splitlines()[0].split("<<")[1]
    assert delimiter not in "ragguard_"
    assert block.endswith(f"\n{delimiter}\n")


def test_outside_actions_nothing_is_written(tmp_path: Path) -> None:
    write_outputs(None, {"verdict": "pass"})
    append_summary(None, "# report")
    assert list(tmp_path.iterdir()) == []


def test_summary_is_appended_with_a_final_newline(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    append_summary(summary, "### ragguard")
    assert summary.read_text() == "earlier step\n### ragguard\n"
