"""In-process capture: a Python system instrumented with OpenTelemetry gets its steps from
its spans, with no change to its code; the same run exported and read back is the same."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from otlp_writers import collector_lines

from ragguard.results.chunks import Chunk
from ragguard.results.steps import LLM, RETRIEVAL, Step
from ragguard.results.usage import Usage
from ragguard.system import build_adapter
from ragguard.traces.reader import load_trace_run

AGENT = """\
from opentelemetry import trace
from openinference.semconv.trace import DocumentAttributes, SpanAttributes

tracer = trace.get_tracer(__name__)
KIND = SpanAttributes.OPENINFERENCE_SPAN_KIND
DOCS = {"auth": ["authentication", "errors"], "rate": ["rate-limits"], "page": ["pagination"]}


def answer(question, id):
    with tracer.start_as_current_span("retrieve") as span:
        span.set_attribute(KIND, "RETRIEVER")
        span.set_attribute(SpanAttributes.INPUT_VALUE, question)
        for rank, doc in enumerate(DOCS[id]):
            prefix = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{rank}."
            span.set_attribute(prefix + DocumentAttributes.DOCUMENT_ID, doc)
    with tracer.start_as_current_span("llm") as span:
        span.set_attribute(KIND, "LLM")
        span.set_attribute(SpanAttributes.LLM_TOKEN_COUNT_PROMPT, 100)
        span.set_attribute(SpanAttributes.LLM_TOKEN_COUNT_COMPLETION, 10)
    return RETURNS
"""
_EXPORTED: list[InMemorySpanExporter] = []


@pytest.fixture
def exported() -> Iterator[InMemorySpanExporter]:
    """The global SDK tracer provider (set when none is), with an exporter of the system's
    own: what it would send to a collector."""
    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        trace.set_tracer_provider(TracerProvider())
    provider = trace.get_tracer_provider()
    assert isinstance(provider, TracerProvider)
    if not _EXPORTED:
        _EXPORTED.append(InMemorySpanExporter())
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTED[0]))
    _EXPORTED[0].clear()
    yield _EXPORTED[0]
    _EXPORTED[0].clear()


def write_agent(folder: Path, name: str, returns: str) -> None:
    package = folder / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rag.py").write_text(AGENT.replace("RETURNS", returns), encoding="utf-8")


def test_the_steps_come_from_the_spans(
    suite_dir: Path, module_name: str, make_config, run_suite, exported
) -> None:
    write_agent(suite_dir, module_name, '{"answer": "see the docs"}')
    outcome = run_suite(make_config(f"python: {module_name}.rag:answer"))
    record = outcome.records["auth"]
    assert record.error is None
    assert record.steps == (
        Step(RETRIEVAL, "How do I authenticate to the Orders API?",
             (Chunk("authentication"), Chunk("errors"))),
        Step(LLM, usage=Usage(prompt_tokens=100, completion_tokens=10)),
    )  # fmt: skip
    assert record.retrieved_ids == ["authentication", "errors"]
    assert record.usage == Usage(prompt_tokens=100, completion_tokens=10, total_tokens=110)
    assert record.answer == "see the docs"
    assert set(record.meta) == {"trace_id"}


def test_an_exported_file_reads_back_to_the_same_records(
    suite_dir: Path, module_name: str, make_config, run_suite, exported
) -> None:
    write_agent(suite_dir, module_name, '{"answer": "see the docs"}')
    captured = run_suite(make_config(f"python: {module_name}.rag:answer")).records
    path = suite_dir / "exported.jsonl"
    path.write_text(collector_lines([exported.get_finished_spans()]), encoding="utf-8")
    texts = {"auth": "How do I authenticate to the Orders API?"}  # matched by the id anyway
    read = load_trace_run(path, texts)
    assert read.notes == ()
    assert set(read.records) == set(captured) == {"auth", "rate", "page"}
    for question_id, record in captured.items():
        assert read.records[question_id].steps == record.steps
        assert read.records[question_id].retrieved == record.retrieved
        assert read.records[question_id].answer == record.answer
        assert read.records[question_id].usage == record.usage
        assert read.records[question_id].meta == record.meta


def test_what_the_system_returns_wins(
    suite_dir: Path, module_name: str, make_config, run_suite, exported
) -> None:
    write_agent(suite_dir, module_name, '{"answer": "a", "retrieved": ["mine"]}')
    record = run_suite(make_config(f"python: {module_name}.rag:answer")).records["rate"]
    assert record.retrieved_ids == ["mine"]
    assert [step.type for step in record.steps] == [RETRIEVAL, LLM]


def test_a_system_without_spans_is_left_as_it_is(
    suite_dir: Path, module_name: str, make_config, run_suite, exported
) -> None:
    package = suite_dir / module_name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rag.py").write_text("def answer(q):\n    return {'answer': q}\n")
    record = run_suite(make_config(f"python: {module_name}.rag:answer")).records["page"]
    assert (record.steps, record.meta, record.retrieved) == ((), {}, ())


def test_without_opentelemetry_nothing_changes(suite_dir: Path, module_name: str) -> None:
    package = suite_dir / module_name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rag.py").write_text("def answer(q):\n    return {'answer': q}\n")
    (suite_dir / "ragguard.yml").write_text(
        f"suite: s\ntestset: testset.yaml\nsystem:\n  python: {module_name}.rag:answer\n"
    )
    script = textwrap.dedent(f"""
        import sys
        sys.modules["opentelemetry"] = None
        from ragguard.config.load import load_config
        from ragguard.system import build_adapter
        from ragguard.testset.model import Question
        adapter = build_adapter(load_config({str(suite_dir / "ragguard.yml")!r}))
        print(adapter.capture, adapter.ask(Question("q", "Why?"), 5).answer)
    """)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "None Why?\n", "")


def test_without_a_tracer_provider_nothing_is_captured(suite_dir: Path, module_name: str) -> None:
    """Spans through the OpenTelemetry API with no provider set go nowhere, and ragguard
    sets none: the call is made as it is (a fresh process: no provider yet)."""
    write_agent(suite_dir, module_name, '{"answer": "a"}')
    (suite_dir / "ragguard.yml").write_text(
        f"suite: s\ntestset: testset.yaml\nsystem:\n  python: {module_name}.rag:answer\n"
    )
    script = textwrap.dedent(f"""
        from opentelemetry import trace
        from ragguard.config.load import load_config
        from ragguard.system import build_adapter
        from ragguard.testset.model import Question
        adapter = build_adapter(load_config({str(suite_dir / "ragguard.yml")!r}))
        answer = adapter.ask(Question("auth", "Why?"), 5)
        print(answer.steps, type(trace.get_tracer_provider()).__name__)
    """)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "() ProxyTracerProvider\n", "")


def test_a_bad_span_attribute_fails_its_question(
    suite_dir: Path, module_name: str, make_config, run_suite, exported
) -> None:
    write_agent(suite_dir, module_name, '{"answer": "a"}')
    source = (suite_dir / module_name / "rag.py").read_text()
    (suite_dir / module_name / "rag.py").write_text(
        source.replace("LLM_TOKEN_COUNT_PROMPT, 100", "LLM_TOKEN_COUNT_PROMPT, 'many'")
    )
    record = run_suite(make_config(f"python: {module_name}.rag:answer")).records["auth"]
    assert record.error is not None
    assert record.error.startswith("its spans: spans of ")
    assert "attribute 'llm.token_count.prompt': expected a non-negative number" in record.error
    assert build_adapter(make_config(f"python: {module_name}.rag:answer")).capture is not None


def test_what_the_capture_skipped_is_a_note_after_the_run(
    suite_dir: Path, module_name: str, make_config, ragguard_cli, exported
) -> None:
    write_agent(suite_dir, module_name, '{"answer": "a"}')
    source = (suite_dir / module_name / "rag.py").read_text()
    (suite_dir / module_name / "rag.py").write_text(
        source.replace("DOCUMENT_ID, doc)", "DOCUMENT_CONTENT, doc)")
    )
    make_config(f"python: {module_name}.rag:answer")
    result = ragguard_cli(
        "run", "--config", suite_dir / "ragguard.yml", "--out", suite_dir / "r.json"
    )
    assert result.exit_code == 0, result.stderr
    notes = [line for line in result.stderr.splitlines() if "retrieved documents skipped" in line]
    assert len(notes) == 1
    assert notes[0].startswith(
        f"ragguard: spans of {module_name}.rag:answer: 4 retrieved documents skipped: no "
        "document.id (nor an id in document.metadata) (the first at the call for "
    )


LANGCHAIN_SYSTEM = """\
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda
from openinference.instrumentation.langchain import LangChainInstrumentor

LangChainInstrumentor().instrument()  # the system's own set-up: the global tracer provider
DOCS = {"auth": ["authentication", "errors"], "rate": ["rate-limits"], "page": ["pagination"]}


class Retriever(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager):
        return [Document(page_content=f"about {doc}", metadata={"id": doc}) for doc in DOCS[query]]


chain = RunnableLambda(lambda question_id: Retriever().invoke(question_id)) | RunnableLambda(
    lambda documents: " ".join(document.page_content for document in documents))


def answer(question, id):
    return {"answer": chain.invoke(id)}
"""


def test_a_langchain_system_captured_in_process_reads_back_the_same(
    suite_dir: Path, module_name: str, make_config, run_suite, exported
) -> None:
    """openinference-instrumentation-langchain on the global provider, set up by the
    system's module: its retriever's spans are the steps, and its exported spans read back
    to the same records."""
    from openinference.instrumentation.langchain import LangChainInstrumentor

    package = suite_dir / module_name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rag.py").write_text(LANGCHAIN_SYSTEM, encoding="utf-8")
    try:
        captured = run_suite(make_config(f"python: {module_name}.rag:answer")).records
    finally:
        LangChainInstrumentor().uninstrument()
    auth = captured["auth"]
    assert auth.steps == (
        Step(RETRIEVAL, "auth", (Chunk("authentication", "about authentication"),
                                 Chunk("errors", "about errors"))),
    )  # fmt: skip
    assert auth.answer == "about authentication about errors"
    path = suite_dir / "exported.json"
    path.write_text(collector_lines([exported.get_finished_spans()]), encoding="utf-8")
    read = load_trace_run(path)
    assert read.notes == ()
    for question_id, record in captured.items():
        assert read.records[question_id].steps == record.steps
        assert read.records[question_id].retrieved == record.retrieved
        assert read.records[question_id].answer == record.answer
        assert read.records[question_id].meta == record.meta


def test_run_in_process_and_score_of_the_exported_file_agree(
    suite_dir: Path, module_name: str, make_config, ragguard_cli, exported
) -> None:
    """Through the CLI: ``ragguard run`` of the instrumented system, and ``ragguard score``
    of the file its exporter wrote, give the same results (but the measured latencies)."""
    write_agent(suite_dir, module_name, '{"answer": "see the docs"}')
    make_config(f"python: {module_name}.rag:answer")
    ran = ragguard_cli(
        "run", "--config", suite_dir / "ragguard.yml", "--out", suite_dir / "ran.json"
    )
    assert ran.exit_code == 0, ran.stderr
    path = suite_dir / "exported.jsonl"
    path.write_text(collector_lines([exported.get_finished_spans()]), encoding="utf-8")
    scored = ragguard_cli(
        "score",
        "--testset",
        suite_dir / "testset.yaml",
        "--run",
        path,
        "--out",
        suite_dir / "scored.json",
    )
    assert scored.exit_code == 0, scored.stderr
    results = [json.loads((suite_dir / name).read_text()) for name in ("ran.json", "scored.json")]
    kept = ("id", "status", "metrics", "retrieved", "answer", "usage", "error")
    questions = [[{k: q[k] for k in kept} for q in r["questions"]] for r in results]
    assert questions[0] == questions[1]
    assert len(questions[0]) == 3 and questions[0][0]["metrics"]["mrr"] == 1.0
    summaries = [{name: m["value"] for name, m in r["summary"].items()} for r in results]
    assert summaries[0] == summaries[1]
