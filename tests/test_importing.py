"""`ragguard import`: ragas and deepeval test sets become ragguard test sets whose labels
are found by text in a corpus or the documents, and score as the contexts say."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent / "testset" / "drafting"))
from pdf_bytes import tiny_pdf

from ragguard.core.errors import InputError, Where
from ragguard.results.chunks import Chunk
from ragguard.results.io import load_results
from ragguard.testset.context_labels import LabelSources, TextIndex
from ragguard.testset.formats.foreign import ForeignQuestion
from ragguard.testset.importing import Imported, import_questions, load_docs, question_ids
from ragguard.testset.load import load_testset
from ragguard.testset.model import normal_text

FOREIGN = Path(__file__).parent / "data" / "foreign"
DOCS = Path(__file__).parent.parent / "src" / "ragguard" / "demo" / "orders_api" / "docs"
RATE = "Each API key may send 100 requests per minute."


def _question(text: str, *contexts: str, name: str | None = None) -> ForeignQuestion:
    return ForeignQuestion(text, contexts, Where("set.jsonl", 1), name=name)


def test_a_context_is_found_whatever_its_case_and_spacing():
    index = TextIndex({"a": "Intro.\n\nEach  API key may send\n100 requests per minute.", "b": "x"})

    assert index.holding("each API key may send 100 requests PER minute.") == ["a"]


def test_a_context_is_never_found_across_two_texts():
    index = TextIndex({"a": "Each API key", "b": "may send 100 requests"})

    assert index.holding("key may send") == []


def test_every_text_holding_a_context_is_found_once():
    index = TextIndex({"a": "x. y. x.", "b": "z", "c": "x."})

    assert index.holding("x.") == ["a", "c"]


def test_a_chunk_that_names_its_document_gives_evidence_that_survives_rechunking():
    chunks = {"c7": Chunk("c7", f"Limits. {RATE}", None, "rate-limits.md")}
    sources = LabelSources.of(chunks, {})

    assert sources.labels_for(RATE) == [{"doc": "rate-limits.md", "quote": RATE}]


def test_a_chunk_without_document_gives_its_id():
    sources = LabelSources.of({"c7": Chunk("c7", RATE), "c8": Chunk("c8", RATE)}, {})

    assert sources.labels_for(RATE) == ["c7", "c8"]


def test_documents_are_searched_when_no_chunk_holds_the_context():
    sources = LabelSources.of({"c1": Chunk("c1", "Each API key")}, {"limits.md": f"# L\n{RATE}"})

    assert sources.labels_for(RATE) == [{"doc": "limits.md", "quote": RATE}]


def test_a_question_is_imported_with_all_its_contexts_or_not_at_all():
    sources = LabelSources.of({}, {"limits.md": RATE})
    questions = [_question("Q1?", RATE), _question("Q2?", RATE, "Not in any document.")]

    imported = import_questions(questions, sources, "ragas")

    assert [e["question"] for e in imported.entries] == ["Q1?"]
    assert imported.unlabelled[0].place == "set.jsonl:1"
    assert "reference context 2" in imported.unlabelled[0].why


def test_ids_are_stable_and_distinct():
    questions = [_question("Same?", RATE), _question("Same?", RATE), _question("Other?", RATE)]

    ids = question_ids(questions)

    assert ids == question_ids(list(questions))
    assert len(set(ids)) == 3
    assert ids[1] == ids[0] + "-2"
    assert all(i.startswith("q-") for i in ids)


def test_deepeval_names_are_the_ids_when_all_are_given_and_distinct():
    named = [_question("A?", RATE, name="a"), _question("B?", RATE, name="b")]
    clash = [_question("A?", RATE, name="a"), _question("B?", RATE, name="a")]

    assert question_ids(named) == ["a", "b"]
    assert question_ids(clash)[0].startswith("q-")


def test_deepeval_names_equal_after_normalisation_are_refused_at_the_second_one():
    """They would be two ids the test set refuses: the error names the imported file and
    the line of the second name, before anything is written."""
    first = ForeignQuestion("A?", (RATE,), Where("set.jsonl", 1), name="caf\u00e9")
    second = ForeignQuestion("B?", (RATE,), Where("set.jsonl", 2), name="cafe\u0301")
    with pytest.raises(InputError) as raised:
        question_ids([first, second])
    assert str(raised.value).startswith(
        "set.jsonl:2: name: names 'caf\u00e9' and 'cafe\u0301' differ only in Unicode "
        "normalisation (NFC)"
    )


def test_import_refuses_twin_names_in_a_json_list_by_item_and_writes_nothing(cli_error, tmp_path):
    source = tmp_path / "deepeval.json"
    items = [{"input": "How?", "context": [RATE], "name": n} for n in ("caf\u00e9", "cafe\u0301")]
    source.write_text(json.dumps(items), encoding="utf-8")
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "rate", "text": RATE}) + "\n", encoding="utf-8")
    out = tmp_path / "imported.yaml"
    args = ["import", source, "--from", "deepeval", "--corpus", corpus, "--out", out]
    cli_error(args, f"{source}: [1].name:", "differ only in Unicode normalisation")
    assert not out.exists()


def test_the_entries_are_checked_as_a_test_set_naming_the_imported_file():
    """What the test set's loader would refuse in the file about to be written is refused
    first, at the place of the question in the imported file."""
    entries = [
        {"id": "a", "question": "A?", "relevant": ["rate"]},
        {"id": "a", "question": "B?", "relevant": ["rate"]},
    ]
    places = [Where("set.jsonl", 3), Where("set.jsonl", 5)]
    imported = Imported(entries, places, [], 0)
    with pytest.raises(InputError, match=r"^set.jsonl:5: id: duplicate id 'a' \(first at line 3\)"):
        imported.testset("set.jsonl")


def test_a_document_whose_name_is_not_utf8_is_refused(tmp_path):
    """No label could name it: its name reaches Python as a lone surrogate."""
    (tmp_path / "ok.md").write_text(RATE, encoding="utf-8")
    (tmp_path / "rate-\udcff.md").write_text(RATE, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load_docs(tmp_path)
    assert str(raised.value).endswith(  # shown escaped, as on the terminal (core/errors.py)
        "rate-\\udcff.md: the file's name is not UTF-8 text; rename it"
    )


@pytest.mark.parametrize(
    ("name", "flavour"),
    [("ragas.jsonl", "ragas"), ("ragas_testset.csv", "ragas"), ("deepeval.csv", "deepeval")],
)
def test_import_writes_a_test_set_that_scores_as_the_contexts_say(
    ragguard_cli, tmp_path, name, flavour
):
    out = tmp_path / "testset.yaml"

    result = ragguard_cli(
        "import", FOREIGN / name, "--from", flavour, "--docs", DOCS, "--out", out,
        "--skip-unlabelled",
    )  # fmt: skip

    assert result.exit_code == 0, result.stderr
    assert "imported 2 of 3 questions" in result.stdout
    assert "left out: reference context 1" in result.stderr
    testset = load_testset(out)
    rate, auth = testset.questions
    run = tmp_path / "run.jsonl"
    refused = "Keys sent as query parameters are refused with status 400."
    rate_chunks = [("r1", "rate-limits.md", f"Limits\n{RATE} Bursts are fine.")]
    auth_chunks = [("a1", "authentication.md", refused), ("x", "webhooks.md", "Retried.")]
    run.write_text(_record(rate.id, rate_chunks) + _record(auth.id, auth_chunks))
    scored = ragguard_cli(
        "score", "--testset", out, "--run", run, "--metrics", "recall@3", "--out",
        tmp_path / "results.json",
    )  # fmt: skip
    assert scored.exit_code == 0, scored.stderr
    recall = {
        q.id: q.metrics["recall@3"] for q in load_results(tmp_path / "results.json").questions
    }
    assert recall == {rate.id: 1.0, auth.id: 0.5}


def _record(question_id: str, chunks: list[tuple[str, str, str]]) -> str:
    retrieved = [{"id": i, "doc": doc, "text": text} for i, doc, text in chunks]
    return json.dumps({"id": question_id, "retrieved": retrieved, "answer": "x"}) + "\n"


def test_import_stops_on_an_unlabelled_question_by_default(cli_error, tmp_path):
    cli_error(
        ["import", FOREIGN / "deepeval.json", "--from", "deepeval", "--docs", DOCS,
         "--out", tmp_path / "t.yaml"],
        "deepeval.json [2]", "1 of 3 questions", "--skip-unlabelled",
    )  # fmt: skip
    assert not (tmp_path / "t.yaml").exists()


def test_import_with_a_corpus_labels_chunk_ids(ragguard_cli, tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        json.dumps({"id": "rate", "text": RATE}) + "\n"
        + json.dumps({"id": "q400", "text": "Keys sent as query parameters are refused with status 400."}) + "\n"
        + json.dumps({"id": "bearer", "text": "Send the key in the Authorization header as a bearer token: `Authorization: Bearer <your-api-key>`."}) + "\n"
        + json.dumps({"id": "gql", "text": "The Orders API offers a GraphQL endpoint at /graphql."}) + "\n"
    )  # fmt: skip
    out = tmp_path / "t.jsonl"

    result = ragguard_cli(
        "import", FOREIGN / "deepeval.jsonl", "--from", "deepeval", "--corpus", corpus, "--out", out
    )

    assert result.exit_code == 0, result.stderr
    assert [dict(q.relevant) for q in load_testset(out).questions] == [
        {"rate": 1},
        {"q400": 1, "bearer": 1},
        {"gql": 1},
    ]


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--out", "t.yaml"], ["--corpus, --docs or both"]),
        (["--docs", DOCS, "--out", "t.csv"], ["--out", ".yaml or .jsonl"]),
        (["--docs", "no-such-folder", "--out", "t.yaml"], ["no-such-folder"]),
    ],
)
def test_import_usage_mistakes_are_one_line_errors(cli_error, args, fragments):
    cli_error(["import", FOREIGN / "ragas.jsonl", "--from", "ragas", *args], *fragments)


@given(
    texts=st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=6),
    data=st.data(),
)
def test_a_piece_of_one_text_is_found_in_exactly_the_texts_that_hold_it(texts, data):
    named = {f"t{i}": text for i, text in enumerate(texts)}
    index = TextIndex(named)
    source = data.draw(st.sampled_from(texts))
    start = data.draw(st.integers(0, len(source) - 1))
    piece = source[start : data.draw(st.integers(start + 1, len(source)))]
    assume(normal_text(piece))

    found = index.holding(piece)

    assert found == [
        name for name, text in named.items() if normal_text(piece) in normal_text(text)
    ]


def test_a_nul_in_a_text_is_not_taken_for_the_separator():
    index = TextIndex({"a": "x", "b": "\x00"})

    assert index.holding("\x00") == ["b"]
    assert index.holding("x\x00") == []


def test_documents_are_read_as_every_command_reads_them_html_visible_text_and_pdf(tmp_path):
    """A context from a page's visible text (an entity, a line broken inside a tag) or from a
    PDF is found, as coverage and review then find it (testset/documents.py)."""
    (tmp_path / "page.html").write_text(
        "<h1>Shipping</h1><p>Standard &amp; express orders ship in <b>2</b>\n days.</p>"
    )
    (tmp_path / "terms.pdf").write_bytes(tiny_pdf("Refunds are issued within 14 days."))
    (tmp_path / "notes.rst").write_text("Other text files are read as written.\n")
    docs = load_docs(tmp_path)
    assert docs == {
        "notes.rst": "Other text files are read as written.\n",
        "page.html": "Shipping\n\nStandard & express orders ship in 2 days.\n",
        "terms.pdf": "Refunds are issued within 14 days.\n",
    }
    sources = LabelSources.of({}, docs)
    assert sources.labels_for("Standard & express orders ship in 2 days.") == [
        {"doc": "page.html", "quote": "Standard & express orders ship in 2 days."}
    ]
    assert sources.labels_for("Refunds are issued within 14 days.") == [
        {"doc": "terms.pdf", "quote": "Refunds are issued within 14 days."}
    ]
