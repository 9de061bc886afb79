"""A trace file read and scored as a user runs it, beside the same run in JSON Lines.

The script writes a test set of N questions (three hops and one expected tool each) and the
traces of an agent answering them: 10 spans a question (the agent's root, three retrievals
of 10 documents with their text, two tool calls, three model calls with usage, one chain),
in the OpenTelemetry Collector file exporter's shape (one ExportTraceServiceRequest a line,
100 traces a line, hex ids). It reads that file once to write the same run as JSON Lines
(the records ragguard makes of it), then times whole processes, interleaved:

    ragguard score --testset testset.jsonl --run traces.json --out r.json
    ragguard score --testset testset.jsonl --run run.jsonl --out r.json

and prints each one's wall time and peak RSS (ru_maxrss of the process), and the ratios. The
two results must hold the same metric values. ``--questions`` takes several sizes, to see the
reader stay linear: for each, the in-process read of the trace file alone
(``load_trace_run``) is timed too, per span.

    python benchmarks/traces.py                                  # 10,000 questions, 100k spans
    python benchmarks/traces.py --questions 1000 10000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import environment, measure

from ragguard.results.records import dump_run
from ragguard.traces.reader import load_trace_run

SPANS_A_QUESTION = 10
TRACES_A_LINE = 100
DOCUMENTS = 10
TEXT = "A chunk of the product documentation, about as long as a real retrieved passage is. "


def attribute(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    return {"key": key, "value": {"stringValue": value}}


def span(n: int, index: int, parent: int | None, name: str, **attributes: Any) -> dict[str, Any]:
    start = 1_700_000_000_000_000_000 + n * 10_000_000 + index * 100_000
    data = {
        "traceId": f"{n + 1:032x}",
        "spanId": f"{n * SPANS_A_QUESTION + index + 1:016x}",
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + (5_000_000 if parent is None else 90_000)),
        "attributes": [
            attribute(key.replace("__", "."), value) for key, value in attributes.items()
        ],
        "status": {},
    }
    if parent is not None:
        data["parentSpanId"] = f"{n * SPANS_A_QUESTION + parent + 1:016x}"
    return data


def retrieval(n: int, index: int, hop: int) -> dict[str, Any]:
    documents: dict[str, Any] = {}
    for rank in range(DOCUMENTS):
        prefix = f"retrieval.documents.{rank}.document."
        documents[prefix + "id"] = f"d{n}-{hop}-{rank}" if rank else f"gold{n}-{hop}"
        documents[prefix + "score"] = 1.0 - rank / DOCUMENTS
        documents[prefix + "content"] = TEXT
    record = span(n, index, 0, "retrieve", openinference__span__kind="RETRIEVER")
    record["attributes"] += [attribute("input.value", f"hop {hop} of question {n}")]
    record["attributes"] += [attribute(key, value) for key, value in documents.items()]
    return record


def question_spans(n: int) -> list[dict[str, Any]]:
    reply = f"The answer to question {n}, in two sentences. It cites the documentation."
    llm = {"openinference__span__kind": "LLM", "llm__token_count__prompt": 800,
           "llm__token_count__completion": 60, "llm__output_messages__0__message__content": reply}  # fmt: skip
    tool = {"openinference__span__kind": "TOOL", "tool__name": "lookup_order",
            "input__value": json.dumps({"order_id": f"A-{n}"})}  # fmt: skip
    return [
        span(
            n,
            0,
            None,
            "agent",
            openinference__span__kind="AGENT",
            input__value=f"Question {n}: where is the warranty of product {n}?",
            output__value=reply,
        ),
        span(n, 1, 0, "plan", openinference__span__kind="CHAIN"),
        retrieval(n, 2, 0),
        span(n, 3, 0, "lookup", **tool),
        retrieval(n, 4, 1),
        span(n, 5, 0, "llm", **llm),
        span(n, 6, 0, "lookup", **tool),
        retrieval(n, 7, 2),
        span(n, 8, 0, "llm", **llm),
        span(n, 9, 0, "llm", **llm),
    ]


def write_inputs(folder: Path, questions: int) -> tuple[Path, Path, Path]:
    testset, traces, run = folder / "testset.jsonl", folder / "traces.json", folder / "run.jsonl"
    with testset.open("w", encoding="utf-8") as file:
        for n in range(questions):
            hops = [{"relevant": [f"gold{n}-{hop}"]} for hop in range(3)]
            entry = {"id": f"q{n}", "question": f"Question {n}: where is the warranty of product {n}?",
                     "hops": hops, "expected_tools": ["lookup_order"]}  # fmt: skip
            file.write(json.dumps(entry) + "\n")
    with traces.open("w", encoding="utf-8") as file:
        for first in range(0, questions, TRACES_A_LINE):
            spans = [
                s
                for n in range(first, min(first + TRACES_A_LINE, questions))
                for s in question_spans(n)
            ]
            request = {"resourceSpans": [{"resource": {"attributes": [attribute("service.name", "agent")]},
                                          "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}]}]}  # fmt: skip
            file.write(json.dumps(request, separators=(",", ":")) + "\n")
    texts = {
        f"q{n}": f"Question {n}: where is the warranty of product {n}?" for n in range(questions)
    }
    run.write_text(dump_run(load_trace_run(traces, texts).records.values()), encoding="utf-8")
    return testset, traces, run


def score_process(testset: Path, run: Path, out: Path) -> float:
    """Run ``ragguard score`` in a fresh interpreter; its peak RSS in MiB (``VmHWM``: Linux
    keeps ``ru_maxrss`` across exec, so a child would report this script's own peak)."""
    argv = ["ragguard", "score", "--testset", str(testset), "--run", str(run), "--out", str(out)]
    probe = (
        "import runpy, sys\n"
        f"sys.argv = {argv!r}\n"
        "try:\n"
        "    runpy.run_module('ragguard', run_name='__main__')\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "status = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
        "print(status, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return int(done.stderr.strip().splitlines()[-1]) / 1024


def metric_values(path: Path) -> list[tuple[str, dict[str, float]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [(q["id"], q["metrics"]) for q in data["questions"]]


def one_size(questions: int, repeat: int) -> tuple[float, float]:
    """Print one size's figures; return the trace reader's seconds and its spans."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        testset, traces, run = write_inputs(folder, questions)
        spans = questions * SPANS_A_QUESTION
        peaks: dict[str, list[float]] = {"traces": [], "jsonl": []}

        def scored(kind: str, path: Path) -> None:
            peaks[kind].append(score_process(testset, path, folder / f"{kind}.results.json"))

        timings, _ = measure(
            {"traces": lambda: scored("traces", traces), "jsonl": lambda: scored("jsonl", run)},
            repeat,
        )
        same = metric_values(folder / "traces.results.json") == metric_values(
            folder / "jsonl.results.json"
        )
        texts = {
            f"q{n}": f"Question {n}: where is the warranty of product {n}?"
            for n in range(questions)
        }
        read, _ = measure({"read": lambda: load_trace_run(traces, texts)}, repeat)
        mib = 1024 * 1024
        print(
            f"\n{questions:,} questions, {spans:,} spans: trace file "
            f"{traces.stat().st_size / mib:.0f} MiB, the same run as JSON Lines "
            f"{run.stat().st_size / mib:.0f} MiB; results equal: {same}"
        )
        for kind, label in (
            ("traces", "score --run traces.json"),
            ("jsonl", "score --run run.jsonl"),
        ):
            timing = timings[kind]
            print(
                f"  {label:26} best {timing.best:.2f} s, median {timing.median:.2f} s over "
                f"{len(timing.wall)} runs, peak RSS {min(peaks[kind]):.0f} MiB"
            )
        t, j = timings["traces"], timings["jsonl"]
        print(
            f"  ratio traces / JSON Lines: time {t.best / j.best:.2f}x (best), "
            f"{t.median / j.median:.2f}x (median); peak RSS "
            f"{min(peaks['traces']) / min(peaks['jsonl']):.2f}x"
        )
        best = read["read"].best
        print(
            f"  load_trace_run alone: {read['read'].describe()}, {best / spans * 1e6:.1f} us a span"
        )
        if not same:
            raise SystemExit("the two results differ")
        return best, spans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, nargs="+", default=[10_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(environment())
    started = time.perf_counter()
    reads = [one_size(questions, args.repeat) for questions in args.questions]
    if len(reads) > 1:
        (small, small_spans), (large, large_spans) = reads[0], reads[-1]
        print(
            f"\nlinearity: {large_spans / small_spans:.0f}x the spans took "
            f"{large / small:.2f}x the time to read ({small / small_spans * 1e6:.1f} -> "
            f"{large / large_spans * 1e6:.1f} us a span)"
        )
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"(benchmark process peak {usage:.0f} MiB, {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
