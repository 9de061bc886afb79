"""Judge calls per answer for faithfulness: ragguard, ragas and deepeval, counted at a server.

Every tool is pointed at the same local OpenAI-compatible server on 127.0.0.1 (the tests'
fake judge, tests/judge/fake_openai.py, extended here to answer ragas's and deepeval's
prompts too). The server counts every ``/chat/completions`` request and tells the steps apart
by their prompts (ragas: statements, then NLI verdicts; deepeval: truths, claims, verdicts,
reason; ragguard: its one prompt). Each tool scores the same answers twice, the second time
over the unchanged answers, each time in a new process, as a rerun in CI would: only what a
tool keeps on disk carries over (and no async client is reused across event loops, which
fails for ragas's LangChain and instructor clients). The replies are well-formed on the
first try, so the counts are each tool's minimum (a malformed reply makes each ask again).
The tools:

- ragguard's judge (``score_run`` with ``faithfulness`` by the judge, through ragguard's
  ``JudgeClient``, with a cache folder that is empty for the first run);
- ragas ``Faithfulness`` through ``ragas.evaluate`` with ``LangchainLLMWrapper(ChatOpenAI)``;
- ragas ``metrics.collections.Faithfulness`` with ``llm_factory`` (its newer API), without
  and with ``cache=DiskCacheBackend(...)``;
- deepeval ``FaithfulnessMetric`` with ``GPTModel(base_url=...)``, ``include_reason`` on (its
  default) and off, through ``metric.measure``; and through ``deepeval.evaluate`` with
  ``CacheConfig(use_cache=True)``.

ragas and deepeval are not ragguard dependencies: run this with an interpreter that has them
(and ragguard) installed, never in the project's own environment::

    python -m venv /tmp/judgebench
    /tmp/judgebench/bin/pip install ragas==0.4.3 deepeval==4.3.1 langchain-openai -e .
    /tmp/judgebench/bin/python benchmarks/judge_calls.py [--answers 20]

No request leaves the machine: telemetry is switched off through the libraries' variables,
and any connection to a host other than the loopback is refused (and counted) by a guard on
``socket``, so a library that tried one fails fast instead of hanging.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import contextlib
import errno
import importlib.metadata
import io
import json
import math
import os
import re
import socket
import subprocess
import sys
import tempfile
import types
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import environment

from ragguard.demo.pipeline import ABSTAIN_ANSWER, TESTSET_PATH, OrdersDocsPipeline
from ragguard.demo.pipeline import PipelineSettings as DemoSettings
from ragguard.judge.client import JudgeClient
from ragguard.judge.prompts import SYSTEM_PROMPT
from ragguard.metrics.names import parse_metric_list
from ragguard.metrics.settings import GenerationSettings, JudgeSettings
from ragguard.results.records import RunRecord
from ragguard.scoring.score import score_run
from ragguard.testset.load import load_testset
from ragguard.testset.model import TestSet

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "judge"))
from fake_openai import FakeOpenAI  # the tests' fake judge (tests/judge is not a package)

QUIET_ENVIRONMENT = {
    "DEEPEVAL_TELEMETRY_OPT_OUT": "YES",
    "DEEPEVAL_UPDATE_WARNING_OPT_IN": "NO",
    "DEEPEVAL_DISABLE_DOTENV": "1",
    "DEEPEVAL_GRPC_LOGGING": "NO",
    "RAGAS_DO_NOT_TRACK": "true",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "OPENAI_API_KEY": "dummy",
}
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
MODEL = "gpt-4.1"  # a name both libraries know; the local server ignores it
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[a-z0-9-]{4,}")
PASS_TIMEOUT = 600
NAN = float("nan")
RAGAS_INPUT = "Now perform the same with the following input\ninput: "


# -- no request leaves the machine -------------------------------------------------------
class OutboundGuard:
    """Refuses (and counts) DNS look-ups and connections to anything but the loopback."""

    def __init__(self) -> None:
        self.refused = 0
        self._getaddrinfo = socket.getaddrinfo
        self._connect = socket.socket.connect
        self._connect_ex = socket.socket.connect_ex

    def install(self) -> None:
        guard = self

        def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
            name = host.decode() if isinstance(host, bytes) else host
            if name is not None and name not in LOOPBACK:
                guard.refused += 1
                raise socket.gaierror(socket.EAI_NONAME, "refused by judge_calls.py")
            return guard._getaddrinfo(host, *args, **kwargs)

        def allowed(address: Any) -> bool:
            if isinstance(address, tuple) and address and address[0] not in LOOPBACK:
                guard.refused += 1
                return False
            return True

        def connect(sock: socket.socket, address: Any) -> None:
            if not allowed(address):
                raise ConnectionRefusedError(errno.ECONNREFUSED, "refused by judge_calls.py")
            guard._connect(sock, address)

        def connect_ex(sock: socket.socket, address: Any) -> int:
            return guard._connect_ex(sock, address) if allowed(address) else errno.ECONNREFUSED

        socket.getaddrinfo = getaddrinfo
        socket.socket.connect = connect  # type: ignore[method-assign]
        socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]


# -- the answers -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Sample:
    id: str
    question: str
    answer: str
    contexts: tuple[str, ...]


def demo_samples(count: int) -> tuple[TestSet, dict[str, RunRecord], list[Sample]]:
    """The first ``count`` demo questions the demo pipeline answers (it declines the others),
    with an unsupported sentence added to about one answer in three."""
    pipeline = OrdersDocsPipeline(DemoSettings(hallucinate=True))
    questions, records, samples = [], {}, []
    for question in load_testset(TESTSET_PATH).questions:
        answer = pipeline.ask(question)
        if answer.answer in (None, ABSTAIN_ANSWER):
            continue
        questions.append(question)
        records[question.id] = RunRecord(question.id, answer.retrieved, answer.answer)
        contexts = tuple(chunk.text or "" for chunk in answer.retrieved)
        samples.append(Sample(question.id, question.question, answer.answer, contexts))
        if len(samples) == count:
            break
    return TestSet(tuple(questions)), records, samples


# -- the server: ragguard's fake judge, taught the other libraries' steps ---------------------
def sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE_END.split(text.strip()) if part.strip()]


def supported(statement: str, context: str) -> bool:
    """The fake judge's rule: most of the statement's longer words are in the context."""
    words = set(_WORD.findall(statement.lower()))
    found = words & set(_WORD.findall(context.lower()))
    return bool(words) and len(found) / len(words) >= 0.75


def between(text: str, start: str, end: str) -> str:
    return text.rsplit(start, 1)[1].split(end, 1)[0]


def ragas_input(prompt: str) -> dict[str, Any]:
    return json.loads(prompt.rsplit(RAGAS_INPUT, 1)[1].rsplit("\nOutput:", 1)[0])


def listed(text: str) -> list[str]:
    """deepeval renders a list into its prompt as Python's repr (or JSON)."""
    with contextlib.suppress(ValueError, SyntaxError):
        return [str(item) for item in ast.literal_eval(text.strip())]
    return [str(item) for item in json.loads(text)]


def ragas_statements(prompt: str) -> dict[str, Any]:
    return {"statements": sentences(ragas_input(prompt)["answer"])}


def ragas_verdicts(prompt: str) -> dict[str, Any]:
    data = ragas_input(prompt)
    return {
        "statements": [
            {
                "statement": statement,
                "reason": "stated in the context" if ok else "not in the context",
                "verdict": int(ok),
            }
            for statement in data["statements"]
            for ok in [supported(statement, data["context"])]
        ]
    }


def deepeval_truths(prompt: str) -> dict[str, Any]:
    return {"truths": sentences(between(prompt, "\nText:\n", "\n\nJSON:"))}


def deepeval_claims(prompt: str) -> dict[str, Any]:
    return {"claims": sentences(between(prompt, "\nAI Output:\n", "\n\nJSON:"))}


def deepeval_verdicts(prompt: str) -> dict[str, Any]:
    context = between(prompt, "\nRetrieval Contexts:\n", "\n\nClaims:\n")
    claims = listed(between(prompt, "\n\nClaims:\n", "\n\nJSON:"))
    return {
        "verdicts": [
            {"verdict": "yes", "reason": None}
            if supported(claim, context)
            else {"verdict": "no", "reason": "The retrieval context does not say this."}
            for claim in claims
        ]
    }


def deepeval_reason(prompt: str) -> dict[str, Any]:
    return {"reason": "The score is as computed because some claims are not in the context."}


@dataclass(frozen=True)
class Step:
    name: str
    marker: str
    reply: Callable[[str], dict[str, Any]]


STEPS = (
    Step("ragas statements", "Break down each sentence into one or more", ragas_statements),
    Step("ragas NLI verdicts", "judge the faithfulness of a series of statements", ragas_verdicts),
    Step("deepeval truths", 'with the "truths" key', deepeval_truths),
    Step("deepeval claims", 'with the "claims" key', deepeval_claims),
    Step("deepeval verdicts", "whether EACH claim contradicts", deepeval_verdicts),
    Step("deepeval reason", "Below is a list of Contradictions", deepeval_reason),
)
RAGGUARD_STEP = "ragguard verdicts"
RAGGUARD_MARKER = SYSTEM_PROMPT.splitlines()[0]


def prompt_text(body: Any) -> str:
    """Every message's text, joined (content may be a string or a list of parts)."""
    parts = []
    for message in (body or {}).get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        parts.append(str(content or ""))
    return "\n".join(parts)


def step_of(body: Any) -> Step | None:
    prompt = prompt_text(body)
    return next((step for step in STEPS if step.marker in prompt), None)


def step_name(body: Any) -> str:
    if RAGGUARD_MARKER in prompt_text(body):
        return RAGGUARD_STEP
    step = step_of(body)
    return step.name if step else "unrecognised"


class CountingJudge(FakeOpenAI):
    """The fake judge, replying to ragas's and deepeval's steps in the shapes they parse."""

    def verdict(self, body: Any) -> dict[str, Any]:
        step = step_of(body)
        if step is None:
            return super().verdict(body)
        return step.reply(prompt_text(body))


# -- the tools: one pass each, in a process of its own -------------------------------------
@dataclass(frozen=True)
class Answers:
    testset: TestSet
    records: dict[str, RunRecord]
    samples: list[Sample]


def score_ragguard(base_url: str, answers: Answers, work: Path) -> list[float]:
    """``score_run`` with faithfulness by the judge, through ``JudgeClient``; the cache
    folder is the same for both passes (fresh for the first)."""
    judge = JudgeSettings(
        base_url, MODEL, concurrency=8, cache_dir=work / "ragguard-cache", timeout=10
    )
    results = score_run(
        answers.testset,
        answers.records,
        parse_metric_list("faithfulness"),
        suite="judge-calls",
        generation=GenerationSettings(faithfulness_method="judge", judge=judge),
        judge=JudgeClient(judge),
    )
    return [question.metrics.get("faithfulness", NAN) for question in results.questions]


def ragas_rows(answers: Answers) -> list[dict[str, Any]]:
    return [
        {"user_input": s.question, "response": s.answer, "retrieved_contexts": list(s.contexts)}
        for s in answers.samples
    ]


def score_ragas_evaluate(base_url: str, answers: Answers, work: Path) -> list[float]:
    """``ragas.evaluate`` with the legacy ``Faithfulness`` and a LangChain chat model."""
    from langchain_openai import ChatOpenAI
    from ragas import EvaluationDataset, evaluate
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import Faithfulness

    llm = LangchainLLMWrapper(
        ChatOpenAI(model=MODEL, base_url=base_url, api_key="dummy", timeout=10)
    )
    result = evaluate(
        EvaluationDataset.from_list(ragas_rows(answers)),
        metrics=[Faithfulness(llm=llm)],
        show_progress=False,
        raise_exceptions=True,
    )
    return [float(value) for value in result["faithfulness"]]


def score_ragas_collections(base_url: str, answers: Answers, cache_dir: Path | None) -> list[float]:
    """``ragas.metrics.collections.Faithfulness`` with ``llm_factory`` over an OpenAI client."""
    from openai import AsyncOpenAI
    from ragas.llms import llm_factory
    from ragas.metrics.collections import Faithfulness

    cache = None
    if cache_dir is not None:
        from ragas.cache import DiskCacheBackend

        cache = DiskCacheBackend(cache_dir=str(cache_dir))

    async def score_all() -> list[float]:
        client = AsyncOpenAI(base_url=base_url, api_key="dummy", timeout=10)
        metric = Faithfulness(llm=llm_factory(MODEL, client=client, cache=cache))
        results = await asyncio.gather(
            *(metric.ascore(s.question, s.answer, list(s.contexts)) for s in answers.samples)
        )
        return [float(result.value) for result in results]

    return asyncio.run(score_all())


def deepeval_setup(base_url: str, answers: Answers, include_reason: bool) -> tuple[Any, list]:
    from deepeval.metrics import FaithfulnessMetric
    from deepeval.models import GPTModel
    from deepeval.test_case import LLMTestCase

    model = GPTModel(model=MODEL, base_url=base_url, api_key="dummy", timeout=10)
    metric = FaithfulnessMetric(model=model, include_reason=include_reason)
    cases = [
        LLMTestCase(input=s.question, actual_output=s.answer, retrieval_context=list(s.contexts))
        for s in answers.samples
    ]
    return metric, cases


def score_deepeval_measure(base_url: str, answers: Answers, include_reason: bool) -> list[float]:
    """``FaithfulnessMetric.measure`` on each test case, as in deepeval's docs."""
    metric, cases = deepeval_setup(base_url, answers, include_reason)
    return [float(metric.measure(case, _show_indicator=False)) for case in cases]


def score_deepeval_evaluate(base_url: str, answers: Answers) -> list[float]:
    """``deepeval.evaluate`` with its cache on (``DEEPEVAL_CACHE_FOLDER`` is the scratch
    folder, shared by both passes)."""
    from deepeval import evaluate
    from deepeval.evaluate.configs import CacheConfig, DisplayConfig

    metric, cases = deepeval_setup(base_url, answers, include_reason=True)
    with contextlib.redirect_stdout(io.StringIO()):
        result = evaluate(
            cases,
            metrics=[metric],
            cache_config=CacheConfig(use_cache=True, write_cache=True),
            display_config=DisplayConfig(show_indicator=False, print_results=False),
        )
    scores = {test.input: test.metrics_data[0].score for test in result.test_results}
    return [float(scores[s.question]) for s in answers.samples]


Pass = Callable[[str, Answers, Path], list[float]]
TOOLS: dict[str, tuple[str, Pass]] = {
    "ragguard": ("ragguard judge (`score_run`, on-disk reply cache)", score_ragguard),
    "ragas-evaluate": (
        "ragas `Faithfulness`, `ragas.evaluate` + `LangchainLLMWrapper(ChatOpenAI)`",
        score_ragas_evaluate,
    ),
    "ragas-collections": (
        "ragas `collections.Faithfulness` + `llm_factory`",
        lambda url, answers, work: score_ragas_collections(url, answers, None),
    ),
    "ragas-collections-cache": (
        "ragas `collections.Faithfulness` + `llm_factory(cache=DiskCacheBackend)`",
        lambda url, answers, work: score_ragas_collections(url, answers, work / "ragas-cache"),
    ),
    "deepeval-measure": (
        "deepeval `FaithfulnessMetric.measure`, `include_reason=True` (default)",
        lambda url, answers, work: score_deepeval_measure(url, answers, True),
    ),
    "deepeval-measure-no-reason": (
        "deepeval `FaithfulnessMetric.measure`, `include_reason=False`",
        lambda url, answers, work: score_deepeval_measure(url, answers, False),
    ),
    "deepeval-evaluate-cache": (
        "deepeval `evaluate(..., cache_config=CacheConfig(use_cache=True))`",
        lambda url, answers, work: score_deepeval_evaluate(url, answers),
    ),
}
RESULT = "JUDGE_CALLS_RESULT "


def quiet_process() -> OutboundGuard:
    """Telemetry off, no connection but to the loopback, deprecation warnings hidden."""
    os.environ.update(QUIET_ENVIRONMENT)
    warnings.simplefilter("ignore", DeprecationWarning)
    guard = OutboundGuard()
    guard.install()
    return guard


def one_pass(tool: str, base_url: str, work: Path, count: int) -> int:
    """Child process: score the answers once with ``tool``; print the scores as JSON."""
    guard = quiet_process()
    stand_in_for_removed_vertexai_module()
    testset, records, samples = demo_samples(count)
    scores = TOOLS[tool][1](base_url, Answers(testset, records, samples), work)
    print(RESULT + json.dumps({"scores": scores, "refused": guard.refused}), flush=True)
    return 0


# -- measuring (the parent process) ---------------------------------------------------------------
@dataclass
class Measured:
    tool: str
    calls: list[int] = field(default_factory=list)
    steps: Counter[str] = field(default_factory=Counter)
    scores: list[float] = field(default_factory=list)
    refused: int = 0
    error: str | None = None

    @property
    def scored(self) -> list[float]:
        return [value for value in self.scores if not math.isnan(value)]


def run_pass(tool: str, server: CountingJudge, work: Path, count: int) -> dict[str, Any]:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--one-pass",
        tool,
        "--base-url",
        server.base_url,
        "--work",
        str(work),
        "--answers",
        str(count),
    ]
    env = {
        **os.environ,
        "DEEPEVAL_CACHE_FOLDER": str(work / ".deepeval"),
        "XDG_DATA_HOME": str(work / "data"),
    }
    done = subprocess.run(
        command,
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=PASS_TIMEOUT,
        check=False,
    )
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(RESULT):
            return json.loads(line[len(RESULT) :])
    lines = [line for line in done.stderr.splitlines() if line.strip()] or ["no output"]
    raise RuntimeError(f"exit code {done.returncode}: {lines[-1][:200]}")


def measure_tool(tool: str, server: CountingJudge, work: Path, count: int) -> Measured:
    """Two passes over the same answers, each in a new process; the server counts the calls."""
    measured = Measured(TOOLS[tool][0])
    try:
        for attempt in range(2):
            start = server.calls
            result = run_pass(tool, server, work, count)
            measured.calls.append(server.calls - start)
            measured.refused += result["refused"]
            if attempt == 0:
                measured.scores = result["scores"]
                measured.steps = Counter(step_name(r.body) for r in server.requests[start:])
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        measured.error = str(exc)
    return measured


def versions() -> dict[str, str]:
    found = {}
    for package in ("ragguard", "ragas", "deepeval", "openai", "langchain-openai", "instructor"):
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def stand_in_for_removed_vertexai_module() -> bool:
    """ragas 0.4.3 imports ``langchain_community.chat_models.vertexai``, which no current
    langchain-community has (ragas issues #2741, #2745, #2753, #2995): ``import ragas`` fails.
    Its one use is an ``isinstance`` list of models that accept ``n`` (ChatOpenAI is matched
    before it), so an empty stand-in class changes nothing for an OpenAI-compatible judge.
    Registered only when the real module is missing; returns whether it was."""
    name = "langchain_community.chat_models.vertexai"
    try:
        importlib.import_module(name)
        return False
    except ImportError:
        module = types.ModuleType(name)
        module.ChatVertexAI = type("ChatVertexAI", (), {})  # type: ignore[attr-defined]
        sys.modules[name] = module
        return True


def require_libraries() -> None:
    """Exit with a message (not a traceback) when ragas or deepeval cannot be imported."""
    missing = []
    for module in ("ragas", "deepeval", "langchain_openai", "openai"):
        try:
            importlib.import_module(module)
        except ImportError as exc:
            missing.append(f"{module} ({exc})")
    if missing:
        sys.exit(
            "judge_calls.py needs ragas, deepeval, langchain-openai and openai, which are not "
            f"ragguard dependencies; not importable here: {', '.join(missing)}.\n"
            "Run it from a scratch environment, for example:\n"
            "  python -m venv /tmp/judgebench\n"
            "  /tmp/judgebench/bin/pip install ragas==0.4.3 deepeval==4.3.1 langchain-openai -e .\n"
            "  /tmp/judgebench/bin/python benchmarks/judge_calls.py"
        )


def table(rows: list[Measured], answers: int) -> list[str]:
    lines = [
        "| tool | calls, first run | calls per answer | calls, rerun | answers scored (mean) |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        if row.error:
            lines.append(f"| {row.tool} | not measured: {row.error} | | | |")
            continue
        first, rerun = row.calls
        mean = sum(row.scored) / len(row.scored) if row.scored else NAN
        lines.append(
            f"| {row.tool} | {first} | {first / answers:g} | {rerun} | "
            f"{len(row.scored)}/{answers} ({mean:.2f}) |"
        )
    return lines


def measure_all(scratch: Path, count: int, stand_in: bool) -> tuple[list[Measured], int]:
    """Print what is measured, then run every tool twice against one counting server."""
    _, _, samples = demo_samples(count)
    print(environment())
    print("versions: " + ", ".join(f"{name} {v}" for name, v in versions().items()))
    if stand_in:
        print(
            "ragas 0.4.3 imports langchain_community.chat_models.vertexai, which this "
            "langchain-community lacks: an empty stand-in module is registered first"
        )
    print(
        f"{len(samples)} answers from ragguard's demo suite (Orders API; "
        f"{sum(len(s.contexts) for s in samples) / len(samples):.1f} retrieved chunks and "
        f"{sum(len(sentences(s.answer)) for s in samples) / len(samples):.1f} sentences per "
        "answer); each tool scores them twice, each time in a new process, against one local "
        "server that counts the requests"
    )
    rows = []
    with CountingJudge() as server:
        for tool in TOOLS:
            work = scratch / tool
            work.mkdir()
            rows.append(measure_tool(tool, server, work, len(samples)))
    return rows, len(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=20)
    parser.add_argument("--one-pass", choices=sorted(TOOLS), help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_pass:
        return one_pass(args.one_pass, args.base_url, args.work, args.answers)
    with tempfile.TemporaryDirectory() as scratch:
        # Where the libraries keep files (deepeval's cache, ragas's analytics id): the
        # scratch folder, never the checkout or the home folder.
        os.environ["XDG_DATA_HOME"] = str(Path(scratch) / "data")
        os.environ["DEEPEVAL_CACHE_FOLDER"] = str(Path(scratch) / ".deepeval")
        quiet_process()
        stand_in = stand_in_for_removed_vertexai_module()
        require_libraries()
        rows, answers = measure_all(Path(scratch), args.answers, stand_in)
    print()
    print("\n".join(table(rows, answers)))
    print()
    for row in rows:
        steps = ", ".join(f"{count} {name}" for name, count in sorted(row.steps.items()))
        print(f"{row.tool}, first run: {steps or '-'}")
    refused = sum(row.refused for row in rows)
    print(f"connections refused (any host but the loopback): {refused}")
    ragguard_as_designed = rows[0].calls == [answers, 0]  # one call per answer, none cached
    return 0 if ragguard_as_designed and not any(row.error for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
