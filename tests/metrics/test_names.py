"""Metric lists: faithfulness brings hallucination_free, order kept, nothing doubled."""

from __future__ import annotations

import pytest

from ragguard.metrics.names import parse_metric_list


@pytest.mark.parametrize(
    ("listed", "scored"),
    [
        ("recall@5,faithfulness,answer_f1", "recall@5,faithfulness,hallucination_free,answer_f1"),
        ("faithfulness", "faithfulness,hallucination_free"),
        ("hallucination_free,faithfulness", "hallucination_free,faithfulness"),
        ("faithfulness,hallucination_free,faithfulness", "faithfulness,hallucination_free"),
        ("hit_rate@3,answer_relevance", "hit_rate@3,answer_relevance"),
    ],
)
def test_faithfulness_brings_hallucination_free(listed: str, scored: str) -> None:
    assert [spec.name for spec in parse_metric_list(listed)] == scored.split(",")
