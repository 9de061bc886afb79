"""Spans from real instrumentations: a LangChain retriever instrumented by
openinference-instrumentation-langchain, and an OpenAI client instrumented by
opentelemetry-instrumentation-openai-v2 talking to the project's local OpenAI-compatible test
server (GenAI ``chat`` spans with usage). Written as OTLP files and read back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from fake_openai import FakeOpenAI
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda
from openinference.instrumentation.langchain import LangChainInstrumentor
from openinference.semconv.trace import SpanAttributes
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from otlp_writers import collector_lines, protobuf_json, recording_provider

from ragguard.results.chunks import Chunk
from ragguard.results.steps import LLM, RETRIEVAL, Step
from ragguard.results.usage import Usage
from ragguard.traces.reader import load_trace_run

KB = {
    "models#2": "Model X is the 2024 kettle.",
    "warranty#3": "The 2024 kettle has a two-year warranty.",
    "returns#1": "Returns are accepted for thirty days.",
}
QUESTION = "How long is the warranty on model X?"


class KeywordRetriever(BaseRetriever):
    """A tiny in-memory retriever: the documents sharing a word with the query, with the
    chunk id in the metadata (LangChain's instrumentation exports metadata, not ``id``)."""

    def _get_relevant_documents(self, query: str, *, run_manager) -> list[Document]:
        words = {word.strip("?.").lower() for word in query.split()}
        return [
            Document(page_content=text, metadata={"id": chunk_id})
            for chunk_id, text in KB.items()
            if words & {word.strip("?.").lower() for word in text.split()}
        ]


def two_hop_chain():
    """Retrieve for the question, then again for what the first hop found."""
    retriever = KeywordRetriever()

    def hop_two(question: str) -> dict:
        first = retriever.invoke(question)
        second = retriever.invoke(f"returns for {first[0].page_content}")
        return {"first": first, "second": second}

    return RunnableLambda(hop_two) | RunnableLambda(lambda found: found["second"][0].page_content)


@pytest.fixture
def langchain_spans() -> Iterator:
    provider, exporter = recording_provider()
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield exporter
    finally:
        instrumentor.uninstrument()


def test_a_langchain_retriever_instrumented_by_openinference(
    tmp_path: Path, langchain_spans
) -> None:
    answer = two_hop_chain().invoke(QUESTION)
    spans = langchain_spans.get_finished_spans()
    for name, text in (("a.json", protobuf_json(spans)), ("b.jsonl", collector_lines([spans]))):
        (tmp_path / name).write_text(text, encoding="utf-8")
        run = load_trace_run(tmp_path / name, {"warranty": QUESTION})
        record = run.records["warranty"]
        first, second = (step for step in record.steps if step.type == RETRIEVAL)
        assert first == Step(
            RETRIEVAL,
            query=QUESTION,
            retrieved=(Chunk("models#2", KB["models#2"]), Chunk("warranty#3", KB["warranty#3"])),
        )
        assert second.query == f"returns for {KB['models#2']}"
        assert [chunk.id for chunk in second.retrieved] == ["models#2", "warranty#3", "returns#1"]
        assert record.retrieved_ids == ["models#2", "warranty#3", "returns#1"]
        assert record.answer == answer == KB["models#2"]
        assert run.notes == ()


@pytest.fixture
def openai_spans(monkeypatch) -> Iterator:
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
    provider, exporter = recording_provider()
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield provider, exporter
    finally:
        instrumentor.uninstrument()


def test_an_openai_client_instrumented_by_openai_v2(tmp_path: Path, openai_spans) -> None:
    """The GenAI chat span's usage and reply; the root span (the agent's own) has no
    output, so the answer is the model call's reply."""
    provider, exporter = openai_spans
    tracer = provider.get_tracer("agent")
    with FakeOpenAI(default="echo") as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0)
        with tracer.start_as_current_span("agent") as root:
            root.set_attribute(SpanAttributes.INPUT_VALUE, QUESTION)
            for _ in range(2):
                client.chat.completions.create(
                    model="fake", messages=[{"role": "user", "content": QUESTION}]
                )
    path = tmp_path / "traces.jsonl"
    path.write_text(collector_lines([exporter.get_finished_spans()]), encoding="utf-8")
    record = load_trace_run(path, {"warranty": QUESTION}).records["warranty"]
    call = Step(LLM, usage=Usage(prompt_tokens=100, completion_tokens=20))
    assert record.steps == (call, call)
    assert record.usage == Usage(prompt_tokens=200, completion_tokens=40, total_tokens=240)
    assert record.answer == f"echo: {QUESTION}"
