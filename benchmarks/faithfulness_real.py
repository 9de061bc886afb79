"""Offline faithfulness on real LLM answers: RAGTruth QA, human-labelled, held-out figures.

What it does, as a user would:

1. Converts the RAGTruth QA answers (``--data``, default ``../shared/data/ragtruth-qa-dev``)
   into ragguard's own files: a test set (one question per answer, the human verdicts in
   ``meta.human``: ``faithful`` for the answer, ``sentences`` for each statement by id), and a
   recorded run (the three passages the answering model saw as the retrieved chunks, with
   their text, and the answer).
2. Runs the product: ``ragguard score --metrics faithfulness`` and ``ragguard calibrate``
   on those files, in subprocesses (``--src`` runs another checkout's ragguard, to measure a
   "before").
3. Reads results.json and counts the way the RAGTruth paper's Table 5 counts: an answer is
   hallucinated when a human marked any span in it; ragguard flags an answer when it finds
   any unsupported statement (what fails the default per-question rule ``faithfulness: 1``).
   A statement is hallucinated when a marked span overlaps it.

The only tuned setting is the faithfulness threshold. It is chosen by 5-fold
cross-validation grouped by question (``source_id``: answers to one question never sit on
both sides): on four folds the threshold with the best response-level F1 among those that
flag at most 25 % of the clean answers, applied to the fifth. The printed figures are the
held-out predictions of the five folds pooled. AUROC needs no threshold and is computed on
every answer. This works because a lexical verdict is exactly ``score >= threshold`` (the
number and contradiction checks set the score to 0); the script checks that on the run at
the shipped threshold and, for a ragguard where it does not hold, prints the shipped
setting only.

    python benchmarks/faithfulness_real.py
    python benchmarks/faithfulness_real.py --src /path/to/old/checkout/src   # before
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from ragguard.metrics.text import segment  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "ragtruth-qa-dev"
THRESHOLDS = tuple(round(0.05 * step, 2) for step in range(1, 20))
MAX_CLEAN_FLAGGED = 0.25
# Response-level F1 on RAGTruth's QA task, the paper's Table 5 (as quoted in the data's README).
PAPER_F1 = (
    ("prompt-based GPT-3.5-turbo", 0.308),
    ("prompt-based GPT-4-turbo", 0.456),
    ("SelfCheckGPT", 0.437),
    ("LMvLM (GPT-4)", 0.301),
    ("fine-tuned Llama-2-13B", 0.682),
)


@dataclass(frozen=True)
class Answer:
    """One labelled answer as scored: its question group, the human flag, and per statement
    the human flag and ragguard's (supported, score)."""

    id: str
    group: str
    hallucinated: bool
    statements: tuple[tuple[bool, bool | None, float | None], ...]

    def flagged(self, threshold: float | None) -> bool:
        """Any claim unsupported: as ragguard decided (None) or at another threshold."""
        return any(_unsupported(s, threshold) for s in self.statements)

    @property
    def risk(self) -> float:
        """1 - the lowest support score of a claim (0 for an answer with no claim)."""
        scores = [score for _, supported, score in self.statements if supported is not None]
        return 1.0 - min(scores, default=1.0) if scores else 0.0


def _unsupported(statement: tuple[bool, bool | None, float | None], t: float | None) -> bool:
    _, supported, score = statement
    if supported is None:
        return False
    if t is None:
        return supported is False
    return (score or 0.0) < t


# -- conversion ----------------------------------------------------------------------------


def load_data(data: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if not (data / "responses.jsonl").is_file() or not (data / "sources.jsonl").is_file():
        sys.exit(f"faithfulness_real: {data}: no responses.jsonl/sources.jsonl; pass --data DIR")
    sources = {}
    for line in (data / "sources.jsonl").read_text(encoding="utf-8").splitlines():
        source = json.loads(line)
        sources[source["source_id"]] = source
    responses = [
        json.loads(line) for line in (data / "responses.jsonl").read_text("utf-8").splitlines()
    ]
    return sources, responses


def statement_spans(response: str, texts: Sequence[str]) -> list[tuple[int, int] | None]:
    """Character spans of ragguard's statements in the answer (whitespace may differ:
    segmentation joins the lines of a list item)."""
    spans: list[tuple[int, int] | None] = []
    position = 0
    for text in texts:
        pattern = re.compile(r"\s*".join(re.escape(word) for word in text.split()))
        found = pattern.search(response, position) or pattern.search(response)
        spans.append((found.start(), found.end()) if found else None)
        position = found.end() if found else position
    return spans


def human_verdicts(response: dict[str, Any]) -> dict[str, Any]:
    """``meta.human`` for one answer: faithful, and per statement whether no marked span
    overlaps it."""
    segments = segment(response["response"])
    spans = statement_spans(response["response"], [s.text for s in segments])
    labels = response["labels"]
    sentences = {}
    for seg, span in zip(segments, spans, strict=True):
        if span is not None:
            hit = any(label["start"] < span[1] and label["end"] > span[0] for label in labels)
            sentences[seg.id] = not hit
    return {"faithful": not labels, "sentences": sentences}


def convert(sources: dict[str, Any], responses: list[dict[str, Any]], out: Path) -> None:
    """Write testset.jsonl and run.jsonl in ragguard's formats."""
    with (
        (out / "testset.jsonl").open("w", encoding="utf-8") as testset,
        (out / "run.jsonl").open("w", encoding="utf-8") as run,
    ):
        for response in responses:
            source = sources[response["source_id"]]
            chunks = [
                {"id": f"{response['source_id']}-p{n}", "text": text}
                for n, text in enumerate(source["passages"], start=1)
            ]
            question = {
                "id": response["id"],
                "question": source["question"],
                "relevant": [chunk["id"] for chunk in chunks],
                "tags": [response["model"]],
                "meta": {"source_id": response["source_id"], "human": human_verdicts(response)},
            }
            record = {"id": response["id"], "retrieved": chunks, "answer": response["response"]}
            testset.write(json.dumps(question, ensure_ascii=False) + "\n")
            run.write(json.dumps(record, ensure_ascii=False) + "\n")


# -- the product ---------------------------------------------------------------------------


def ragguard(args: Sequence[str], src: Path | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    command = [sys.executable, "-m", "ragguard", *args]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"faithfulness_real: {' '.join(args[:1])} failed:\n{done.stderr}{done.stdout}")
    return done


def scored_answers(results: Path, testset: Path) -> list[Answer]:
    meta = {}
    for line in testset.read_text(encoding="utf-8").splitlines():
        question = json.loads(line)
        meta[question["id"]] = question["meta"]
    answers = []
    for question in json.loads(results.read_text(encoding="utf-8"))["questions"]:
        human = meta[question["id"]]["human"]
        statements = tuple(
            (
                not human["sentences"].get(s["id"], True),
                s.get("supported"),
                s.get("score"),
            )
            for s in question.get("sentences", [])
        )
        answers.append(
            Answer(
                question["id"],
                meta[question["id"]]["source_id"],
                not human["faithful"],
                statements,
            )
        )
    return answers


def verdicts_are_thresholds(answers: Sequence[Answer], threshold: float) -> bool:
    """True when every verdict is ``score >= threshold``, so other thresholds can be tried."""
    return all(
        _unsupported(s, None) == _unsupported(s, threshold)
        for answer in answers
        for s in answer.statements
    )


# -- figures -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Counts:
    precision: float
    recall: float
    f1: float
    clean_flagged: float


def counts(predicted: Sequence[bool], gold: Sequence[bool]) -> Counts:
    tp = sum(1 for p, g in zip(predicted, gold, strict=True) if p and g)
    fp = sum(1 for p, g in zip(predicted, gold, strict=True) if p and not g)
    fn = sum(1 for p, g in zip(predicted, gold, strict=True) if g and not p)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    clean = sum(1 for g in gold if not g)
    return Counts(precision, recall, f1, fp / clean if clean else 0.0)


def auroc(scores: Sequence[float], gold: Sequence[bool]) -> float:
    """Area under the ROC curve (Mann-Whitney U, ties counted half)."""
    ranked = sorted(zip(scores, gold, strict=True), key=lambda pair: pair[0])
    ranks = [0.0] * len(ranked)
    start = 0
    while start < len(ranked):
        end = start
        while end < len(ranked) and ranked[end][0] == ranked[start][0]:
            end += 1
        for index in range(start, end):
            ranks[index] = (start + end + 1) / 2
        start = end
    positives = sum(1 for _, g in ranked if g)
    negatives = len(ranked) - positives
    if not positives or not negatives:
        return float("nan")
    rank_sum = sum(rank for rank, (_, g) in zip(ranks, ranked, strict=True) if g)
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def folds_by_group(answers: Sequence[Answer], folds: int, seed: int) -> list[list[Answer]]:
    groups = sorted({answer.group for answer in answers})
    random.Random(seed).shuffle(groups)
    fold_of = {group: index % folds for index, group in enumerate(groups)}
    split: list[list[Answer]] = [[] for _ in range(folds)]
    for answer in answers:
        split[fold_of[answer.group]].append(answer)
    return split


def choose_threshold(train: Sequence[Answer]) -> float:
    """Best response-level F1 among thresholds flagging at most 25 % of clean answers."""
    gold = [answer.hallucinated for answer in train]

    def figures(t: float) -> Counts:
        return counts([answer.flagged(t) for answer in train], gold)

    allowed = [t for t in THRESHOLDS if figures(t).clean_flagged <= MAX_CLEAN_FLAGGED]
    return max(allowed or THRESHOLDS, key=lambda t: (figures(t).f1, -t))


def held_out(answers: Sequence[Answer], folds: int, seed: int) -> tuple[dict[str, float], list]:
    """Each answer's threshold, chosen on the other folds; and the thresholds chosen."""
    split = folds_by_group(answers, folds, seed)
    chosen: dict[str, float] = {}
    thresholds = []
    for index, test in enumerate(split):
        train = [answer for other, fold in enumerate(split) if other != index for answer in fold]
        threshold = choose_threshold(train)
        thresholds.append(threshold)
        chosen.update(dict.fromkeys((answer.id for answer in test), threshold))
    return chosen, thresholds


def row(name: str, c: Counts, roc: float | str = "") -> str:
    roc_text = f"{roc:.3f}" if isinstance(roc, float) else roc
    return (
        f"| {name} | {c.precision:.3f} | {c.recall:.3f} | **{c.f1:.3f}** | {roc_text} "
        f"| {c.clean_flagged:.1%} |"
    )


def report(
    answers: Sequence[Answer], shipped: float, folds: int, seed: int, repeats: int
) -> list[str]:
    gold = [answer.hallucinated for answer in answers]
    statements = [s for answer in answers for s in answer.statements]
    sentence_gold = [hallucinated for hallucinated, _, _ in statements]
    sentence_risk = [
        0.0 if supported is None else 1.0 - (score or 0.0) for _, supported, score in statements
    ]
    roc = auroc([answer.risk for answer in answers], gold)
    sentence_roc = auroc(sentence_risk, sentence_gold)
    lines = [
        f"{len(answers)} answers to {len({a.group for a in answers})} questions, "
        f"{sum(gold)} hallucinated; {len(statements)} statements, {sum(sentence_gold)} "
        "hallucinated",
        "",
        "response level | precision | recall | F1 | AUROC | clean answers flagged",
        "|---|---|---|---|---|---|",
        row("flag every answer", counts([True] * len(answers), gold), "0.500"),
    ]
    lines += [f"| paper: {name} | | | {f1:.3f} | | |" for name, f1 in PAPER_F1]
    shipped_flags = [answer.flagged(None) for answer in answers]
    lines.append(
        row(f"ragguard as shipped (threshold {shipped:g})", counts(shipped_flags, gold), roc)
    )
    sentence_rows = [
        row(
            f"ragguard as shipped (threshold {shipped:g})",
            counts([_unsupported(s, None) for s in statements], sentence_gold),
            sentence_roc,
        )
    ]
    if verdicts_are_thresholds(answers, shipped):
        chosen, thresholds = held_out(answers, folds, seed)
        flags = [answer.flagged(chosen[answer.id]) for answer in answers]
        name = f"ragguard, held out ({folds}-fold by question; thresholds {thresholds})"
        lines.append(row(name, counts(flags, gold), roc))
        held = [_unsupported(s, chosen[a.id]) for a in answers for s in a.statements]
        sentence_rows.append(row(name, counts(held, sentence_gold), sentence_roc))
        lines += ["", *repeated_splits(answers, folds, seed, repeats)]
        lines.append(
            f"threshold the procedure picks on all {folds} folds: {choose_threshold(answers):g} "
            f"(shipped: {shipped:g})"
        )
    else:
        lines.append("(verdicts are not a threshold on the score: no held-out tuning)")
    return [
        *lines,
        "",
        "sentence level | precision | recall | F1 | AUROC | clean statements flagged",
        "|---|---|---|---|---|---|",
        *sentence_rows,
    ]


def repeated_splits(answers: Sequence[Answer], folds: int, seed: int, repeats: int) -> list[str]:
    """The held-out figures over other random splits of the questions into folds: how much
    the one table row owes to the split."""
    gold = [answer.hallucinated for answer in answers]
    runs = []
    for offset in range(repeats):
        chosen, _ = held_out(answers, folds, seed + offset)
        runs.append(counts([answer.flagged(chosen[answer.id]) for answer in answers], gold))

    def spread(values: list[float], percent: bool = False) -> str:
        shown = [
            f"{v:.1%}" if percent else f"{v:.3f}"
            for v in (sum(values) / len(values), min(values), max(values))
        ]
        return f"{shown[0]} ({shown[1]} to {shown[2]})"

    return [
        f"held out over {repeats} splits (seeds {seed} to {seed + repeats - 1}), mean (min to max): "
        f"F1 {spread([r.f1 for r in runs])}, clean answers flagged "
        f"{spread([r.clean_flagged for r in runs], percent=True)}"
    ]


def shipped_threshold(src: Path | None) -> float:
    code = "from ragguard.metrics.faithfulness import DEFAULT_THRESHOLD as t; print(t)"
    env = dict(os.environ, **({"PYTHONPATH": str(src)} if src else {}))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--src", type=Path, help="another checkout's src/ (a 'before')")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=20, help="other splits to summarise")
    parser.add_argument("--keep", type=Path, help="write the converted files here")
    options = parser.parse_args()
    sources, responses = load_data(options.data)
    with tempfile.TemporaryDirectory() as temp:
        out = options.keep or Path(temp)
        out.mkdir(parents=True, exist_ok=True)
        convert(sources, responses, out)
        testset, run, results = out / "testset.jsonl", out / "run.jsonl", out / "results.json"
        common = ["--testset", str(testset), "--run", str(run)]
        ragguard(
            ["score", *common, "--metrics", "faithfulness", "--out", str(results)], options.src
        )
        calibrated = ragguard(["calibrate", *common], options.src).stdout
        answers = scored_answers(results, testset)
    for line in report(
        answers, shipped_threshold(options.src), options.folds, options.seed, options.repeats
    ):
        print(line)
    print("\nragguard calibrate --testset testset.jsonl --run run.jsonl:")
    print(calibrated.rstrip())


if __name__ == "__main__":
    main()
