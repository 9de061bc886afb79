"""One long answer: lexical faithfulness must take time linear in the answer's length.

The answers are real LLM prose: the RAGTruth QA answers (``responses.jsonl`` under
``--data``), taken in file order and joined with a blank line between them (starting again
at the first answer when the file runs out), cut at 500, 1,000, 2,000 and 4,000 sentences
(as ``ragguard.metrics.text.segment`` counts them) and at 1,000,000 characters. The context
is the three passages of every source of ``sources.jsonl`` as (chunk id, text) pairs
(``<source_id>-p1`` ...; ``--sources N``: of the first N only), and the question is the
first source's. ``--passages N`` cycles that context to N passages (the copies get the
ids ``<chunk id>~2``, ``~3`` ...): ``--passages 2550`` is the 255 passages ten times over,
a long context that repeats itself as real ones do. ``--passage-chars C`` builds instead
passages of about C characters that do not repeat: each of the passages' real sentences
drawn at random (seed 0) with their words shuffled, so that no sentence repeats, until it
holds C characters, as many passages as the context had (or ``--passages``): ``--passage-chars 8000`` makes the 255 passages about
2 MB of context, the size issue 29 names, and ``--passages 2550 --passage-chars 8000``
about 20 MB.

Measured, for each answer, in this process: what ``ragguard score`` does for one answer's
lexical faithfulness -- ``segment(answer)``, then ``lexical_verdicts(segments, context,
threshold, question)``, then ``faithfulness_score(verdicts)`` -- best of ``--repeat`` runs
(wall clock, ``time.perf_counter``), the stem cache (and the analysed context, when
``analyse_context`` caches it) cleared before every run so that each run pays what a first
run pays. Printed: sentences, characters, seconds (wall; and CPU, which other processes on
a busy machine do not inflate) and microseconds per sentence, the ratio time(4,000) /
time(2,000) (linear: about 2; quadratic: about 4), and how many of the 1 MB answer's
statements are distinct (the file's answers come round again about three times).

Then the 1,000,000-character answer as a whole process: a one-question test set and a
recorded run (every passage retrieved, the long answer) written to a temporary folder and
scored by ``python -m ragguard score --metrics faithfulness --out ...``, ``--repeat`` times;
the best wall time, the best CPU time (the child's user + system) and the children's peak
RSS are printed, and its faithfulness must equal the in-process value.

With ``--times N``, the 1 MB answer is then timed (in process, best of ``--repeat``) against
N times the passages, made the same way (``--passage-chars 8000 --times 10``: 2,550 drawn
passages, about 20 MB), and its ratio to the first context's time printed.

Exits 1 when the 1 MB answer takes more than 2 s in process, the 4,000 / 2,000 ratio is
over 3, the whole-process score differs, or (``--times N``) the larger context takes N
times the time or more; 2 when the data folder is missing.

    python benchmarks/answer_length.py
    python benchmarks/answer_length.py --repeat 5 --data /path/to/ragtruth-qa-dev
    python benchmarks/answer_length.py --sources 1    # one question's 3 passages as context
    python benchmarks/answer_length.py --passages 2550   # the 255 passages ten times over
    python benchmarks/answer_length.py --passage-chars 8000   # 255 distinct passages, ~2 MB
    python benchmarks/answer_length.py --passage-chars 8000 --times 10   # and then ~20 MB
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from _common import Timing, environment

from ragguard.metrics import faithfulness
from ragguard.metrics.faithfulness import (
    DEFAULT_THRESHOLD,
    analyse_context,
    faithfulness_score,
    lexical_verdicts,
)
from ragguard.metrics.text import segment, stem
from ragguard.results.io import load_results

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "ragtruth-qa-dev"
SENTENCES = (500, 1_000, 2_000, 4_000)
MEGABYTE = 1_000_000
TARGET_SECONDS = 2.0
TARGET_RATIO = 3.0
Context = list[tuple[str, str]]


def load_data(folder: Path, sources_wanted: int | None) -> tuple[list[str], Context, str]:
    """The answers in file order, the passages of every source (or of the first
    ``sources_wanted``), the first source's question."""
    with (folder / "responses.jsonl").open(encoding="utf-8") as lines:
        answers = [json.loads(line)["response"] for line in lines if line.strip()]
    with (folder / "sources.jsonl").open(encoding="utf-8") as lines:
        sources = [json.loads(line) for line in lines if line.strip()][:sources_wanted]
    context = [
        (f"{source['source_id']}-p{number}", text)
        for source in sources
        for number, text in enumerate(source["passages"], start=1)
    ]
    return answers, context, sources[0]["question"]


def cycled_context(context: Context, wanted: int) -> Context:
    """The passages in order, again from the first until ``wanted`` of them; a copy's id is
    the passage's with ``~2``, ``~3`` ... after it (one id per chunk)."""
    return [
        (chunk_id if index < len(context) else f"{chunk_id}~{index // len(context) + 1}", text)
        for index in range(wanted)
        for chunk_id, text in [context[index % len(context)]]
    ]


def drawn_context(context: Context, wanted: int, chars: int) -> Context:
    """``wanted`` passages of about ``chars`` characters, each of the passages' real
    sentences drawn at random with their words shuffled, seed 0: long passages that repeat
    no sentence, in the passages' words (the answers' sentences are not drawn: the context
    would then hold every claim)."""
    sentences = [piece.text for _, text in context for piece in segment(text)]
    draw = random.Random(0)
    drawn: Context = []
    for index in range(wanted):
        parts: list[str] = []
        size = 0
        while size < chars:
            words = draw.choice(sentences).split()
            draw.shuffle(words)
            parts.append(" ".join(words))
            size += len(parts[-1]) + 1
        drawn.append((f"drawn-{index + 1}", " ".join(parts)))
    return drawn


def cycled(answers: Sequence[str]) -> Iterator[str]:
    """The answers in file order, again from the first when the file runs out."""
    while True:
        yield from answers


def first_sentences(answer: str, count: int) -> str:
    """The longest prefix of one answer that ``segment`` splits into ``count`` statements
    (the whole of statement ``count``, nothing of the next)."""
    low, high = 0, len(answer)  # segment(answer[:p]) grows with p: find the last p with count
    while low < high:
        middle = (low + high + 1) // 2
        if len(segment(answer[:middle])) <= count:
            low = middle
        else:
            high = middle - 1
    return answer[:low].rstrip()


def answer_of_sentences(answers: Sequence[str], count: int) -> str:
    """Whole answers joined by blank lines until ``count`` statements, the last one cut.

    A blank line ends every markdown block, so the joined answer's statements are those of
    its parts, in order; checked on the result."""
    parts: list[str] = []
    total = 0
    for answer in cycled(answers):
        found = len(segment(answer))
        if total + found >= count:
            parts.append(first_sentences(answer, count - total))
            break
        parts.append(answer)
        total += found
    joined = "\n\n".join(parts)
    if len(segment(joined)) != count:
        sys.exit(f"could not cut an answer of exactly {count} sentences")
    return joined


def answer_of_characters(answers: Sequence[str], size: int) -> str:
    """Whole answers joined by blank lines until ``size`` characters, cut at ``size``."""
    parts: list[str] = []
    length = -2
    for answer in cycled(answers):
        parts.append(answer)
        length += len(answer) + 2
        if length >= size:
            break
    return "\n\n".join(parts)[:size]


def clear_caches() -> None:
    """Forget the stems, and the analysed context when ``analyse_context`` caches it, so
    that every run pays what the first run of a process pays."""
    stem.cache_clear()
    forget = getattr(faithfulness, "forget_analysed_contexts", None)
    cache_clear = getattr(analyse_context, "cache_clear", forget)  # an older checkout's
    if cache_clear is not None:
        cache_clear()


def score_once(answer: str, context: Context, question: str) -> float:
    """What ``ragguard score`` computes for one answer's lexical faithfulness."""
    segments = segment(answer)
    verdicts = lexical_verdicts(segments, context, DEFAULT_THRESHOLD, question)
    return faithfulness_score(verdicts)


def time_answers(
    answers: Sequence[str], context: Context, question: str, repeat: int
) -> tuple[list[Timing], list[float]]:
    """Each answer scored ``repeat`` times, interleaved (a, b, ..., a, b, ...), the
    caches cleared and the garbage collected before every run (outside the clock)."""
    wall: list[list[float]] = [[] for _ in answers]
    cpu: list[list[float]] = [[] for _ in answers]
    values = [0.0] * len(answers)
    for _ in range(repeat):
        for index, answer in enumerate(answers):
            clear_caches()
            gc.collect()
            start, start_cpu = time.perf_counter(), time.process_time()
            values[index] = score_once(answer, context, question)
            cpu[index].append(time.process_time() - start_cpu)
            wall[index].append(time.perf_counter() - start)
    return [Timing(tuple(w), tuple(c)) for w, c in zip(wall, cpu, strict=True)], values


def whole_process(
    answer: str, context: Context, question: str, repeat: int
) -> tuple[Timing, float, float]:
    """``python -m ragguard score`` on a one-question test set and run holding ``answer``,
    ``repeat`` times: the wall and CPU seconds of each run (the child's user + system time),
    the children's peak RSS in MiB, and the faithfulness it wrote."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        testset, run, out = folder / "testset.jsonl", folder / "run.jsonl", folder / "out.json"
        question_line = {"id": "long", "question": question, "relevant": [context[0][0]]}
        testset.write_text(json.dumps(question_line) + "\n", encoding="utf-8")
        retrieved = [{"id": chunk_id, "text": text} for chunk_id, text in context]
        record = {"id": "long", "retrieved": retrieved, "answer": answer}
        run.write_text(json.dumps(record) + "\n", encoding="utf-8")
        command = [sys.executable, "-m", "ragguard", "score", "--testset", str(testset)]
        command += ["--run", str(run), "--metrics", "faithfulness", "--out", str(out)]
        wall: list[float] = []
        cpu: list[float] = []
        for _ in range(repeat):
            out.unlink(missing_ok=True)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, cwd=folder, check=False)
            wall.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            if done.returncode != 0:
                sys.exit(f"ragguard score failed ({done.returncode}): {done.stderr.strip()}")
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        peak_mib = peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
        value = load_results(out).questions[0].metrics["faithfulness"]
    return Timing(tuple(wall), tuple(cpu)), peak_mib, value


def built_context(read: Context, passages: int, chars: int | None) -> Context:
    """The context timed: the passages read cycled to ``passages``, or that many drawn
    passages of about ``chars`` characters."""
    if chars is not None:
        return drawn_context(read, passages, chars)
    return read if passages == len(read) else cycled_context(read, passages)


def scaled(
    args: argparse.Namespace,
    read: Context,
    passages: int,
    question: str,
    answer: str,
    seconds: float,
) -> bool:
    """The 1 MB answer against ``args.times`` times the passages, in process, best of
    ``args.repeat``: printed with its ratio to ``seconds``; True when the ratio is under
    ``args.times``."""
    larger = built_context(read, passages * args.times, args.passage_chars)
    (timing,), _ = time_answers([answer], larger, question, args.repeat)
    ratio = timing.best / seconds
    ok = ratio < args.times
    print(
        f"1 MB answer against {len(larger):,} passages "
        f"({sum(len(text) for _, text in larger):,} characters): {timing.best:.2f} s, "
        f"{timing.best_cpu:.2f} s CPU in process, {ratio:.1f}x the {passages:,}-passage time "
        f"(target < {args.times}x) -> {'ok' if ok else 'MISSED'}"
    )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help=f"default: {DATA}")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--sources",
        type=int,
        default=None,
        help="context: the passages of the first N sources only (default: all)",
    )
    parser.add_argument(
        "--passages",
        type=int,
        default=None,
        help="context: the passages cycled to N (copies named <id>~2 ...; default: as read)",
    )
    parser.add_argument(
        "--times",
        type=int,
        default=None,
        help="then the 1 MB answer against N times the passages, made the same way: "
        "its time in process must stay under N times the first context's",
    )
    parser.add_argument(
        "--passage-chars",
        type=int,
        default=None,
        help="context: passages of about C characters of real sentences drawn at random, "
        "none repeated (as many as --passages, else as read)",
    )
    args = parser.parse_args()
    if not ((args.data / "responses.jsonl").is_file() and (args.data / "sources.jsonl").is_file()):
        print(
            f"answer_length.py: no responses.jsonl and sources.jsonl in {args.data}; "
            "pass --data DIR (the RAGTruth QA development half)",
            file=sys.stderr,
        )
        return 2
    pool, read, question = load_data(args.data, args.sources)
    passages = args.passages if args.passages is not None else len(read)
    context = built_context(read, passages, args.passage_chars)
    print(environment())
    print(
        f"answers: {len(pool)} LLM answers from {args.data} in file order, joined by blank "
        f"lines ({sum(map(len, pool)):,} characters; cycled when longer)"
    )
    print(
        f"context: {len(context)} passages ({sum(len(text) for _, text in context):,} "
        f"characters); threshold {DEFAULT_THRESHOLD}; best of {args.repeat} runs, stem and "
        "context caches cleared before each"
    )
    answers = [answer_of_sentences(pool, count) for count in SENTENCES]
    answers.append(answer_of_characters(pool, MEGABYTE))
    stem("warm")  # the stemmer's import, once per process, is not the answer's cost
    timings, values = time_answers(answers, context, question, args.repeat)

    header = f"{'sentences':>10} {'characters':>11} {'seconds':>8} {'cpu s':>6}"
    print(f"{header} {'us/sentence':>12} {'score':>6}")
    for answer, timing, value in zip(answers, timings, values, strict=True):
        sentences = len(segment(answer))
        print(
            f"{sentences:>10,} {len(answer):>11,} {timing.best:>8.3f} {timing.best_cpu:>6.3f} "
            f"{timing.best / sentences * 1e6:>12.1f} {value:>6.3f}"
        )
    by_count = dict(zip(SENTENCES, timings[: len(SENTENCES)], strict=True))
    ratio = by_count[4_000].best / by_count[2_000].best
    megabyte = timings[-1].best
    print(f"time(4,000) / time(2,000): {ratio:.2f} (linear ~2, quadratic ~4; target <= 3)")
    statements = segment(answers[-1])
    print(
        f"the 1 MB answer repeats the file's answers: {len(statements):,} statements, "
        f"{len({s.text for s in statements}):,} distinct"
    )

    process, peak_mib, value = whole_process(answers[-1], context, question, args.repeat)
    same = abs(value - values[-1]) < 1e-12
    print(
        f"whole process, 1 MB answer: `python -m ragguard score --metrics faithfulness` "
        f"{process.best:.2f} s wall, {process.best_cpu:.2f} s CPU (best of {args.repeat}), "
        f"peak RSS {peak_mib:.0f} MiB, faithfulness {value:.3f} "
        f"({'equal to' if same else 'DIFFERS from'} the in-process value)"
    )
    ok = megabyte <= TARGET_SECONDS and ratio <= TARGET_RATIO and same
    print(
        f"1 MB answer in process: {megabyte:.2f} s (target < {TARGET_SECONDS:.0f} s); "
        f"ratio {ratio:.2f} (target <= {TARGET_RATIO:.0f}) -> {'ok' if ok else 'MISSED'}"
    )
    if args.times is not None:
        ok = scaled(args, read, passages, question, answers[-1], megabyte) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
