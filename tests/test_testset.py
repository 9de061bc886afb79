"""The test set: three file formats, fingerprints, and every validation rule."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest
import yaml

from ragguard.core.errors import InputError
from ragguard.testset.load import load_testset
from ragguard.testset.model import Question, TestSet

YAML_TEXT = """\
questions:
  - id: retry-after-429
    question: How should a client retry after a 429 response?
    relevant: {rate-limits: 2, error-codes: 1, pagination: 0}
    reference_answer: Wait for Retry-After seconds, then retry.
    critical: true
    tags: [rate-limits, errors]
  - id: authenticate
    question: How do I authenticate?
    relevant: [authentication]
  - id: refunds
    question: Can I get a refund in bitcoin?
    answerable: false
    tags: [out-of-scope]
"""

JSONL_TEXT = "\n".join(
    json.dumps(entry)
    for entry in [
        {
            "id": "retry-after-429",
            "question": "How should a client retry after a 429 response?",
            "relevant": {"rate-limits": 2, "error-codes": 1, "pagination": 0},
            "reference_answer": "Wait for Retry-After seconds, then retry.",
            "critical": True,
            "tags": ["rate-limits", "errors"],
        },
        {
            "id": "authenticate",
            "question": "How do I authenticate?",
            "relevant": ["authentication"],
        },
        {
            "id": "refunds",
            "question": "Can I get a refund in bitcoin?",
            "answerable": False,
            "tags": ["out-of-scope"],
        },
    ]
)

CSV_TEXT = """\
id,question,relevant,reference_answer,answerable,critical,tags
retry-after-429,How should a client retry after a 429 response?,rate-limits:2; error-codes:1;pagination:0,"Wait for Retry-After seconds, then retry.",,yes,rate-limits;errors
authenticate,How do I authenticate?,authentication,,true,,
refunds,Can I get a refund in bitcoin?,,,false,no,out-of-scope
"""

EXPECTED = TestSet(
    (
        Question(
            id="retry-after-429",
            question="How should a client retry after a 429 response?",
            relevant={"rate-limits": 2, "error-codes": 1, "pagination": 0},
            reference_answer="Wait for Retry-After seconds, then retry.",
            critical=True,
            tags=("rate-limits", "errors"),
        ),
        Question(
            id="authenticate",
            question="How do I authenticate?",
            relevant={"authentication": 1},
        ),
        Question(
            id="refunds",
            question="Can I get a refund in bitcoin?",
            answerable=False,
            tags=("out-of-scope",),
        ),
    )
)


@pytest.fixture
def three_formats(write):
    return {
        "yaml": load_testset(write("t.yaml", YAML_TEXT)),
        "jsonl": load_testset(write("t.jsonl", JSONL_TEXT)),
        "csv": load_testset(write("t.csv", CSV_TEXT)),
    }


@pytest.mark.parametrize("fmt", ["yaml", "jsonl", "csv"])
def test_each_format_loads_the_expected_questions(three_formats, fmt):
    assert three_formats[fmt] == EXPECTED


def test_the_three_formats_have_the_same_fingerprints(three_formats):
    fingerprints = {fmt: testset.fingerprint for fmt, testset in three_formats.items()}
    assert len(set(fingerprints.values())) == 1, fingerprints
    per_question = {fmt: [q.fingerprint for q in testset] for fmt, testset in three_formats.items()}
    assert per_question["yaml"] == per_question["jsonl"] == per_question["csv"]
    assert len(set(per_question["yaml"])) == 3


def test_a_plain_yaml_list_and_a_questions_key_load_alike(write):
    body = YAML_TEXT.split("\n", 1)[1].replace("\n  ", "\n")[2:]
    assert load_testset(write("plain.yml", body)) == EXPECTED


# --- fingerprints -----------------------------------------------------------------------------


def _question(**changes) -> Question:
    base = {"id": "q", "question": "What?", "relevant": {"a": 2, "b": 1}}
    return Question(**(base | changes))


def test_question_fingerprint_ignores_label_order_text_and_tags():
    reference = _question().fingerprint
    assert _question(relevant={"b": 1, "a": 2}).fingerprint == reference
    assert _question(question="Reworded?", tags=("x",), critical=True).fingerprint == reference
    assert _question(reference_answer="Something").fingerprint == reference


@pytest.mark.parametrize(
    "changes",
    [
        {"id": "other"},
        {"relevant": {"a": 1, "b": 1}},
        {"relevant": {"a": 2}},
        {"relevant": {"a": 2, "b": 1, "c": 0}},
        {"relevant": {"a": 2, "c": 1}},
        {"relevant": {}, "answerable": False},
    ],
    ids=["id", "grade", "label-removed", "zero-label-added", "chunk-renamed", "unanswerable"],
)
def test_question_fingerprint_changes_when_what_scoring_depends_on_changes(changes):
    assert _question(**changes).fingerprint != _question().fingerprint


def test_testset_fingerprint_is_order_independent_and_follows_every_label():
    first, second = _question(id="q1"), _question(id="q2", relevant={"c": 1})
    forward = TestSet((first, second)).fingerprint
    assert TestSet((second, first)).fingerprint == forward
    relabelled = _question(id="q2", relevant={"c": 2})
    assert TestSet((first, relabelled)).fingerprint != forward
    assert TestSet((first,)).fingerprint != forward


def test_fingerprint_changes_when_a_label_changes_in_the_file(write):
    before = load_testset(write("t.yaml", YAML_TEXT))
    after = load_testset(write("t2.yaml", YAML_TEXT.replace("error-codes: 1", "error-codes: 2")))
    assert before.fingerprint != after.fingerprint
    changed = [q.id for q, r in zip(before, after, strict=True) if q.fingerprint != r.fingerprint]
    assert changed == ["retry-after-429"]


# --- validation, through the command line -----------------------------------------------------


def _score(path, run):
    return ["score", "--testset", path, "--run", run]


@pytest.mark.parametrize(
    ("name", "content", "line", "fragments"),
    [
        (
            "t.yaml",
            "- id: q1\n  question: x\n  relevant: [a]\n- question: y\n  relevant: [b]\n",
            4,
            ["id: is required"],
        ),
        (
            "t.jsonl",
            '{"id": "q1", "question": "x", "relevant": ["a"]}\n{"question": "y"}\n',
            2,
            ["id: is required"],
        ),
        ("t.csv", "id,question,relevant\nq1,x,a\n,y,b\n", 3, ["id: is required"]),
        ("t.yaml", '- id: ""\n  question: x\n  relevant: [a]\n', 1, ["id: is empty"]),
        (
            "t.yaml",
            "- id: [q1]\n  question: x\n  relevant: [a]\n",
            1,
            ["id: expected a non-empty string, found a list"],
        ),
    ],
    ids=["yaml", "jsonl", "csv", "empty", "list"],
)
def test_missing_or_bad_id(cli_error, write, good_run, name, content, line, fragments):
    path = write(name, content)
    cli_error(_score(path, good_run), f"{path}:{line}: ", *fragments)


@pytest.mark.parametrize(
    ("name", "content", "line"),
    [
        ("t.yaml", "- id: q1\n  question: x\n  relevant: [a]\n- id: q2\n  relevant: [b]\n", 4),
        ("t.yaml", "- id: q1\n  question: '  '\n  relevant: [a]\n", 2),
        ("t.jsonl", '{"id": "q1", "relevant": ["a"]}\n', 1),
        ("t.csv", "id,question,relevant\nq1,,a\n", 2),
    ],
    ids=["yaml-missing", "yaml-blank", "jsonl", "csv"],
)
def test_missing_question_text(cli_error, write, good_run, name, content, line):
    path = write(name, content)
    cli_error(_score(path, good_run), f"{path}:{line}: question: question text is required")


@pytest.mark.parametrize(
    ("name", "content", "first", "second"),
    [
        (
            "t.yaml",
            "- id: q1\n  question: x\n  relevant: [a]\n- id: q2\n  question: y\n  relevant: [a]\n"
            "- id: q1\n  question: z\n  relevant: [a]\n",
            1,
            7,
        ),
        (
            "t.jsonl",
            '{"id": "q1", "question": "x", "relevant": ["a"]}\n\n'
            '{"id": "q1", "question": "y", "relevant": ["a"]}\n',
            1,
            3,
        ),
        ("t.csv", "id,question,relevant\nq1,x,a\nq2,y,a\nq1,z,a\n", 2, 4),
        (
            "t.yaml",
            "- id: 7\n  question: x\n  relevant: [a]\n- id: '7'\n  question: y\n  relevant: [a]\n",
            1,
            4,
        ),
    ],
    ids=["yaml", "jsonl", "csv", "number-and-string"],
)
def test_duplicate_ids_name_both_lines(cli_error, write, good_run, name, content, first, second):
    path = write(name, content)
    cli_error(
        _score(path, good_run), f"{path}:{second}: id: duplicate id", f"first at line {first}"
    )


@pytest.mark.parametrize(
    ("grade", "shown"),
    [("-1", "-1"), ("1.5", "1.5"), ('"high"', '"high"'), ("true", "true"), ("null", "null")],
)
@pytest.mark.parametrize("fmt", ["yaml", "jsonl"])
def test_a_grade_that_is_not_a_non_negative_integer(cli_error, write, good_run, fmt, grade, shown):
    if fmt == "yaml":
        path = write("t.yaml", f"- id: q1\n  question: x\n  relevant:\n    a: 1\n    b: {grade}\n")
        line = 5  # the line of the label itself
    else:
        path = write(
            "t.jsonl", f'\n{{"id": "q1", "question": "x", "relevant": {{"a": 1, "b": {grade}}}}}\n'
        )
        line = 2
    cli_error(
        _score(path, good_run),
        f"{path}:{line}: relevant: grade of 'b' must be a non-negative integer",
        f"found {shown}",
    )


@pytest.mark.parametrize(
    ("cell", "shown"), [("a:-1", "-1"), ("a:1.5", '"1.5"'), ("a:high", '"high"'), ("a:", '""')]
)
def test_a_csv_grade_that_is_not_a_non_negative_integer(cli_error, write, good_run, cell, shown):
    path = write("t.csv", f"id,question,relevant\nq0,x,b\nq1,x,{cell}\n")
    cli_error(_score(path, good_run), f"{path}:3: relevant: grade of 'a'", f"found {shown}")


@pytest.mark.parametrize(
    ("content", "line"),
    [
        ("- id: q1\n  question: x\n", 1),
        ("- id: q1\n  question: x\n  relevant: {a: 0, b: 0}\n", 3),
        ("- id: q1\n  question: x\n  relevant: []\n", 3),
    ],
    ids=["no-labels", "only-grade-0", "empty-list"],
)
def test_an_answerable_question_needs_a_relevant_chunk(cli_error, write, good_run, content, line):
    path = write("t.yaml", content)
    cli_error(
        _score(path, good_run),
        f"{path}:{line}: relevant: question 'q1' has no relevant chunk",
        "answerable: false",
    )


def test_answerable_false_with_labels_is_refused(cli_error, write, good_run):
    path = write("t.yaml", "- id: q1\n  question: x\n  answerable: false\n  relevant: [a]\n")
    cli_error(
        _score(path, good_run), f"{path}:4: relevant: question 'q1' is answerable: false", "remove"
    )


def test_answerable_false_with_only_grade_zero_labels_loads(write):
    path = write("t.yaml", "- id: q1\n  question: x\n  answerable: false\n  relevant: {a: 0}\n")
    (question,) = load_testset(path)
    assert question.answerable is False
    assert question.relevant == {"a": 0}


@pytest.mark.parametrize(
    ("name", "content", "line", "key", "suggestion"),
    [
        ("t.yaml", "- id: q1\n  question: x\n  relevant: [a]\n  tag: [x]\n", 4, "tag", "tags"),
        ("t.yaml", "- id: q1\n  question: x\n  relevent: [a]\n", 3, "relevent", "relevant"),
        (
            "t.jsonl",
            '{"id": "q1", "question": "x", "relevant": ["a"], "critcal": true}\n',
            1,
            "critcal",
            "critical",
        ),
        ("t.csv", "id,question,relevant,answerble\nq1,x,a,true\n", 2, "answerble", "answerable"),
    ],
    ids=["yaml-tag", "yaml-relevent", "jsonl", "csv-column"],
)
def test_unknown_key_suggests_the_close_one(
    cli_error, write, good_run, name, content, line, key, suggestion
):
    path = write(name, content)
    cli_error(
        _score(path, good_run),
        f"{path}:{line}: {key}: unknown key; did you mean '{suggestion}'?",
        "allowed keys: id, question",
    )


@pytest.mark.parametrize(
    ("content", "fragments"),
    [
        (
            "- id: q1\n  question: x\n  relevant: [a]\n  answerable: maybe\n",
            ["4: answerable: expected true or false"],
        ),
        (
            "- id: q1\n  question: x\n  relevant: [a, a]\n",
            ["3: relevant: chunk 'a' is listed twice"],
        ),
        (
            "- id: q1\n  question: x\n  relevant: 3\n",
            ["3: relevant: expected a mapping of chunk id to grade"],
        ),
        (
            "- id: q1\n  question: x\n  relevant: [a]\n  tags: [ok, '']\n",
            ["4: tags: expected a list of non-empty strings"],
        ),
        (
            "- id: q1\n  question: x\n  relevant: [a]\n  reference_answer: [x]\n",
            ["4: reference_answer: expected a string"],
        ),
        ("- id: q1\n  question: x\n  relevant: [a]\n  meta: 3\n", ["4: meta: expected a mapping"]),
        ("- q1\n- q2\n", ["1: expected a question mapping, found a string"]),
        ("id: q1\nquestion: x\n", ["expected a list of questions"]),
    ],
    ids=["answerable", "twice", "relevant-type", "tags", "reference", "meta", "item", "top-level"],
)
def test_other_shape_errors_name_the_line_and_key(cli_error, write, good_run, content, fragments):
    path = write("t.yaml", content)
    cli_error(_score(path, good_run), f"{path}:", *fragments)


def test_csv_booleans_must_be_true_or_false(cli_error, write, good_run):
    path = write("t.csv", "id,question,relevant,critical\nq1,x,a,sometimes\n")
    cli_error(
        _score(path, good_run), f"{path}:2: critical: expected true or false, found 'sometimes'"
    )


def test_csv_label_without_chunk_id(cli_error, write, good_run):
    path = write("t.csv", "id,question,relevant\nq1,x,a;:2\n")
    cli_error(_score(path, good_run), f"{path}:2: relevant: ':2' has no chunk id")


def test_csv_chunk_listed_twice(cli_error, write, good_run):
    path = write("t.csv", "id,question,relevant\nq1,x,a:2;b;a\n")
    cli_error(_score(path, good_run), f"{path}:2: relevant: chunk 'a' is listed twice")


def test_unknown_extension_is_refused(cli_error, write, good_run):
    path = write("t.txt", "id,question\n")
    cli_error(
        _score(path, good_run), f"{path}: unknown test set format '.txt'", ".yaml, .jsonl or .csv"
    )


def test_a_list_with_no_questions_is_refused(cli_error, write, good_run):
    path = write("t.yaml", "questions: []\n")
    cli_error(
        _score(path, good_run),
        f"{path}: test set has no questions; a question looks like "
        '"- {id: q1, question: How do I rotate a key?, relevant: [auth-keys]}"',
    )


@pytest.mark.parametrize(
    ("name", "text", "example"),
    [
        ("t.yaml", "", "a question looks like"),
        ("t.yaml", "[]\n", "a question looks like"),
        ("t.jsonl", "\n", "a line looks like"),
        ("t.csv", "id,question,relevant\n", "a row looks like"),
    ],
)
def test_an_empty_test_set_shows_an_entry_of_its_format(name, text, example, tmp_path):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_testset(path)
    assert example in str(caught.value)
    assert "(docs/formats.md)" in str(caught.value)


@pytest.mark.parametrize("kind", ["yaml", "jsonl", "csv"])
def test_the_entry_an_empty_test_set_shows_is_a_test_set_of_its_format(kind, tmp_path):
    from ragguard.testset.load import ENTRY_EXAMPLES

    shown = ENTRY_EXAMPLES[kind]
    quoted = shown.split(" looks like ", 1)[1].removesuffix(" (docs/formats.md)")
    entry = quoted.strip('"') if kind != "jsonl" else quoted
    header = "id,question,relevant\n" if kind == "csv" else ""
    path = tmp_path / f"t.{kind}"
    path.write_text(header + entry + "\n", encoding="utf-8")
    question = load_testset(path).questions[0]
    assert (question.id, question.question) == ("q1", "How do I rotate a key?")
    assert dict(question.relevant) == {"auth-keys": 1}


# --- the loaders directly ---------------------------------------------------------------------


def test_csv_conventions(write):
    path = write(
        "t.csv",
        "id,question,relevant,tags,answerable,critical,reference_answer\n"
        "q1, spaced question ,a:2; b ;c:0,x; y;x,YES,No,\n",
    )
    (question,) = load_testset(path)
    assert question == Question(
        id="q1",
        question="spaced question",
        relevant={"a": 2, "b": 1, "c": 0},
        tags=("x", "y"),
        answerable=True,
        critical=False,
        reference_answer=None,
    )


def test_csv_chunk_ids_may_contain_a_colon_when_the_grade_is_written(write):
    (question,) = load_testset(write("t.csv", "id,question,relevant\nq1,x,urn:doc:7:2\n"))
    assert question.relevant == {"urn:doc:7": 2}


def test_numeric_ids_are_taken_as_their_digits(write):
    testset = load_testset(write("t.yaml", "- id: 42\n  question: x\n  relevant: {7: 1}\n"))
    assert [q.id for q in testset] == ["42"]
    assert testset.questions[0].relevant == {"7": 1}


@pytest.mark.parametrize(
    "written",
    ["007", "+7", "-0", "0x1F", "0b11", "1_000", "1:30", "1:30.5", "1.50", "1.5", "1e3", ".inf"],
)
def test_an_id_in_a_yaml_number_form_is_the_text_as_written(write, written):
    """#31: YAML 1.1 reads 007 as 7, 0x1F as 31, 1:30 as 90 (base 60): ids read as written."""
    text = f"- id: {written}\n  question: x\n  relevant: {{{written}: 1}}\n"
    text += f"- id: q2\n  question: y\n  relevant: [{written}, {{doc: {written}}}]\n"
    first, second = load_testset(write("t.yaml", text))
    assert first.id == written and first.relevant == {written: 1}
    assert second.relevant == {written: 1}
    assert [e.doc for e in second.evidence] == [written]


def test_a_yaml_number_id_matches_the_run_that_names_it(ragguard_cli, write):
    testset = write("t.yaml", "- id: 007\n  question: x\n  relevant: [0x1F]\n")
    run = write("run.jsonl", '{"id": "007", "retrieved": ["0x1F"]}\n')
    done = ragguard_cli("score", "--testset", testset, "--run", run, "--metrics", "hit_rate@1")
    assert done.exit_code == 0, done.output
    assert "1 question: 1 ok" in done.output
    assert "hit_rate@1  1.000    [1.000, 1.000]  1" in done.output


def test_7_and_007_as_keys_of_one_mapping_are_one_key_twice_for_yaml(cli_error, write, good_run):
    path = write("t.yaml", "- id: q\n  question: x\n  relevant: {7: 1, 007: 2}\n")
    cli_error(_score(path, good_run), f"{path}:3: ", "duplicate key '007'")


def test_a_float_id_from_json_is_still_refused(cli_error, write, good_run):
    """JSON keeps no text of a number: 1e3 would come back as 1000.0, so it must be quoted."""
    path = write("t.jsonl", '{"id": 1e3, "question": "x", "relevant": ["a"]}\n')
    cli_error(_score(path, good_run), f"{path}:1: id: expected a non-empty string")


def test_testset_refuses_duplicate_ids_even_when_built_in_code():
    with pytest.raises(InputError, match="duplicate question id 'q'"):
        TestSet((_question(), _question()))


def test_testset_equality_ignores_where_it_was_loaded_from():
    assert TestSet((_question(),), source="a.yaml") == TestSet((_question(),), source="b.csv")
    assert TestSet((_question(),)).known_ids == {"q"}


def test_label_errors_point_at_the_label_line_in_block_yaml(write):
    path = write(
        "t.yaml",
        "- id: q1\n  question: x\n  relevant:\n    - a\n    - b\n    - 7\n    - '7'\n",
    )
    with pytest.raises(InputError) as caught:
        load_testset(path)
    assert caught.value.line == 7
    assert "chunk '7' is listed twice" in caught.value.message


@pytest.mark.parametrize(
    ("name", "content", "line", "fragment"),
    [
        (
            "t.csv",
            'id,question,relevant\nq1,x,"a:2, b:1"\n',
            2,
            "relevant: 'a:2, b:1': separate items with ';'",
        ),
        (
            "t.csv",
            'id,question,relevant,tags\nq1,x,a,"x, y"\n',
            2,
            "tags: 'x, y': separate items with ';'",
        ),
        (
            "t.yaml",
            "- id: q1\n  question: x\n  relevant: a, b\n",
            3,
            "relevant: 'a, b' is one chunk id; list several",
        ),
    ],
    ids=["csv-relevant", "csv-tags", "yaml-string"],
)
def test_a_comma_where_a_list_was_meant_is_refused(
    cli_error, write, good_run, name, content, line, fragment
):
    path = write(name, content)
    cli_error(_score(path, good_run), f"{path}:{line}: {fragment}")


# --- randomized: the same questions written in three formats load alike ------------------------

ID_CHARS = "abcXYZ019-_.é /'\"#&"
TEXT_CHARS = ID_CHARS + ",;:\n\t?!*[]{}"


def _random_text(rng: random.Random, chars: str, size: int) -> str:
    while True:
        text = "".join(rng.choice(chars) for _ in range(rng.randint(1, size))).strip()
        if text:
            return text


def _random_questions(rng: random.Random) -> list[Question]:
    questions: dict[str, Question] = {}
    for _ in range(rng.randint(1, 12)):
        question_id = _random_text(rng, ID_CHARS, 10)
        answerable = rng.random() > 0.2
        chunks = {
            _random_text(rng, ID_CHARS.replace(" ", "") + ":", 8) for _ in range(rng.randint(1, 6))
        }
        relevant = {chunk: rng.randint(0, 3) for chunk in chunks} if answerable else {}
        if answerable and not any(relevant.values()):
            relevant[next(iter(relevant))] = 1
        questions[question_id] = Question(
            id=question_id,
            question=_random_text(rng, TEXT_CHARS, 40),
            relevant=relevant,
            reference_answer=rng.choice([None, _random_text(rng, TEXT_CHARS, 30)]),
            answerable=answerable,
            critical=rng.random() < 0.3,
            tags=tuple(
                dict.fromkeys(_random_text(rng, "abc-é", 5) for _ in range(rng.randint(0, 3)))
            ),
        )
    return list(questions.values())


def _as_mapping(question: Question) -> dict:
    return {
        "id": question.id,
        "question": question.question,
        "relevant": dict(question.relevant),
        "reference_answer": question.reference_answer,
        "answerable": question.answerable,
        "critical": question.critical,
        "tags": list(question.tags),
    }


def _as_csv(questions: list[Question]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        ["tags", "id", "relevant", "question", "answerable", "critical", "reference_answer"]
    )
    for q in questions:
        labels = ";".join(f"{chunk}:{grade}" for chunk, grade in q.relevant.items())
        writer.writerow(
            [
                ";".join(q.tags),
                q.id,
                labels,
                q.question,
                str(q.answerable).lower(),
                "yes" if q.critical else "no",
                q.reference_answer or "",
            ]
        )
    return out.getvalue()


@pytest.mark.parametrize("seed", range(25))
def test_random_questions_load_alike_from_yaml_jsonl_and_csv(write, seed):
    rng = random.Random(seed)
    questions = _random_questions(rng)
    mappings = [_as_mapping(q) for q in questions]
    loaded = [
        load_testset(write("t.yaml", yaml.safe_dump(mappings, allow_unicode=True))),
        load_testset(write("t.jsonl", "".join(json.dumps(m) + "\n" for m in mappings))),
        load_testset(write("t.csv", _as_csv(questions))),
    ]
    expected = TestSet(tuple(questions))
    assert loaded == [expected] * 3
    assert {t.fingerprint for t in loaded} == {expected.fingerprint}
    shuffled = questions[:]
    rng.shuffle(shuffled)
    assert TestSet(tuple(shuffled)).fingerprint == expected.fingerprint
