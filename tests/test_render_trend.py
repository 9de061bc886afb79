"""The trend charts: history lines and this run's values in, mermaid markdown out."""

from __future__ import annotations

from ragguard.render.trend import MAX_POINTS, trend_markdown


def line(commit: str, **summary: float | None) -> dict:
    return {"commit": commit, "summary": summary}


def test_one_chart_per_metric_with_this_run_last() -> None:
    history = [line("a" * 40, mrr=0.5, ndcg=0.4), line("b" * 40, mrr=0.75, ndcg=0.5)]
    text = trend_markdown(history, {"mrr": 0.25, "ndcg": 0.5}, "main", head_label="#7")
    assert text.startswith("<details><summary>Trend over the last 2 baselines of <code>main")
    assert text.count("```mermaid\nxychart-beta") == 2
    assert 'x-axis ["aaaaaaa", "bbbbbbb", "#7"]' in text
    assert "line [0.5000, 0.7500, 0.2500]" in text
    assert "line [0.4000, 0.5000, 0.5000]" in text


def test_no_history_no_section() -> None:
    assert trend_markdown([], {"mrr": 0.5}, "main") == ""


def test_a_metric_missing_from_some_baseline_is_left_out() -> None:
    history = [line("a" * 40, mrr=0.5), line("b" * 40, mrr=0.6, faithfulness=0.9)]
    text = trend_markdown(history, {"mrr": 0.5, "faithfulness": 1.0}, "main")
    assert 'title "mrr"' in text and "faithfulness" not in text


def test_only_the_last_points_and_only_safe_text() -> None:
    history = [line(f"{i:040x}", mrr=0.5) for i in range(MAX_POINTS + 5)]
    history.append({"commit": '"]\n```\n<img src=x>', "summary": {"mrr": 0.1}})
    text = trend_markdown(history, {"mrr": 0.5, 'evil"]': 0.1}, "main<script>")
    assert text.count('", "') == MAX_POINTS  # MAX_POINTS commits plus this run
    assert "<img" not in text and "<script>" not in text and 'evil"' not in text
