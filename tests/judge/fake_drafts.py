"""Drafting replies of the local OpenAI-compatible test server (fake_openai.py), in the
style real models write them: for a ``ragguard testset draft`` prompt (its first line is
``kind: <kind>``), a draft built from the passages' own sentences, or one of the ways models
get it wrong. Behaviours (the server's script names):

- ``ok``: bare JSON, quotes copied from the passage with its line breaks reflowed to spaces
- ``fenced``: "Here is ..." prose, then the JSON in a ```json fence
- ``non_json``: prose only
- ``draft_invented``: a quote the passage does not hold (a paraphrase)
- ``draft_ellipsis``: a quote shortened with "..." in the middle
- ``draft_missing``: no answer field; ``draft_wrong_type``: the question as a list
- ``draft_other_doc``: evidence naming a document the prompt did not give
- ``draft_curly``: the quote's straight quotes and apostrophes made typographic, and its
  first letter lower-cased (a quote "tidied" by the model)
- ``draft_list``: a JSON list of two drafts where one object was asked for
- ``truncated``: the JSON cut off halfway (the reply ran out of tokens)
"""

from __future__ import annotations

import json
import re
from typing import Any

_PASSAGE = re.compile(r'<passage doc="([^"]+)">\n(.*?)\n</passage>', re.DOTALL)
_KIND = re.compile(r"^kind: (\S+)", re.MULTILINE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def is_drafting(prompt: str) -> bool:
    return prompt.startswith("kind: ")


def _sentence(text: str, index: int = 0) -> str:
    """The passage's ``index``-th sentence outside headings, reflowed onto one line."""
    prose = " ".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    found = [part for part in _SENTENCE_END.split(" ".join(prose.split())) if len(part) > 20]
    if not found:
        return " ".join(prose.split())[:80]
    return found[min(index, len(found) - 1)]


def _subject(quote: str) -> str:
    return " ".join(quote.split()[:7]).rstrip(".,;:")


def _evidence(doc: str, quote: str) -> dict[str, str]:
    return {"doc": doc, "quote": quote}


def draft_object(prompt: str) -> dict[str, Any]:
    """A well-formed draft for the prompt's kind, quoting the passages' sentences."""
    kind = _KIND.search(prompt).group(1)  # type: ignore[union-attr]
    passages = _PASSAGE.findall(prompt)
    doc, text = passages[0]
    quote = _sentence(text)
    if kind == "unanswerable":
        return {
            "question": f"Does {doc} say anything about quantum billing for {_subject(quote)}?",
            "answer": "The documentation does not say.",
        }
    if kind == "follow-up":
        second = _sentence(text, 1)
        return {
            "turns": [
                {
                    "question": f"What does {doc} say about {_subject(quote)}?",
                    "answer": quote,
                    "evidence": [_evidence(doc, quote)],
                },
                {
                    "question": f"And after that, what about {_subject(second)}?",
                    "answer": second,
                    "evidence": [_evidence(doc, second)],
                },
            ]
        }
    if kind in ("multi-hop", "comparison"):
        other_doc, other_text = passages[1]
        other = _sentence(other_text)
        question = f"How do {_subject(quote)} and {_subject(other)} relate ({kind})?"
        pair = [_evidence(doc, quote), _evidence(other_doc, other)]
        if kind == "multi-hop":
            return {"question": question, "answer": f"{quote} {other}", "hops": pair}
        return {"question": question, "answer": f"{quote} {other}", "evidence": pair}
    return {
        "question": f"According to {doc}, what holds for {_subject(quote)}?",
        "answer": quote,
        "evidence": [_evidence(doc, quote)],
    }


def draft_reply(prompt: str, behaviour: str) -> str:
    """The reply's content for a drafting prompt and the server's behaviour."""
    if behaviour == "non_json":
        return "Sure! A good question would be: what is the rate limit of the API?"
    data = draft_object(prompt)
    first = data["turns"][0] if "turns" in data else data
    quotes = first.get("evidence") or first.get("hops") or []
    if behaviour == "draft_invented" and quotes:
        quotes[0]["quote"] = "The service guarantees a response within two business days."
    elif behaviour == "draft_ellipsis" and quotes:
        words = quotes[0]["quote"].split()
        quotes[0]["quote"] = " ".join(words[:3]) + " ... " + " ".join(words[-3:])
    elif behaviour == "draft_missing":
        first.pop("answer", None)
    elif behaviour == "draft_wrong_type":
        first["question"] = [first["question"]]
    elif behaviour == "draft_other_doc" and quotes:
        quotes[0]["doc"] = "some-other-page.md"
    elif behaviour == "draft_curly" and quotes:
        quote = quotes[0]["quote"]
        tidied = quote.replace("'", "\u2019").replace('"', "\u201c").replace("`", "\u2018")
        quotes[0]["quote"] = tidied[:1].lower() + tidied[1:]
    content = json.dumps(data, ensure_ascii=False)
    if behaviour == "draft_list":
        return json.dumps([data, data], ensure_ascii=False)
    if behaviour == "truncated":
        return content[: len(content) // 2]
    if behaviour == "fenced":
        return f"Here is a question drafted from the passage:\n\n```json\n{content}\n```\n"
    return content
