"""A two-hop support agent, instrumented with OpenTelemetry (OpenInference attribute names).

Hop 1 finds the product the question names; hop 2 finds the warranty of the product's line.
The agent returns only its answer: ragguard reads the two retrievals from the spans.
"""

from __future__ import annotations

import re

from telemetry import tracer

CHUNKS = {
    "products#aurora": "The Aurora X2 is a laptop of the Pro line.",
    "products#cirrus": "The Cirrus 9 is a phone of the Pro line.",
    "products#glacier": "The Glacier 5 is a workstation of the Pro line.",
    "products#halo": "The Halo Max is a headset of the Pro line.",
    "products#breeze": "The Breeze S is a tablet of the Home line.",
    "products#dune": "The Dune M is a monitor of the Home line.",
    "products#iris": "The Iris Mini is a router of the Home line.",
    "products#juniper": "The Juniper 2 is a printer of the Home line.",
    "products#ember": "The Ember Go is a speaker of the Travel line.",
    "products#fjord": "The Fjord 3 is a camera of the Travel line.",
    "products#kestrel": "The Kestrel Air is a drone of the Travel line.",
    "products#lumen": "The Lumen Pocket is a projector of the Travel line.",
    "warranty#pro": "Pro line devices carry a three-year warranty, batteries included.",
    "warranty#home": "Home line devices carry a two-year warranty; batteries one year.",
    "warranty#travel": "Travel line devices carry a one-year warranty.",
    "faq#returns": "Returns are accepted within 30 days of delivery.",
}
WORD = re.compile(r"[a-z0-9]+")
TOP_K = 2


def words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def retrieve(query: str) -> list[str]:
    """The chunks sharing the most words with the query (ties in corpus order), as a
    RETRIEVER span."""
    with tracer.start_as_current_span("retrieve") as span:
        span.set_attribute("openinference.span.kind", "RETRIEVER")
        span.set_attribute("input.value", query)
        scored = sorted(
            ((len(words(query) & words(text)), chunk_id) for chunk_id, text in CHUNKS.items()),
            key=lambda pair: -pair[0],
        )
        found = [chunk_id for score, chunk_id in scored[:TOP_K] if score > 0]
        for rank, chunk_id in enumerate(found):
            prefix = f"retrieval.documents.{rank}.document"
            span.set_attribute(f"{prefix}.id", chunk_id)
            span.set_attribute(f"{prefix}.content", CHUNKS[chunk_id])
        return found


def second_query(product_text: str, question: str) -> str:
    """Hop 2's query: the product's line and the word warranty."""
    line = re.search(r"of the (\w+) line", product_text)
    return f"{line.group(1)} line warranty" if line else question


def answer(question: str) -> dict[str, str]:
    with tracer.start_as_current_span("support-agent") as span:
        span.set_attribute("openinference.span.kind", "AGENT")
        span.set_attribute("input.value", question)
        products = retrieve(question)
        product_text = CHUNKS[products[0]] if products else ""
        warranties = retrieve(second_query(product_text, question))
        text = CHUNKS[warranties[0]] if warranties else "I could not find the warranty."
        span.set_attribute("output.value", text)
        return {"answer": text}
