"""Evidence labels in a test set: the forms accepted, the fingerprint, and each error."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragguard.core.errors import InputError
from ragguard.testset.load import load_testset
from ragguard.testset.model import Evidence

GOOD = """\
- id: retry
  question: How fast may I call the API?
  relevant:
    - {doc: rate-limits.md, quote: "Each API key may send 100 requests per minute", grade: 2}
    - {doc: errors.md, lines: [10, 14]}
    - {doc: faq.md, chars: [0, 120], grade: 0}
    - legacy-chunk-7
- id: whole-doc
  question: Where is the changelog?
  relevant: [{doc: changelog.md}]
"""


def load(tmp_path: Path, text: str, name: str = "testset.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_testset(path)


def test_evidence_and_chunk_ids_mix_in_one_question(tmp_path: Path) -> None:
    retry, whole = load(tmp_path, GOOD)
    assert retry.relevant == {"legacy-chunk-7": 1}
    assert retry.evidence == (
        Evidence("rate-limits.md", 2, quote="Each API key may send 100 requests per minute"),
        Evidence("errors.md", 1, lines=(10, 14)),
        Evidence("faq.md", 0, chars=(0, 120)),
    )
    assert whole.evidence == (Evidence("changelog.md"),) and whole.has_relevant


def test_the_same_labels_in_jsonl_give_the_same_fingerprint(tmp_path: Path) -> None:
    jsonl = (
        '{"id": "whole-doc", "question": "Where is the changelog?", '
        '"relevant": [{"doc": "changelog.md"}]}\n'
    )
    from_yaml = load(tmp_path, GOOD).by_id["whole-doc"]
    from_jsonl = load(tmp_path, jsonl, "t.jsonl").by_id["whole-doc"]
    assert from_yaml.fingerprint == from_jsonl.fingerprint


def test_changing_a_quote_or_a_grade_changes_the_fingerprint(tmp_path: Path) -> None:
    before = load(tmp_path, GOOD).by_id["retry"].fingerprint
    regraded = load(tmp_path, GOOD.replace("grade: 2}", "grade: 1}")).by_id["retry"].fingerprint
    requoted = load(tmp_path, GOOD.replace("100 requests", "99 requests")).by_id["retry"]
    assert len({before, regraded, requoted.fingerprint}) == 3


def test_a_question_without_evidence_keeps_its_fingerprint(tmp_path: Path) -> None:
    """Results stored before evidence labels existed stay comparable."""
    from ragguard.testset.model import label_fingerprint

    question = load(tmp_path, "- {id: q, question: x, relevant: {a: 2}}\n").questions[0]
    assert question.fingerprint == label_fingerprint("q", {"a": 2}, True)


@pytest.mark.parametrize(
    ("label", "message"),
    [
        ("{quote: text}", "relevant[0].doc"),
        ("{doc: a.md, quote: x, lines: [1, 2]}", "give one of quote, chars or lines"),
        ("{doc: a.md, quote: ''}", "quote must be a non-empty string"),
        ("{doc: a.md, chars: [5, 2]}", "expected [start, end] with 0 <= start <= end"),
        ("{doc: a.md, lines: [0, 2]}", "expected [start, end] with 1 <= start <= end"),
        ("{doc: a.md, lines: 3}", "lines, both included"),
        ("{doc: a.md, grade: -1}", "must be a non-negative integer"),
        ("{doc: a.md, grade: 1000}", "grades go from 0 to 100"),
        ("{doc: a.md, page: 3}", "'page': unknown key; allowed keys: doc, quote"),
    ],
)
def test_bad_evidence_is_one_line_naming_line_and_key(
    tmp_path: Path, label: str, message: str
) -> None:
    text = f"- id: q\n  question: x\n  relevant:\n    - {label}\n"
    with pytest.raises(InputError) as caught:
        load(tmp_path, text)
    line = str(caught.value)
    assert message in line and "\n" not in line
    assert "testset.yaml:4" in line


def test_evidence_listed_twice_and_only_grade_zero_evidence_are_refused(tmp_path: Path) -> None:
    twice = "- id: q\n  question: x\n  relevant: [{doc: a.md}, {doc: a.md}]\n"
    with pytest.raises(InputError, match=r"evidence a\.md is listed twice"):
        load(tmp_path, twice)
    unanswerable = "- id: q\n  question: x\n  relevant: [{doc: a.md, grade: 0}]\n"
    with pytest.raises(InputError, match="has no relevant chunk"):
        load(tmp_path, unanswerable)
