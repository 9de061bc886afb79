"""Agents instrumented by hand with OpenTelemetry: spans from opentelemetry-sdk, attribute
names from openinference-semantic-conventions and the OpenTelemetry GenAI conventions."""

from __future__ import annotations

import json

from openinference.semconv.trace import (
    DocumentAttributes,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as genai

KIND = SpanAttributes.OPENINFERENCE_SPAN_KIND
QUESTIONS = {
    "warranty": "How long is the warranty on model X?",
    "refund": "Can I get a refund for order A-17?",
}


def documents(*entries: tuple[str, float, str]) -> dict[str, object]:
    """OpenInference's flattened retrieval.documents attributes, in rank order."""
    attributes: dict[str, object] = {}
    for index, (doc_id, score, content) in enumerate(entries):
        prefix = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{index}."
        attributes[prefix + DocumentAttributes.DOCUMENT_ID] = doc_id
        attributes[prefix + DocumentAttributes.DOCUMENT_SCORE] = score
        attributes[prefix + DocumentAttributes.DOCUMENT_CONTENT] = content
    return attributes


def two_hop_agent(provider: TracerProvider, question: str, *, break_hop_two: bool = False) -> None:
    """An agent instrumented by hand with OpenInference: retrieve, look up, retrieve again,
    answer."""
    tracer = provider.get_tracer("two-hop-agent")
    with tracer.start_as_current_span("agent") as root:
        root.set_attribute(KIND, OpenInferenceSpanKindValues.AGENT.value)
        root.set_attribute(SpanAttributes.INPUT_VALUE, question)
        with tracer.start_as_current_span("retrieve") as span:
            span.set_attribute(KIND, OpenInferenceSpanKindValues.RETRIEVER.value)
            span.set_attribute(SpanAttributes.INPUT_VALUE, "which model is X")
            span.set_attributes(
                documents(
                    ("models#2", 0.9, "Model X is the 2024 kettle."), ("models#1", 0.4, "Model W.")
                )
            )
        with tracer.start_as_current_span("lookup") as span:
            span.set_attribute(KIND, OpenInferenceSpanKindValues.TOOL.value)
            span.set_attribute(SpanAttributes.TOOL_NAME, "lookup_model")
            span.set_attribute(SpanAttributes.INPUT_VALUE, json.dumps({"model": "X"}))
        with tracer.start_as_current_span("retrieve") as span:
            span.set_attribute(KIND, OpenInferenceSpanKindValues.RETRIEVER.value)
            span.set_attribute(SpanAttributes.INPUT_VALUE, "warranty for model X")
            hop_two = (
                ("warranty#3", 0.8, "Two years.")
                if not break_hop_two
                else ("returns#1", 0.5, "Thirty days.")
            )
            span.set_attributes(
                documents(hop_two, ("models#2", 0.3, "Model X is the 2024 kettle."))
            )
        with tracer.start_as_current_span("llm") as span:
            span.set_attribute(KIND, OpenInferenceSpanKindValues.LLM.value)
            span.set_attribute(SpanAttributes.LLM_TOKEN_COUNT_PROMPT, 812)
            span.set_attribute(SpanAttributes.LLM_TOKEN_COUNT_COMPLETION, 96)
            span.set_attribute(SpanAttributes.LLM_TOKEN_COUNT_TOTAL, 908)
            span.set_attribute("llm.output_messages.0.message.role", "assistant")
            span.set_attribute("llm.output_messages.0.message.content", "Two years.")
        root.set_attribute(SpanAttributes.OUTPUT_VALUE, "Model X has a two-year warranty.")


def genai_agent(provider: TracerProvider, question_id: str) -> None:
    """An agent on the OpenTelemetry GenAI conventions; ragguard.question.id names its
    question (its root has no input.value to match by)."""
    tracer = provider.get_tracer("genai-agent")
    with tracer.start_as_current_span("invoke_agent support") as root:
        root.set_attribute(genai.GEN_AI_OPERATION_NAME, "invoke_agent")
        root.set_attribute(genai.GEN_AI_CONVERSATION_ID, "conv-7")
        with tracer.start_as_current_span("retrieval kb") as span:
            span.set_attribute("ragguard.question.id", question_id)
            span.set_attribute(genai.GEN_AI_OPERATION_NAME, "retrieval")
            span.set_attribute(genai.GEN_AI_RETRIEVAL_QUERY_TEXT, "refund rules")
            span.set_attribute(
                genai.GEN_AI_RETRIEVAL_DOCUMENTS,
                json.dumps([{"id": "refunds#2", "score": 0.7}, {"id": "orders#1", "score": 0.2}]),
            )
        with tracer.start_as_current_span("execute_tool lookup_order") as span:
            span.set_attribute(genai.GEN_AI_OPERATION_NAME, "execute_tool")
            span.set_attribute(genai.GEN_AI_TOOL_NAME, "lookup_order")
            span.set_attribute(genai.GEN_AI_TOOL_CALL_ARGUMENTS, '{"order_id": "A-17"}')
        with tracer.start_as_current_span("chat gpt") as span:
            span.set_attribute(genai.GEN_AI_OPERATION_NAME, "chat")
            span.set_attribute(genai.GEN_AI_USAGE_INPUT_TOKENS, 300)
            span.set_attribute(genai.GEN_AI_USAGE_OUTPUT_TOKENS, 40)
            span.set_attribute(
                genai.GEN_AI_OUTPUT_MESSAGES,
                json.dumps(
                    [
                        {
                            "role": "assistant",
                            "parts": [
                                {"type": "text", "content": "Yes, "},
                                {"type": "text", "content": "within 30 days."},
                            ],
                        }
                    ]
                ),
            )
