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

What is fitted (``scripts/fit_faithfulness.py``: two penalties on the support share and the
three strictness levels' thresholds) is measured by 5-fold cross-validation grouped by
question (``source_id``: answers to one question never sit on both sides): the whole fitting
procedure runs on four folds and its model flags the fifth. Printed per level: the held-out
predictions of the five folds pooled (precision, recall, F1, AUROC, clean answers flagged),
the spread over the folds and each fold's row, the same over ``--repeats`` other random
splits, and the sentence-level figures. AUROC ranks answers by 1 - their lowest claim score.
The "as shipped" rows are the product's own verdicts (``ragguard score``, the default
level, fitted on all five folds: not held-out figures); the script checks that they are
what the shipped model computes in process and that the shipped file is what the procedure
fits on all the data (``--check``).

    python benchmarks/faithfulness_real.py
    python benchmarks/faithfulness_real.py --src /path/to/old/checkout/src   # before
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

sys.path.insert(0, str(ROOT / "scripts"))

import fit_faithfulness as fitting  # noqa: E402

from ragguard.metrics.text import segment  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "ragtruth-qa-dev"
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
    """One labelled answer as the product scored it: its question group, the human flag, and
    per statement the human flag and ragguard's (supported, score)."""

    id: str
    group: str
    hallucinated: bool
    statements: tuple[tuple[bool, bool | None, float | None], ...]

    @property
    def flagged(self) -> bool:
        """Any claim unsupported, as ragguard decided."""
        return any(supported is False for _, supported, _ in self.statements)


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


def human_verdicts(response: dict[str, Any]) -> dict[str, Any]:
    """``meta.human`` for one answer: faithful, and per statement whether no marked span
    overlaps it."""
    segments = segment(response["response"])
    spans = fitting.statement_spans(response["response"], [s.text for s in segments])
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


def folds_by_group(answers: Sequence[Any], folds: int, seed: int) -> list[list[Any]]:
    groups = sorted({answer.group for answer in answers})
    random.Random(seed).shuffle(groups)
    fold_of = {group: index % folds for index, group in enumerate(groups)}
    split: list[list[Any]] = [[] for _ in range(folds)]
    for answer in answers:
        split[fold_of[answer.group]].append(answer)
    return split


@dataclass(frozen=True)
class HeldOut:
    """One answer's held-out prediction: its fold, the human flag, its lowest claim score
    under the model fitted on the other folds and each level's flag; per claim the human
    flag, the score and each level's flag."""

    fold: int
    hallucinated: bool
    score: float
    flags: dict[str, bool]
    claims: tuple[tuple[bool, float, dict[str, bool]], ...]


def held_out(answers: Sequence[fitting.LabelledAnswer], folds: int, seed: int) -> list[HeldOut]:
    """Every answer's prediction by the whole procedure (penalties and thresholds) fitted on
    the other folds."""
    split = folds_by_group(answers, folds, seed)
    found = []
    for index, test in enumerate(split):
        train = [answer for other, fold in enumerate(split) if other != index for answer in fold]
        model = fitting.fit(train)
        levels = model["levels"]
        penalties = [model["penalties"][name] for name in fitting.FEATURES]
        for answer in test:
            scores = [fitting.claim_score(penalties, claim) for claim in answer.claims]
            lowest = min(scores, default=1.0)
            claims = tuple(
                (claim.hallucinated, score, {lv: score < t for lv, t in levels.items()})
                for claim, score in zip(answer.claims, scores, strict=True)
            )
            flags = {level: lowest < t for level, t in levels.items()}
            found.append(HeldOut(index, answer.hallucinated, lowest, flags, claims))
    return found


def row(name: str, c: Counts, roc: float | str = "") -> str:
    roc_text = f"{roc:.3f}" if isinstance(roc, float) else roc
    return (
        f"| {name} | {c.precision:.3f} | {c.recall:.3f} | **{c.f1:.3f}** | {roc_text} "
        f"| {c.clean_flagged:.1%} |"
    )


def _answer_counts(held: Sequence[HeldOut], level: str) -> Counts:
    return counts([h.flags[level] for h in held], [h.hallucinated for h in held])


def _answer_auroc(held: Sequence[HeldOut]) -> float:
    return auroc([1.0 - h.score for h in held], [h.hallucinated for h in held])


def level_rows(held: Sequence[HeldOut], level: str, folds: int) -> tuple[str, str, list[str]]:
    """The pooled response-level and sentence-level rows of one level, and its per-fold rows."""
    parts = [[h for h in held if h.fold == fold] for fold in range(folds)]
    spread = [_answer_counts(part, level) for part in parts]
    per_fold = [
        row(f"{level}, fold {fold + 1} ({len(part)} answers)", c, _answer_auroc(part))
        for fold, (part, c) in enumerate(zip(parts, spread, strict=True))
    ]
    name = (
        f"ragguard, held out, {level} (fold F1 {min(c.f1 for c in spread):.3f} to "
        f"{max(c.f1 for c in spread):.3f}, clean flagged {min(c.clean_flagged for c in spread):.1%}"
        f" to {max(c.clean_flagged for c in spread):.1%})"
    )
    claims = [claim for h in held for claim in h.claims]
    sentence_gold = [hallucinated for hallucinated, _, _ in claims]
    sentence = counts([flags[level] for _, _, flags in claims], sentence_gold)
    sentence_roc = auroc([1.0 - score for _, score, _ in claims], sentence_gold)
    return (
        row(name, _answer_counts(held, level), _answer_auroc(held)),
        row(f"ragguard, held out, {level}", sentence, sentence_roc),
        per_fold,
    )


def report(
    shipped: Sequence[Answer],
    answers: Sequence[fitting.LabelledAnswer],
    default_level: str,
    folds: int,
    seed: int,
    repeats: int,
) -> list[str]:
    gold = [answer.hallucinated for answer in shipped]
    statements = [s for answer in shipped for s in answer.statements]
    sentence_gold = [hallucinated for hallucinated, _, _ in statements]
    held = held_out(answers, folds, seed)
    lines = [
        f"{len(shipped)} answers to {len({a.group for a in shipped})} questions, "
        f"{sum(gold)} hallucinated; {len(statements)} statements, {sum(sentence_gold)} "
        "hallucinated",
        "",
        f"response level, {folds}-fold cross-validation grouped by question (seed {seed}) "
        "| precision | recall | F1 | AUROC | clean answers flagged",
        "|---|---|---|---|---|---|",
        row("flag every answer", counts([True] * len(shipped), gold), "0.500"),
    ]
    lines += [f"| paper: {name} | | | {f1:.3f} | | |" for name, f1 in PAPER_F1]
    sentence_rows, fold_rows = [], []
    for level in fitting.LEVELS:
        answer_row, sentence_row, per_fold = level_rows(held, level, folds)
        lines.append(answer_row)
        sentence_rows.append(sentence_row)
        fold_rows += per_fold
    lines.append(
        row(
            f"ragguard as shipped ({default_level}: fitted on all {folds} folds, "
            "not a held-out figure)",
            counts([answer.flagged for answer in shipped], gold),
        )
    )
    sentence_rows.append(
        row(
            f"ragguard as shipped ({default_level})",
            counts([s[1] is False for s in statements], sentence_gold),
        )
    )
    return [
        *lines,
        "",
        "per fold | precision | recall | F1 | AUROC | clean answers flagged",
        "|---|---|---|---|---|---|",
        *fold_rows,
        "",
        *repeated_splits(answers, folds, seed, repeats),
        "",
        "sentence level | precision | recall | F1 | AUROC | clean statements flagged",
        "|---|---|---|---|---|---|",
        *sentence_rows,
    ]


def repeated_splits(
    answers: Sequence[fitting.LabelledAnswer], folds: int, seed: int, repeats: int
) -> list[str]:
    """Each level's held-out figures over other random splits of the questions into folds:
    how much the table owes to the split."""

    def spread(values: list[float], percent: bool = False) -> str:
        shown = [
            f"{v:.1%}" if percent else f"{v:.3f}"
            for v in (sum(values) / len(values), min(values), max(values))
        ]
        return f"{shown[0]} ({shown[1]} to {shown[2]})"

    runs = [held_out(answers, folds, seed + offset) for offset in range(repeats)]
    lines = []
    for level in fitting.LEVELS:
        found = [
            counts([h.flags[level] for h in run], [h.hallucinated for h in run]) for run in runs
        ]
        lines.append(
            f"{level}, held out over {repeats} splits (seeds {seed} to {seed + repeats - 1}), "
            f"mean (min to max): F1 {spread([c.f1 for c in found])}, clean answers flagged "
            f"{spread([c.clean_flagged for c in found], percent=True)}"
        )
    return lines


def product_agrees(
    shipped: Sequence[Answer], answers: Sequence[fitting.LabelledAnswer], model: dict[str, Any]
) -> bool:
    """True when every answer ragguard score flagged is one the shipped model flags in
    process (the fitting script's arithmetic is the product's)."""
    threshold = model["levels"][model["default_level"]]
    by_id = {answer.id: fitting.answer_score(model, answer) < threshold for answer in answers}
    return all(by_id[answer.id] == answer.flagged for answer in shipped)


def shipped_matches(data: Path, src: Path | None) -> str:
    """Whether the shipped model file is what the procedure fits on all the data."""
    env = dict(os.environ, **({"PYTHONPATH": str(src)} if src else {}))
    script = ROOT / "scripts" / "fit_faithfulness.py"
    done = subprocess.run(
        [sys.executable, str(script), "--data", str(data), "--check"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    return done.stdout.strip() or done.stderr.strip()


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
        shipped = scored_answers(results, testset)
    labelled = fitting.load_answers(options.data)
    model = json.loads(fitting.WEIGHTS_FILE.read_text(encoding="utf-8"))
    for line in report(
        shipped, labelled, model["default_level"], options.folds, options.seed, options.repeats
    ):
        print(line)
    said = shipped_matches(options.data, options.src)
    print(f"\nscripts/fit_faithfulness.py --check: {said}")
    agrees = product_agrees(shipped, labelled, model)
    print(f"ragguard score's verdicts are the shipped model's ({model['default_level']}): {agrees}")
    print("\nragguard calibrate --testset testset.jsonl --run run.jsonl:")
    print(calibrated.rstrip())


if __name__ == "__main__":
    main()
